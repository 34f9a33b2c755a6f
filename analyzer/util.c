#include "analyzer/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void oom(size_t n) {
  fprintf(stderr, "perf-doctor: out of memory (%zu bytes)\n", n);
  abort();
}

void *pd_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom(n);
  return p;
}

void *pd_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) oom(n * size);
  return p;
}

void *pd_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom(n);
  return q;
}

char *pd_xstrdup(const char *s) { return pd_xstrndup(s, strlen(s)); }

char *pd_xstrndup(const char *s, size_t n) {
  char *p = pd_xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *pd_xasprintf(const char *fmt, ...) {
  pd_buf b = {0};
  va_list ap;
  va_start(ap, fmt);
  pd_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  return pd_buf_take(&b);
}

void pd_grow(void **items, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return;
  size_t c = *cap ? *cap : 8;
  while (c < need) c *= 2;
  if (c > SIZE_MAX / elem) oom(SIZE_MAX);
  *items = pd_xrealloc(*items, c * elem);
  *cap = c;
}

static void buf_reserve(pd_buf *b, size_t extra) {
  if (b->len + extra + 1 > b->cap) {
    size_t c = b->cap ? b->cap : 64;
    while (c < b->len + extra + 1) c *= 2;
    b->data = pd_xrealloc(b->data, c);
    b->cap = c;
  }
}

void pd_buf_append(pd_buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void pd_buf_puts(pd_buf *b, const char *s) { pd_buf_append(b, s, strlen(s)); }
void pd_buf_putc(pd_buf *b, char c) { pd_buf_append(b, &c, 1); }

void pd_buf_vprintf(pd_buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  buf_reserve(b, (size_t)n);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void pd_buf_printf(pd_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pd_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *pd_buf_take(pd_buf *b) {
  char *d = b->data ? b->data : pd_xstrdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  return d;
}

void pd_buf_free(pd_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

const char *pd_read_error(int err) {
  if (err == EFBIG) return "too large: over the 16 MiB limit, refused";
  if (err == EINVAL) return "not a regular file (a FIFO, socket or device), refused";
  return strerror(err);
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

uint64_t pd_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

uint64_t pd_hash_str(const char *s) {
  uint64_t h = PD_HASH_SEED;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

bool pd_str_starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool pd_str_ends(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool pd_parse_long(const char *s, long *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

bool pd_parse_double(const char *s, double *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end) return false;
  *out = v;
  return true;
}
