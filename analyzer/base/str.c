#include "base/str.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool pd_str_starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool pd_str_ends(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool pd_mem_has(const char *s, size_t n, const char *needle) {
  size_t k = strlen(needle);
  if (k == 0) return true;
  for (const char *p = s; k <= n - (size_t)(p - s);) {
    const char *q = memchr(p, needle[0], n - (size_t)(p - s) - k + 1);
    if (!q) return false;
    if (!memcmp(q, needle, k)) return true;
    p = q + 1;
  }
  return false;
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
