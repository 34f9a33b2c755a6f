#include "base/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void alloc_oom(size_t n) {
  fprintf(stderr, "perf-doctor: out of memory (%zu bytes)\n", n);
  abort();
}

void *pd_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) alloc_oom(n);
  return p;
}

void *pd_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) alloc_oom(n * size);
  return p;
}

void *pd_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) alloc_oom(n);
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
  /* four-fold while small (each growth copies the array: the per-event arrays of a small trace
   * spent more on copies than on their records), doubling once past 64 KiB */
  while (c < need) c *= c * elem < ((size_t)64 << 10) ? 4 : 2;
  if (c > SIZE_MAX / elem) alloc_oom(SIZE_MAX);
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
