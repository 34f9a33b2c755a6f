/* alloc: allocation that aborts on exhaustion, growable arrays and a growable byte buffer.
 *
 * Every module allocates through pd_xmalloc & co so that call sites stay free of out-of-memory
 * branches (the tree-sitter runtime does the same). Memory returned here is released with
 * free(). */
#ifndef PD_BASE_ALLOC_H
#define PD_BASE_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *pd_xmalloc(size_t n);
void *pd_xcalloc(size_t n, size_t size);
void *pd_xrealloc(void *p, size_t n);
char *pd_xstrdup(const char *s);
char *pd_xstrndup(const char *s, size_t n);
/* printf into a fresh string; caller frees. */
char *pd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *items (each of size elem) so that index `need - 1` is valid; *cap is updated. */
void pd_grow(void **items, size_t *cap, size_t need, size_t elem);
/* Appends one element to the array `arr` of n elements and capacity cap; yields its address.
 * The capacity test is inline: a call per push showed in reading traces (millions of rows). */
#define PD_PUSH(arr, n, cap) \
  ((n) + 1 > (cap) ? pd_grow((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))) : (void)0, &(arr)[(n)++])

/* A growable, always NUL-terminated byte buffer. Zero-initialise, then append; free with
 * pd_buf_free or take ownership of .data with pd_buf_take. */
typedef struct {
  char *data;
  size_t len, cap;
} pd_buf;

void pd_buf_append(pd_buf *b, const char *s, size_t n);
void pd_buf_puts(pd_buf *b, const char *s);
void pd_buf_putc(pd_buf *b, char c);
void pd_buf_printf(pd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pd_buf_vprintf(pd_buf *b, const char *fmt, va_list ap);
/* Returns the data (never NULL) and leaves the buffer empty; caller frees. */
char *pd_buf_take(pd_buf *b);
void pd_buf_free(pd_buf *b);

#endif
