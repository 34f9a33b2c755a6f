#include "script/fname.h"

#include <ctype.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* "8xgpu" -> 8, "gpu" */
static bool is_count_device(const char *t, long *n, const char **dev) {
  const char *p = t;
  if (!isdigit((unsigned char)*p)) return false;
  long v = 0;
  while (isdigit((unsigned char)*p)) {
    v = v * 10 + (*p - '0');
    if (v > 1000000) return false;
    p++;
  }
  if (*p != 'x' || !isalpha((unsigned char)p[1])) return false;
  for (const char *q = p + 1; *q; q++)
    if (!isalnum((unsigned char)*q)) return false;
  *n = v;
  *dev = p + 1;
  return true;
}

/* "4B", "0.6B", "2b", "744B", "122M" */
static bool is_size(const char *t) {
  const char *p = t;
  if (!isdigit((unsigned char)*p)) return false;
  while (isdigit((unsigned char)*p) || *p == '.') p++;
  return (*p == 'B' || *p == 'b' || *p == 'M' || *p == 'm') && p[1] == '\0';
}

/* "A3B", "A10B": active parameters of a MoE */
static bool is_active(const char *t) {
  if (t[0] != 'A' && t[0] != 'a') return false;
  const char *p = t + 1;
  if (!isdigit((unsigned char)*p)) return false;
  while (isdigit((unsigned char)*p) || *p == '.') p++;
  return (*p == 'B' || *p == 'b') && p[1] == '\0';
}

static char *join(char **tok, size_t a, size_t b) {
  if (a >= b) return NULL;
  pd_buf out = {0};
  for (size_t i = a; i < b; i++) {
    if (i > a) pd_buf_putc(&out, '-');
    pd_buf_puts(&out, tok[i]);
  }
  return pd_buf_take(&out);
}

static bool has_token(char **tok, size_t a, size_t b, const char *w) {
  for (size_t i = a; i < b; i++)
    if (!strcasecmp(tok[i], w)) return true;
  return false;
}

fn_info fn_parse(const char *path) {
  fn_info fi = {.gpus = -1};
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char *name = pd_xstrdup(base);
  size_t L = strlen(name);
  if (L > 3 && !strcmp(name + L - 3, ".sh")) name[L - 3] = '\0';
  for (char *p = name; *p; p++)
    if (*p == '_') *p = '-';
  char *s = name;
  if (!strncmp(s, "run-", 4)) s += 4;

  char **tok = NULL;
  size_t n = 0, cap = 0;
  for (char *save = NULL, *t = strtok_r(s, "-", &save); t; t = strtok_r(NULL, "-", &save))
    *PD_PUSH(tok, n, cap) = t;

  size_t dev_at = n, size_at = n;
  for (size_t i = 0; i < n; i++) {
    const char *dev;
    long cnt;
    if (dev_at == n && is_count_device(tok[i], &cnt, &dev)) {
      dev_at = i;
      fi.gpus = cnt;
      fi.device = pd_xstrdup(dev);
    }
  }
  for (size_t i = 1; i < dev_at; i++) /* the model name takes at least one token */
    if (is_size(tok[i])) {
      size_at = i;
      break;
    }

  size_t model_end = size_at < n ? size_at : dev_at;
  fi.model = join(tok, 0, model_end);
  size_t rest = model_end;
  if (size_at < n) {
    size_t size_end = size_at + 1;
    if (size_end < dev_at && is_active(tok[size_end])) size_end++;
    fi.size = join(tok, size_at, size_end);
    rest = size_end;
  }
  /* Suffixes: whatever is neither model, size nor NxDEV. */
  pd_buf suf = {0};
  for (size_t i = rest; i < n; i++) {
    if (i == dev_at) continue;
    if (suf.len) pd_buf_putc(&suf, '-');
    pd_buf_puts(&suf, tok[i]);
  }
  fi.suffixes = suf.len ? pd_buf_take(&suf) : NULL;
  pd_buf_free(&suf);

  if (has_token(tok, rest, n, "hybrid")) fi.mode_hint = "hybrid";
  else if (has_token(tok, rest, n, "async")) fi.mode_hint = "fully-async";
  else if (has_token(tok, rest, n, "colocate") || has_token(tok, rest, n, "sync"))
    fi.mode_hint = has_token(tok, rest, n, "colocate") ? "colocate" : NULL;
  if (has_token(tok, 0, n, "video")) fi.modality_hint = "video";
  else if (has_token(tok, 0, n, "image") || has_token(tok, 0, n, "vl") ||
           has_token(tok, 0, n, "omni") || has_token(tok, 0, n, "mm") ||
           has_token(tok, 0, n, "ocr") || has_token(tok, 0, n, "openr1mm"))
    fi.modality_hint = "mm";

  free(tok);
  free(name);
  return fi;
}

void fn_info_free(fn_info *fi) {
  free(fi->model);
  free(fi->size);
  free(fi->device);
  free(fi->suffixes);
  memset(fi, 0, sizeof *fi);
  fi->gpus = -1;
}
