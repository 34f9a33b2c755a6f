/* util: allocation that aborts on exhaustion, a growable byte buffer, whole-file reads.
 *
 * Every other module allocates through pd_xmalloc & co so that call sites stay free of
 * out-of-memory branches (the tree-sitter runtime does the same). Memory returned by these
 * functions is released with free(). */
#ifndef PD_UTIL_H
#define PD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *pd_xmalloc(size_t n);
void *pd_xcalloc(size_t n, size_t size);
void *pd_xrealloc(void *p, size_t n);
char *pd_xstrdup(const char *s);
char *pd_xstrndup(const char *s, size_t n);
/* printf into a fresh string; caller frees. */
char *pd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *items (each of size elem) so that index `need - 1` is valid; *cap is updated. */
void pd_grow(void **items, size_t *cap, size_t need, size_t elem);
#define PD_PUSH(arr, n, cap) \
  (pd_grow((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))), &(arr)[(n)++])

/* A growable, always NUL-terminated byte buffer. Zero-initialise, then append; free with
 * pd_buf_free or take ownership of .data. */
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

/* Reads a whole regular file. Returns a NUL-terminated copy (caller frees) and its length,
 * or NULL with errno set. Refuses files larger than max_bytes (errno = EFBIG) and anything that
 * is not a regular file before opening it (errno = EINVAL: opening a FIFO would block). */
char *pd_read_file(const char *path, size_t max_bytes, size_t *len);
/* The message for a pd_read_file failure (errno value err). Static string. */
const char *pd_read_error(int err);

/* Lexically normalised path: `a/./b/../c` -> `a/c`, no trailing slash, "." for empty. It does
 * not touch the file system (symbolic links are not resolved). Caller frees. */
char *pd_path_normalize(const char *path);
/* Directory part of a path ("." when there is none, "/" for the root). Caller frees. */
char *pd_path_dirname(const char *path);

/* FNV-1a, for the hash tables: pd_hash continues h over p[0..n); PD_HASH_SEED starts one. */
#define PD_HASH_SEED 1469598103934665603ull
uint64_t pd_hash(uint64_t h, const void *p, size_t n);
uint64_t pd_hash_str(const char *s);

bool pd_str_starts(const char *s, const char *prefix);
bool pd_str_ends(const char *s, const char *suffix);

/* Parses a whole decimal integer (optionally signed); false if s is not exactly one. */
bool pd_parse_long(const char *s, long *out);
/* Parses a whole floating number (1e-6, 0.8, 16); false if s is not exactly one. */
bool pd_parse_double(const char *s, double *out);

#endif
