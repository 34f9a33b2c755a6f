#include "trace/event.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define EV_MAX_DEPTH 512

/* The parser passes the position as a value and returns the next one (NULL on failure, with
 * the offending byte and the reason in *er), so that it stays in a register on the hot path. */
typedef struct {
  const char *at, *why;
} ev_err;

static const char *ev_fail(ev_err *er, const char *at, const char *why) {
  er->at = at;
  er->why = why;
  return NULL;
}

/* Whitespace runs of indentation, 16 bytes at a time. */
static const char *ws_run(const char *p, const char *e) {
#ifdef __SSE2__
  while (e - p >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    unsigned other = ~(unsigned)_mm_movemask_epi8(w) & 0xFFFFu;
    if (other) return p + __builtin_ctz(other);
    p += 16;
  }
#endif
  while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

/* Whitespace between tokens: usually none or the one space after ':' or ','. */
static inline __attribute__((always_inline)) const char *ws(const char *p, const char *e) {
  if ((unsigned char)*p > ' ') return p; /* the zero padding is not > ' ' */
  if (*p == ' ' && (unsigned char)p[1] > ' ') return p + 1;
  return ws_run(p, e);
}

static int ev_hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

#ifdef __SSE2__
/* Bit i set when byte i of the 16 at p is '"', '\\' or a control character. */
static inline __attribute__((always_inline)) unsigned str_stops16(const char *p) {
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
  __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
  __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash));
  m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl)); /* unsigned v <= 0x1f */
  return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* The first byte at or after p that ends a plain run inside a string: '"', '\\' or a control
 * character; `end` when none. Kernel and op names are long, so 16 bytes are tested at once (32
 * per step measured slower: most strings are keys that end in the first 16). */
static inline __attribute__((always_inline)) const char *str_run(const char *p, const char *end) {
#ifdef __SSE2__
  (void)end; /* the zero padding past the window is a stop byte: the run ends at end at the latest */
  for (;;) {
    unsigned mask = str_stops16(p);
    if (mask) return p + __builtin_ctz(mask);
    p += 16;
  }
#else
  while (p < end) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\' || c < 0x20) return p;
    p++;
  }
  return end;
#endif
}

/* The rest of a string from p (after its opening quote) when it holds an escape or a control
 * character: the position of its closing quote. */
static const char *str_slow(const char *p, const char *e, ev_err *er) {
  for (;;) {
    p = str_run(p, e);
    if (p >= e) break;
    unsigned char c = (unsigned char)*p;
    if (c == '"') return p;
    if (c < 0x20) return ev_fail(er, p, "control character in a string");
    if (++p >= e) break; /* after a backslash */
    switch (*p) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
      p++;
      break;
    case 'u':
      for (int i = 1; i <= 4; i++)
        if (p + i >= e || ev_hexval(p[i]) < 0) return ev_fail(er, p, "invalid \\u escape in a string");
      p += 5;
      break;
    default:
      return ev_fail(er, p, "invalid escape in a string");
    }
  }
  return ev_fail(er, e, "unterminated string");
}

