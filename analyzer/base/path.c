#include "base/path.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/limits.h"

const char *pd_read_error(int err) {
  if (err == EFBIG) return "too large: over the " PD_MAX_FILE_TEXT " limit, refused";
  if (err == EINVAL) return "not a regular file (a FIFO, socket or device), refused";
  return strerror(err);
}

bool pd_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  size_t n = strlen(text);
  bool ok = fwrite(text, 1, n, f) == n;
  int saved = errno;
  if (fclose(f) != 0) return false;
  if (!ok) errno = saved;
  return ok;
}

char *pd_read_file(const char *path, size_t max_bytes, size_t *len) {
  struct stat pre;
  if (stat(path, &pre) == 0 && !S_ISREG(pre.st_mode)) {
    errno = S_ISDIR(pre.st_mode) ? EISDIR : EINVAL;
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    fclose(f);
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    fclose(f);
    errno = EISDIR;
    return NULL;
  }
  pd_buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (b.len + n > max_bytes) {
      pd_buf_free(&b);
      fclose(f);
      errno = EFBIG;
      return NULL;
    }
    pd_buf_append(&b, chunk, n);
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    pd_buf_free(&b);
    errno = EIO;
    return NULL;
  }
  if (len) *len = b.len;
  return pd_buf_take(&b);
}

char *pd_path_normalize(const char *path) {
  bool abs = path[0] == '/';
  char *copy = pd_xstrdup(path);
  char **parts = NULL;
  size_t n = 0, cap = 0;
  for (char *save = NULL, *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
    if (!strcmp(t, ".")) continue;
    if (!strcmp(t, "..") && n > 0 && strcmp(parts[n - 1], "..") != 0) {
      n--;
      continue;
    }
    if (!strcmp(t, "..") && abs) continue; /* "/.." is "/" */
    *PD_PUSH(parts, n, cap) = t;
  }
  pd_buf out = {0};
  if (abs) pd_buf_putc(&out, '/');
  for (size_t i = 0; i < n; i++) {
    if (i) pd_buf_putc(&out, '/');
    pd_buf_puts(&out, parts[i]);
  }
  if (!out.len) pd_buf_putc(&out, '.');
  free(parts);
  free(copy);
  return pd_buf_take(&out);
}

char *pd_path_dirname(const char *path) {
  const char *s = strrchr(path, '/');
  if (!s) return pd_xstrdup(".");
  return s == path ? pd_xstrdup("/") : pd_xstrndup(path, (size_t)(s - path));
}

char *pd_path_from(const char *file, const char *path) {
  const char *slash = strrchr(file, '/');
  char *dir = pd_xstrndup(file, slash ? (size_t)(slash - file) : 0);
  pd_buf up = {0};
  while (*dir) { /* walk up until the directory is a prefix of path */
    size_t n = strlen(dir);
    if (!strncmp(path, dir, n) && path[n] == '/') {
      pd_buf_puts(&up, path + n + 1);
      free(dir);
      return pd_buf_take(&up);
    }
    pd_buf_puts(&up, "../");
    char *s = strrchr(dir, '/');
    if (!s) break;
    *s = '\0';
  }
  free(dir);
  pd_buf_free(&up);
  return pd_xstrdup(path);
}

int pd_mkdirs(const char *dir) {
  char *p = pd_xstrdup(dir);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return -1;
    }
    *s = '/';
  }
  int r = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
  free(p);
  return r;
}

const char *pd_path_base(const char *path) {
  if (!path) return "";
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

char *pd_path_absolute(const char *p) {
  if (p[0] == '/') return pd_path_normalize(p);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return pd_path_normalize(p);
  char *j = pd_xasprintf("%s/%s", cwd, p);
  char *r = pd_path_normalize(j);
  free(j);
  return r;
}
