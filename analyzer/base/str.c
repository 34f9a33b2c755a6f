#include "base/str.h"

#include <errno.h>
#include <stdint.h>
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

size_t pd_edit_distance(const char *a, const char *b, size_t cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return cap + 1;
  if ((la > lb ? la - lb : lb - la) > cap) return cap + 1;
  size_t d[66][66];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t row_min = SIZE_MAX;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
      if (v < row_min) row_min = v;
    }
    if (row_min > cap) return cap + 1; /* no later row is nearer */
  }
  return d[la][lb] > cap ? cap + 1 : d[la][lb];
}

/* Bytes in the character starting at s[0..n), 0 when it is not well-formed (RFC 3629 table). */
static size_t utf8_char(const unsigned char *s, size_t n) {
  if (s[0] < 0x80) return 1;
  size_t k = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
             : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
  if (!k || k > n) return 0;
  unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range narrows for E0, ED, F0, F4 */
  if (s[0] == 0xE0) lo = 0xA0;
  if (s[0] == 0xED) hi = 0x9F;
  if (s[0] == 0xF0) lo = 0x90;
  if (s[0] == 0xF4) hi = 0x8F;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < k; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return k;
}

size_t pd_utf8_bad(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    size_t k = utf8_char(u + i, n - i);
    if (!k) return i;
    i += k;
  }
  return n;
}