/* At an opening quote: the position after the closing one, the contents in *out (may be NULL). */
static inline __attribute__((always_inline)) const char *string(const char *p, const char *e, tr_slice *out, ev_err *er) {
  const char *b = p + 1, *q = str_run(b, e);
  bool esc = false;
  if (q >= e || *q != '"') {
    if (!(q = str_slow(q, e, er))) return NULL;
    esc = true; /* or a control character, which failed */
  }
  if (out) *out = (tr_slice){b, (size_t)(q - b), esc, false};
  return q + 1;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* How many of the 8 bytes at p are digits before the first one that is not (SWAR: a byte
 * is a digit when, xor '0', its high nibble is 0 and adding 6 does not carry into bit 4; a carry
 * out of a non-digit byte only disturbs the bytes after it). */
static inline int digit_run8(const char *p) {
  uint64_t x;
  memcpy(&x, p, 8);
  uint64_t a = x ^ 0x3030303030303030ull;
  uint64_t nd = (a & 0xF0F0F0F0F0F0F0F0ull) | ((a + 0x0606060606060606ull) & 0x1010101010101010ull);
  return nd ? __builtin_ctzll(nd) >> 3 : 8;
}

/* The value of the k (1..8) digits at p: shifted so that the missing ones are leading zeros,
 * then pairs, quads and octets are combined by three multiplications. */
static inline uint64_t digits_value(const char *p, int k) {
  uint64_t x;
  memcpy(&x, p, 8);
  x = (x ^ 0x3030303030303030ull) << (8 * (8 - k));
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  return (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
}

/* The end of the digits at p: 8 at a time, the zero padding past the window ending the run. */
static inline const char *skip_digits(const char *p) {
  for (;;) {
    int k = digit_run8(p);
    p += k;
    if (k < 8) return p;
  }
}

/* The bytes that continue a number after its integer digits. */
static const bool num_cont[256] = {['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
                                   ['7'] = 1, ['8'] = 1, ['9'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1};

/* At a digit: the end of a non-negative integer written without sign, fraction or exponent and
 * followed by a byte that cannot continue a number; NULL otherwise (a leading zero before a
 * digit, a real, the end of the window), which the general grammar then reads. */
static inline const char *plain_uint(const char *p, const char *e) {
  p = *p == '0' ? p + 1 : skip_digits(p);
  if (p >= e || num_cont[(unsigned char)*p]) return NULL; /* a byte that continues a number */
  return p;
}

/* At the first byte of a number: the position after it. */
static const char *number(const char *p, const char *e, bool *real, ev_err *er) {
  *real = false;
  if (p < e && *p == '-') p++;
  if (p >= e || !is_digit(*p)) return ev_fail(er, p, "invalid number");
  if (*p == '0') p++;
  else p = skip_digits(p);
  if (p < e && *p == '.') {
    *real = true;
    p++;
    if (p >= e || !is_digit(*p)) return ev_fail(er, p, "invalid number");
    p = skip_digits(p);
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    *real = true;
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || !is_digit(*p)) return ev_fail(er, p, "invalid number");
    while (p < e && is_digit(*p)) p++;
  }
  return p;
}

static const char *literal(const char *p, const char *e, const char *lit, size_t n, ev_err *er) {
  if ((size_t)(e - p) < n || memcmp(p, lit, n) != 0) return ev_fail(er, p, "invalid token");
  return p + n;
}

static const char *value(const char *p, const char *e, int depth, ev_err *er);

/* At '{' or '[': the position after the matching close. */
static const char *container(const char *p, const char *e, int depth, ev_err *er) {
  if (depth >= EV_MAX_DEPTH) return ev_fail(er, p, "JSON nested deeper than 512 levels");
  char close = *p == '{' ? '}' : ']';
  bool obj = close == '}';
  p = ws(p + 1, e);
  if (p < e && *p == close) return p + 1;
  for (;;) {
    if (obj) {
      if (p >= e || *p != '"') return ev_fail(er, p, "expected a key");
      if (!(p = string(p, e, NULL, er))) return NULL;
      p = ws(p, e);
      if (p >= e || *p != ':') return ev_fail(er, p, "expected ':'");
      p = ws(p + 1, e);
    }
    if (!(p = value(p, e, depth + 1, er))) return NULL;
    p = ws(p, e);
    if (p < e && *p == ',') {
      p = ws(p + 1, e);
      continue;
    }
    if (p < e && *p == close) return p + 1;
    if (p < e && (*p == '}' || *p == ']')) return ev_fail(er, p, *p == '}' ? "mismatched '}'" : "mismatched ']'");
    return ev_fail(er, p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

/* The arrays of record_shapes ("Input Dims": [[4096, 4096], []], "Input type": ["c10::Half",
 * "Scalar"]) hold only arrays, non-negative integers and plain strings: one loop without
 * recursion checks and skips them. NULL when the array holds anything else, is invalid or runs
 * past the window: the general path then reads it (and says what is wrong). */
static const char *plain_array(const char *p, const char *e, int depth) {
  int open = 0;
  bool elem = false; /* an element was just read: ',' or ']' may follow */
  for (;;) {
    while (*p == ' ') p++; /* the zero padding ends the run */
    if (p >= e) return NULL;
    char c = *p;
    if (elem) {
      if (c == ',') elem = false, p++;
      else if (c == ']') {
        p++;
        if (--open == 0) return p;
      } else return NULL;
    } else if (c == '[') {
      if (depth + open >= EV_MAX_DEPTH) return NULL;
      open++, p++;
      while (*p == ' ') p++;
      if (*p == ']') p++, open--, elem = true; /* [] (a ']' is never padding) */
      if (open == 0) return p;
    } else if (c == '"') {
      const char *q = str_run(p + 1, e);
      if (q >= e || *q != '"') return NULL;
      p = q + 1, elem = true;
    } else if (is_digit(c)) {
      if (!(p = plain_uint(p, e))) return NULL;
      elem = true;
    } else {
      return NULL;
    }
  }
}

/* An array: by the one-loop skipper, else by the general grammar. */
static const char *array(const char *p, const char *e, int depth, ev_err *er) {
  const char *q = plain_array(p, e, depth);
  return q ? q : container(p, e, depth, er);
}

/* Any value: the position after it. */
static const char *value(const char *p, const char *e, int depth, ev_err *er) {
  if (p >= e) return ev_fail(er, p, "unexpected end of the event");
  const char *q;
  if (is_digit(*p) && (q = plain_uint(p, e))) return q; /* the commonest skipped value */
  bool real;
  switch (*p) {
  case '[':
    return array(p, e, depth, er);
  case '{':
    return container(p, e, depth, er);
  case '"':
    return string(p, e, NULL, er);
  case 't':
    return literal(p, e, "true", 4, er);
  case 'f':
    return literal(p, e, "false", 5, er);
  case 'n':
    return literal(p, e, "null", 4, er);
  default:
    return number(p, e, &real, er);
  }
}

/* value * 10^scale of a validated number literal as an int64, rounding half away from zero
 * (or truncating); false on overflow. Decimal arithmetic only: no strtod, so no locale and no
 * binary rounding (Kineto's "4458676522690.655" µs is exactly 4458676522690655 ns). */
static bool dec_scaled(const tr_slice *n, int scale, bool round_half, int64_t *out) {
  const char *p = n->p, *e = n->p + n->n;
  bool neg = false;
  if (p < e && *p == '-') {
    neg = true;
    p++;
  }
  uint64_t mant = 0;
  int exp10 = 0, digits = 0;
  bool frac = false;
  for (; p < e; p++) {
    if (*p == '.') {
      frac = true;
      continue;
    }
    if (*p == 'e' || *p == 'E') break;
    int d = *p - '0';
    if (digits < 19) {
      if (mant || d) digits++;
      mant = mant * 10 + (uint64_t)d;
      if (frac) exp10--;
    } else if (!frac) {
      exp10++; /* digits beyond 19 significant ones: keep the magnitude */
    }
  }
  if (p < e) { /* exponent */
    p++;
    bool eneg = false;
    if (*p == '+' || *p == '-') eneg = *p++ == '-';
    long x = 0;
    for (; p < e && x < 100000; p++) x = x * 10 + (*p - '0');
    exp10 += (int)(eneg ? -x : x);
  }
  exp10 += scale;
  if (mant == 0) {
    *out = 0;
    return true;
  }
  while (exp10 > 0) {
    if (mant > UINT64_MAX / 10) return false;
    mant *= 10;
    exp10--;
  }
  if (exp10 < 0) {
    if (exp10 < -19) {
      mant = 0;
    } else {
      uint64_t div = 1;
      for (int i = 0; i < -exp10; i++) div *= 10;
      uint64_t q = mant / div, r = mant % div;
      if (round_half && r >= div - r) q++; /* r * 2 >= div, which could wrap for 19 digits */
      mant = q;
    }
  }
  if (mant > (uint64_t)INT64_MAX) return false;
  *out = neg ? -(int64_t)mant : (int64_t)mant;
  return true;
}

/* Integer value of a number literal; reals are truncated, overflow saturates. */
static int64_t as_int(const tr_slice *n) {
  int64_t v;
  if (dec_scaled(n, 0, false, &v)) return v;
  return n->p[0] == '-' ? INT64_MIN : INT64_MAX;
}

/* µs literal -> ns. */
static bool as_ns(const tr_slice *n, int64_t *out) { return dec_scaled(n, 3, true, out); }

/* The literal as the nearest double (strtod rounds correctly), whatever LC_NUMERIC says. */
static double as_double(const tr_slice *n) {
  /* Fast path, exact by IEEE: an integer mantissa below 2^53 divided by an exact power of ten
   * is rounded once, correctly. Covers Kineto's relative timestamps (4458676522690.655). */
  static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *p = n->p, *e = n->p + n->n;
  bool neg = p < e && *p == '-';
  if (neg) p++;
  uint64_t mant = 0;
  int frac = -1, digits = 0;
  for (; p < e && digits <= 16; p++) {
    if (*p == '.') {
      frac = 0;
      continue;
    }
    if (*p < '0' || *p > '9') break;
    mant = mant * 10 + (uint64_t)(*p - '0');
    digits++;
    if (frac >= 0) frac++;
  }
  if (p == e && mant < ((uint64_t)1 << 53)) {
    double d = (double)mant / pow10[frac < 0 ? 0 : frac];
    return neg ? -d : d;
  }
  char buf[96];
  size_t k = n->n < sizeof buf - 1 ? n->n : sizeof buf - 1;
  memcpy(buf, n->p, k);
  buf[k] = '\0';
  const char *dp = localeconv()->decimal_point;
  if (dp && dp[0] && dp[0] != '.' && !dp[1]) {
    char *dot = strchr(buf, '.');
    if (dot) *dot = dp[0];
  }
  return strtod(buf, NULL);
}

/* n bytes equal, n known at compile time (2..19): two overlapping loads of 2, 4 or 8 bytes
 * each, where memcmp would be a call. */
static inline __attribute__((always_inline)) bool same_n(const char *a, const char *b, size_t n) {
  if (n >= 8) {
    uint64_t x, y, u, v;
    memcpy(&x, a, 8), memcpy(&y, b, 8), memcpy(&u, a + n - 8, 8), memcpy(&v, b + n - 8, 8);
    if (n <= 16) return x == y && u == v;
    return x == y && u == v && same_n(a + 8, b + 8, n - 16 < 8 ? 8 : n - 16);
  }
  if (n >= 4) {
    uint32_t x, y, u, v;
    memcpy(&x, a, 4), memcpy(&y, b, 4), memcpy(&u, a + n - 4, 4), memcpy(&v, b + n - 4, 4);
    return x == y && u == v;
  }
  uint16_t x, y;
  memcpy(&x, a, 2), memcpy(&y, b, 2);
  return x == y && a[n - 1] == b[n - 1];
}

/* A field that wants a string: a string slice; other values are validated and ignored. */
static inline const char *want_str(const char *p, const char *e, tr_slice *out, int depth, ev_err *er) {
  if (*p == '"') return string(p, e, out, er);
  return value(p, e, depth, er);
}

static const uint64_t pow10_u[19] = {1,          10,          100,          1000,          10000,
                                   100000,     1000000,     10000000,     100000000,     1000000000,
                                   10000000000, 100000000000, 1000000000000, 10000000000000,
                                   100000000000000, 1000000000000000, 10000000000000000,
                                   100000000000000000, 1000000000000000000};

/* A run of digits at p, at most 18 in all with the *digits already read, 8 at a time (the zero
 * padding ends a run at the window's end): its end, or NULL when the run is longer. */
static inline const char *digits_fast(const char *p, uint64_t *m, int *digits) {
  for (;;) {
    int k = digit_run8(p);
    if (k) *m = *m * pow10_u[k] + digits_value(p, k);
    p += k;
    *digits += k;
    if (*digits > 18) return NULL;
    if (k < 8) return p;
  }
}

/* The common number in one pass: [-]digits[.digits], at most 18 digits in all, no exponent,
 * followed by a byte that cannot continue a number: its end, *frac the count of decimals.
 * NULL otherwise (the general path then handles it). */
static inline const char *num_fast(const char *p, uint64_t *mant, int *frac, bool *neg) {
  *neg = *p == '-';
  if (*neg) p++;
  if (!is_digit(*p) || (*p == '0' && is_digit(p[1]))) return NULL;
  uint64_t m = 0;
  int digits = 0, f = 0;
  if (!(p = digits_fast(p, &m, &digits))) return NULL;
  if (*p == '.') {
    p++;
    if (!is_digit(*p)) return NULL;
    int before = digits;
    if (!(p = digits_fast(p, &m, &digits))) return NULL;
    f = digits - before;
  }
  if (*p == 'e' || *p == 'E') return NULL;
  *mant = m;
  *frac = f;
  return p;
}

/* ts / dur in µs from the fast form: exact ns (rounded half away from zero, as dec_scaled)
 * and the nearest double (one correctly rounded division: mant < 2^53 and 10^frac exact). */
static inline void num_fast_ns(uint64_t mant, int frac, bool neg, tr_num *out, double *us_out) {
  uint64_t ns;
  if (frac <= 3) ns = mant * pow10_u[3 - frac];
  else {
    uint64_t div = pow10_u[frac - 3];
    ns = mant / div + (mant % div * 2 >= div);
  }
  out->v = neg ? -(int64_t)ns : (int64_t)ns;
  out->present = true;
  out->real = frac > 0;
  if (frac > 0) {
    double us = (double)mant / (double)pow10_u[frac];
    *us_out = neg ? -us : us;
  } else {
    *us_out = (double)(out->v / 1000);
  }
}

/* A number the general way (exponents, long mantissas, the end of the window). */
static const char *want_num_slow(const char *p, const char *e, tr_num *out, double *us, ev_err *er) {
  bool real;
  const char *q = number(p, e, &real, er);
  if (!q) return NULL;
  tr_slice n = {p, (size_t)(q - p), false, true};
  out->real = real;
  if (us) {
    out->present = as_ns(&n, &out->v);
    *us = real ? as_double(&n) : (double)(out->v / 1000);
  } else {
    out->v = as_int(&n);
    out->present = true;
  }
  return q;
}

/* An integer written as a string ("42"), as some args are. */
static const char *want_num_str(const char *p, const char *e, tr_num *out, ev_err *er) {
  tr_slice t;
  if (!(p = string(p, e, &t, er))) return NULL;
  char buf[32];
  if (!t.escaped && t.n > 0 && t.n < sizeof buf) {
    memcpy(buf, t.p, t.n);
    buf[t.n] = '\0';
    char *end;
    long long v = strtoll(buf, &end, 10);
    if (*end == '\0') {
      out->v = v;
      out->present = true;
    }
  }
  return p;
}

/* A field that wants a number: a time (µs in, ns out, and *us the double) when us is not NULL.
 * Strings holding an integer count for args. */
static inline __attribute__((always_inline)) const char *want_num(const char *p, const char *e, tr_num *out, double *us,
                                                                  int depth, ev_err *er) {
  uint64_t mant;
  int frac;
  bool neg;
  if (*p == '-' || is_digit(*p)) {
    const char *q = num_fast(p, &mant, &frac, &neg);
    /* the ns value must fit, as dec_scaled requires (17 digits of µs did not, and came out negative) */
    static const uint64_t ns_max[4] = {INT64_MAX / 1000, INT64_MAX / 100, INT64_MAX / 10, INT64_MAX}; /* by frac */
    if (!q || (us && frac <= 3 && mant > ns_max[frac])) return want_num_slow(p, e, out, us, er);
    if (us) {
      num_fast_ns(mant, frac, neg, out, us);
      if (frac > 0 && mant >= ((uint64_t)1 << 53)) /* one division would round twice */
        *us = as_double(&(tr_slice){p, (size_t)(q - p), false, true});
    } else {
      uint64_t iv = frac ? mant / pow10_u[frac] : mant; /* truncated, as as_int; no division for integers */
      out->v = neg ? -(int64_t)iv : (int64_t)iv;
      out->present = true;
      out->real = frac > 0;
    }
    return q;
  }
  if (!us && *p == '"') return want_num_str(p, e, out, er);
  return value(p, e, depth, er);
}

/* A field kept as text whether a string or a number (pid, tid, collective identifiers). */
static inline const char *want_text(const char *p, const char *e, tr_slice *out, int depth, ev_err *er) {
  const char *q;
  if (is_digit(*p) && (q = plain_uint(p, e))) { /* pid and tid */
    *out = (tr_slice){p, (size_t)(q - p), false, true};
    return q;
  }
  if (*p == '-' || is_digit(*p)) {
    bool real;
    if ((q = number(p, e, &real, er))) *out = (tr_slice){p, (size_t)(q - p), false, true};
    return q;
  }
  return want_str(p, e, out, depth, er);
}

/* Any value, kept as its raw JSON text. */
static const char *want_raw(const char *p, const char *e, tr_slice *out, int depth, ev_err *er) {
  const char *q = *p == '[' ? array(p, e, depth, er) : value(p, e, depth, er);
  if (q) *out = (tr_slice){p, (size_t)(q - p), false, false};
  return q;
}

/* The key as plain bytes in *kp, *kn: itself, or decoded into buf (never needed in practice,
 * but it keeps the comparisons right). False when an escaped key is too long to be one of ours.
 * Scalars, not a slice pointer: choosing between two slices through a pointer kept both in
 * memory on the hot path. */
#define KEY_BUF 32
static inline __attribute__((always_inline)) bool plain_key(tr_slice key, char buf[KEY_BUF], const char **kp,
                                                            size_t *kn) {
  *kp = key.p;
  *kn = key.n;
  if (!key.escaped) return true;
  if (key.n >= KEY_BUF) return false;
  *kn = tr_slice_decode(&key, buf);
  *kp = buf;
  return true;
}

/* The key (kp, kn: plain bytes, see plain_key) is the string literal lit; its length is known at
 * compile time. */
#define IS(lit) (kn == sizeof(lit) - 1 && same_n(kp, lit, sizeof(lit) - 1))

/* One args key's value: the fields the analyses read. Dispatched on the key's length first: a
 * CPU op with record_shapes carries a dozen keys, and most events none of ours. */
static inline __attribute__((always_inline)) const char *arg_field(const char *p, const char *e, tr_slice key,
                                                                   tr_event *ev, int *id, ev_err *er) {
  (void)id; /* args keys come in no fixed order: no hints */
  char buf[KEY_BUF];
  const char *kp;
  size_t kn;
  if (!plain_key(key, buf, &kp, &kn)) return value(p, e, 2, er);
  /* the key picks a target; one call per kind of value keeps the number parser inlined once */
  tr_num *num = NULL;
  tr_slice *text = NULL, *raw = NULL;
  switch (kn) {
  case 3:
    if (IS("Seq")) num = &ev->seq;
    break;
  case 5:
    if (IS("flops")) num = &ev->flops;
    else if (IS("dtype")) text = &ev->dtype;
    break;
  case 6:
    if (IS("stream")) num = &ev->stream;
    else if (IS("device")) num = &ev->device;
    break;
  case 8:
    if (IS("Comms Id")) text = &ev->comms_id;
    break;
  case 9:
    if (IS("Device Id")) num = &ev->dev_id;
    break;
  case 10:
    if (IS("Input Dims")) raw = &ev->dims;
    else if (IS("Input type")) raw = &ev->types;
    else if (IS("Group size")) num = &ev->group_size;
    break;
  case 11:
    if (IS("correlation")) num = &ev->correlation;
    else if (IS("Device Type")) num = &ev->dev_type;
    break;
  case 13:
    if (IS("In msg nelems")) num = &ev->nelems;
    break;
  case 14:
    if (IS("Total Reserved")) num = &ev->mem_reserved;
    else if (IS("Out msg nelems")) num = &ev->out_nelems;
    break;
  case 15:
    if (IS("Concrete Inputs")) raw = &ev->concrete;
    else if (IS("Total Allocated")) num = &ev->mem_alloc;
    else if (IS("Collective name")) text = &ev->coll_name;
    break;
  case 18:
    if (IS("Process Group Name")) text = &ev->pg_name;
    break;
  case 19:
    if (IS("Process Group Ranks")) text = &ev->pg_ranks;
    break;
  }
  if (num) return want_num(p, e, num, NULL, 2, er);
  if (text) return want_text(p, e, text, 2, er);
  if (raw) return want_raw(p, e, raw, 2, er);
  const char *q;
  if (is_digit(*p) && (q = plain_uint(p, e))) return q; /* most skipped values, without a call */
  if (*p == '[') return array(p, e, 2, er);
  return value(p, e, 2, er);
}

/* The first 4 bytes at p (4 must be readable). */
static inline uint32_t load4(const char *p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

/* Little-endian byte patterns of Kineto's spacing: `": ` ending a key and `, "` before the next. */
#define QUOTE_COLON_SP 0x00203A22u /* '"' ':' ' ' */
#define COMMA_SP_QUOTE 0x0022202Cu /* ',' ' ' '"' */

/* The top-level keys the analyses read, in the order Kineto writes them (ph, cat, name, pid,
 * tid, ts, dur, args): each is first tried as the literal that follows the previous one. */
enum { TK_PH, TK_CAT, TK_NAME, TK_PID, TK_TID, TK_TS, TK_DUR, TK_ARGS, TK_OTHER };

/* b (8 readable bytes) starts with the n-byte literal s (n < 8) and a value byte follows. */
static inline __attribute__((always_inline)) bool lit_at(const char *b, const char *s, size_t n) {
  uint64_t x, y = 0;
  memcpy(&x, b, 8);
  memcpy(&y, s, n);
  return (x & ((1ull << (8 * n)) - 1)) == y && (unsigned char)b[n] > ' ';
}

/* The length of `key": ` when the key at b (after its quote; 8 bytes readable) is the top-level
 * key id followed by Kineto's spacing, else 0. */
static inline __attribute__((always_inline)) size_t top_hint(const char *b, int id) {
#define LIT(s) (lit_at(b, s, sizeof(s) - 1) ? sizeof(s) - 1 : 0)
  switch (id) {
  case TK_PH: return LIT("ph\": ");
  case TK_CAT: return LIT("cat\": ");
  case TK_NAME: return LIT("name\": ");
  case TK_PID: return LIT("pid\": ");
  case TK_TID: return LIT("tid\": ");
  case TK_TS: return LIT("ts\": ");
  case TK_DUR: return LIT("dur\": ");
  case TK_ARGS: return LIT("args\": ");
  default: return 0;
  }
#undef LIT
}

static inline __attribute__((always_inline)) const char *top_value(const char *p, const char *e, int id, tr_event *ev,
                                                                   ev_err *er);

typedef const char *(*field_fn)(const char *p, const char *e, tr_slice key, tr_event *ev, int *id, ev_err *er);

/* The members of an object, each key's value handed to field; p is just after its '{'.
 * Inlined at its two callers, so that field is a direct call on the parser's hot path.
 * Kineto writes `"key": value, "key"`: a key's closing quote, ':' and ' ' before the value's
 * first byte are tested as one word, and so are `, "` before the next key, which is then
 * scanned at once; any other spacing goes through ws() and is checked byte by byte. */
static inline __attribute__((always_inline)) const char *members(const char *p, const char *e, tr_event *ev,
                                                                 field_fn field, bool top, ev_err *er) {
  p = ws(p, e);
  if (p < e && *p == '}') return p + 1;
  if (p >= e || *p != '"') return ev_fail(er, p, p >= e ? "unexpected end of the event" : "expected a key");
  const char *b = p + 1; /* the key's first byte */
  int id = -1;           /* the last key's (top level) */
  for (;;) {
    size_t n;
    if (top && id + 1 < TK_OTHER && (n = top_hint(b, id + 1))) {
      if (!(p = top_value(b + n, e, ++id, ev, er))) return NULL;
      goto separator;
    }
    const char *q = str_run(b, e);
    tr_slice k;
    if ((load4(q) & 0x00FFFFFFu) == QUOTE_COLON_SP && (unsigned char)q[3] > ' ') {
      k = (tr_slice){b, (uint32_t)(q - b), false, false};
      p = q + 3;
    } else { /* escapes, other spacing or an error: the general string, scanned again */
      if (!(p = string(b - 1, e, &k, er))) return NULL;
      p = ws(p, e);
      if (p >= e || *p != ':') return ev_fail(er, p, "expected ':'");
      p = ws(p + 1, e);
    }
    if (!(p = field(p, e, k, ev, &id, er))) return NULL;
  separator:
    if ((load4(p) & 0x00FFFFFFu) == COMMA_SP_QUOTE) {
      b = p + 3;
      continue;
    }
    p = ws(p, e);
    if (p < e && *p == ',') {
      p = ws(p + 1, e);
      if (p >= e || *p != '"') return ev_fail(er, p, p >= e ? "unexpected end of the event" : "expected a key");
      b = p + 1;
      continue;
    }
    if (p < e && *p == '}') return p + 1;
    return ev_fail(er, p, p >= e ? "unexpected end of the event" : "expected ',' or '}'");
  }
}

static const char *args_object(const char *p, const char *e, tr_event *ev, ev_err *er) {
  if (p >= e || *p != '{') return value(p, e, 1, er);
  return members(p + 1, e, ev, arg_field, false, er);
}

/* A top-level key's id; dispatched on its length first. */
static inline __attribute__((always_inline)) int top_key(tr_slice key) {
  char buf[KEY_BUF];
  const char *kp;
  size_t kn;
  if (!plain_key(key, buf, &kp, &kn)) return TK_OTHER;
  switch (kn) {
  case 2:
    if (IS("ph")) return TK_PH;
    if (IS("ts")) return TK_TS;
    break;
  case 3:
    if (IS("cat")) return TK_CAT;
    if (IS("pid")) return TK_PID;
    if (IS("tid")) return TK_TID;
    if (IS("dur")) return TK_DUR;
    break;
  case 4:
    if (IS("name")) return TK_NAME;
    if (IS("args")) return TK_ARGS;
    break;
  }
  return TK_OTHER;
}

/* The value of the top-level key id at p. */
static inline __attribute__((always_inline)) const char *top_value(const char *p, const char *e, int id, tr_event *ev,
                                                                   ev_err *er) {
  switch (id) {
  case TK_PH: return want_str(p, e, &ev->ph, 1, er);
  case TK_CAT: return want_str(p, e, &ev->cat, 1, er);
  case TK_NAME: return want_str(p, e, &ev->name, 1, er);
  case TK_PID: return want_text(p, e, &ev->pid, 1, er);
  case TK_TID: return want_text(p, e, &ev->tid, 1, er);
  case TK_TS:
    ev->ts_key = true;
    ev->ts = (tr_num){0};
    ev->ts_us = 0;
    return want_num(p, e, &ev->ts, &ev->ts_us, 1, er);
  case TK_DUR:
    ev->dur = (tr_num){0};
    ev->dur_us = 0;
    ev->dur_null = p < e && *p == 'n';
    return want_num(p, e, &ev->dur, &ev->dur_us, 1, er);
  case TK_ARGS: return args_object(p, e, ev, er);
  default: return value(p, e, 1, er);
  }
}

static inline __attribute__((always_inline)) const char *top_field(const char *p, const char *e, tr_slice key,
                                                                   tr_event *ev, int *id, ev_err *er) {
  *id = top_key(key);
  return top_value(p, e, *id, ev, er);
}

#undef IS

/* memset(ev, 0, ...) compiles to `rep stos`, whose start-up costs more than the stores of a
 * ~450-byte struct: 3-6 % of reading a trace, measured. */
static inline void zero_event(tr_event *ev) {
#ifdef __SSE2__
  char *b = (char *)ev;
  size_t i = 0;
  __m128i z = _mm_setzero_si128();
  __asm__("" : "+x"(z)); /* an opaque zero: else the loop is recognised as memset again */
#pragma GCC unroll 32
  for (; i + 16 <= sizeof *ev; i += 16) _mm_storeu_si128((__m128i *)(void *)(b + i), z);
  memset(b + i, 0, sizeof *ev - i);
#else
  memset(ev, 0, sizeof *ev);
#endif
}

bool tr_event_parse_prefix(const char *p, size_t n, tr_event *ev, size_t *used, size_t *err_pos,
                           const char **why) {
  zero_event(ev);
  if (n > UINT32_MAX) n = UINT32_MAX; /* slices hold 32-bit lengths: longer input fails as cut off */
  const char *e = p + n, *q = ws(p, e);
  ev_err er = {NULL, NULL};
  if (q >= e || *q != '{') ev_fail(&er, q, "an event must be a JSON object");
  else q = members(q + 1, e, ev, top_field, true, &er);
  if (er.why) {
    *err_pos = (size_t)(er.at - p);
    *why = er.why;
    return false;
  }
  *used = (size_t)(q - p);
  return true;
}

bool tr_event_parse(const char *p, size_t n, tr_event *ev, size_t *err_pos, const char **why) {
  size_t used = 0;
  if (!tr_event_parse_prefix(p, n, ev, &used, err_pos, why)) return false;
  const char *q = ws(p + used, p + n);
  if (q == p + n) return true;
  *err_pos = (size_t)(q - p);
  *why = "unexpected data after the event";
  return false;
}

static void put_utf8(char **o, uint32_t cp) {
  unsigned char *u = (unsigned char *)*o;
  if (cp < 0x80) {
    *u++ = (unsigned char)cp;
  } else if (cp < 0x800) {
    *u++ = (unsigned char)(0xC0 | (cp >> 6));
    *u++ = (unsigned char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *u++ = (unsigned char)(0xE0 | (cp >> 12));
    *u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    *u++ = (unsigned char)(0x80 | (cp & 0x3F));
  } else {
    *u++ = (unsigned char)(0xF0 | (cp >> 18));
    *u++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    *u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    *u++ = (unsigned char)(0x80 | (cp & 0x3F));
  }
  *o = (char *)u;
}

static uint32_t hex4(const char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v * 16 + (uint32_t)ev_hexval(p[i]);
  return v;
}

size_t tr_slice_decode(const tr_slice *s, char *out) {
  if (!s->escaped) {
    if (s->n) memcpy(out, s->p, s->n);
    out[s->n] = '\0';
    return s->n;
  }
  char *o = out;
  const char *p = s->p, *e = s->p + s->n;
  while (p < e) {
    if (*p != '\\' || !s->escaped) {
      *o++ = *p++;
      continue;
    }
    p++; /* validated by the parser: an escape always follows */
    char c = *p++;
    switch (c) {
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      uint32_t cp = hex4(p);
      p += 4;
      if (cp >= 0xD800 && cp < 0xDC00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
        uint32_t lo = hex4(p + 2);
        if (lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
      }
      put_utf8(&o, cp);
      break;
    }
    default: *o++ = c; break; /* " \ / */
    }
  }
  *o = '\0';
  return (size_t)(o - out);
}

bool tr_slice_eq(const tr_slice *s, const char *lit) {
  if (!s->p) return false;
  if (!s->escaped) return strlen(lit) == s->n && memcmp(s->p, lit, s->n) == 0;
  char small[256];
  if (s->n >= sizeof small) return false; /* literals we compare with are short */
  tr_slice_decode(s, small);
  return strcmp(small, lit) == 0;
}
