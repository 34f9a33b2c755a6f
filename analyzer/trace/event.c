#include "trace/event.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define EV_MAX_DEPTH 512

typedef struct {
  const char *p, *end, *start;
  const char *err_at, *why;
} ps;

static bool ev_fail(ps *s, const char *why) {
  if (!s->why) {
    s->why = why;
    s->err_at = s->p;
  }
  return false;
}

/* Whitespace between tokens: usually none or one space, so a byte above ' ' ends it at once;
 * Kineto indents its events, and runs of indentation are skipped 16 bytes at a time. */
static inline void ws(ps *s) {
  const char *p = s->p, *e = s->end;
  if (p < e && (unsigned char)*p > ' ') return;
  if (p + 1 < e && *p == ' ' && (unsigned char)p[1] > ' ') { /* the one space after ':' or ',' */
    s->p = p + 1;
    return;
  }
#ifdef __SSE2__
  while (e - p >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    unsigned other = ~(unsigned)_mm_movemask_epi8(w) & 0xFFFFu;
    if (other) {
      s->p = p + __builtin_ctz(other);
      return;
    }
    p += 16;
  }
#endif
  while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  s->p = p;
}

static int ev_hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The first byte at or after p that ends a plain run inside a string: '"', '\\' or a control
 * character; `end` when none. Kernel and op names are long, so 16 bytes are tested at once. */
static inline __attribute__((always_inline)) const char *str_run(const char *p, const char *end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl)); /* unsigned v <= 0x1f */
    int mask = _mm_movemask_epi8(m);
    if (mask) return p + __builtin_ctz((unsigned)mask);
    p += 16;
  }
#endif
  while (p < end) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\' || c < 0x20) return p;
    p++;
  }
  return end;
}

/* At the opening quote. */
static bool str(ps *s, tr_slice *out) {
  const char *b = ++s->p;
  bool esc = false;
  for (;;) {
    s->p = str_run(s->p, s->end);
    if (s->p >= s->end) break;
    unsigned char c = (unsigned char)*s->p;
    if (c == '"') {
      if (out) *out = (tr_slice){b, (size_t)(s->p - b), esc, false};
      s->p++;
      return true;
    }
    if (c < 0x20) return ev_fail(s, "control character in a string");
    esc = true; /* a backslash */
    if (++s->p >= s->end) break;
    switch (*s->p) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
      s->p++;
      break;
    case 'u':
      for (int i = 1; i <= 4; i++)
        if (s->p + i >= s->end || ev_hexval(s->p[i]) < 0) return ev_fail(s, "invalid \\u escape in a string");
      s->p += 5;
      break;
    default:
      return ev_fail(s, "invalid escape in a string");
    }
  }
  return ev_fail(s, "unterminated string");
}

/* A member's key: plain in practice, so its closing quote is looked for directly; a key with an
 * escape or a control character goes through str(). */
static inline bool key_str(ps *s, tr_slice *out) {
  const char *b = s->p + 1, *q = str_run(b, s->end);
  if (q < s->end && *q == '"') {
    *out = (tr_slice){b, (size_t)(q - b), false, false};
    s->p = q + 1;
    return true;
  }
  return str(s, out);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Timestamps run to 13-17 digits: eight at a time where the window holds them (SWAR). */
static inline bool eight_digits(const char *p, uint64_t *v) {
  uint64_t x;
  memcpy(&x, p, 8);
  /* every byte in '0'..'9': high nibble 3, and adding 6 does not carry out of the low nibble */
  if ((x & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
      ((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
    return false;
  if (v) { /* the value of the 8 digits, little-endian lanes (Lemire's three multiplications) */
    x = (x & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    x = (x & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    *v = (x & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
  }
  return true;
}

static inline const char *skip_digits(const char *p, const char *e) {
  while (e - p >= 8 && eight_digits(p, NULL)) p += 8;
  while (p < e && is_digit(*p)) p++;
  return p;
}

/* At the first byte of a number. */
static bool number(ps *s, tr_slice *out, bool *real) {
  const char *b = s->p;
  *real = false;
  if (s->p < s->end && *s->p == '-') s->p++;
  if (s->p >= s->end || !is_digit(*s->p)) return ev_fail(s, "invalid number");
  if (*s->p == '0') s->p++;
  else s->p = skip_digits(s->p, s->end);
  if (s->p < s->end && *s->p == '.') {
    *real = true;
    s->p++;
    if (s->p >= s->end || !is_digit(*s->p)) return ev_fail(s, "invalid number");
    s->p = skip_digits(s->p, s->end);
  }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
    *real = true;
    s->p++;
    if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
    if (s->p >= s->end || !is_digit(*s->p)) return ev_fail(s, "invalid number");
    while (s->p < s->end && is_digit(*s->p)) s->p++;
  }
  if (out) *out = (tr_slice){b, (size_t)(s->p - b), false, true};
  return true;
}

static bool literal(ps *s, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0) return ev_fail(s, "invalid token");
  s->p += n;
  return true;
}

static bool value(ps *s, int depth);

static bool container(ps *s, int depth) {
  if (depth >= EV_MAX_DEPTH) return ev_fail(s, "JSON nested deeper than 512 levels");
  char close = *s->p == '{' ? '}' : ']';
  bool obj = close == '}';
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == close) {
    s->p++;
    return true;
  }
  for (;;) {
    if (obj) {
      if (s->p >= s->end || *s->p != '"') return ev_fail(s, "expected a key");
      if (!str(s, NULL)) return false;
      ws(s);
      if (s->p >= s->end || *s->p != ':') return ev_fail(s, "expected ':'");
      s->p++;
      ws(s);
    }
    if (!value(s, depth + 1)) return false;
    ws(s);
    if (s->p < s->end && *s->p == ',') {
      s->p++;
      ws(s);
      continue;
    }
    if (s->p < s->end && *s->p == close) {
      s->p++;
      return true;
    }
    if (s->p < s->end && (*s->p == '}' || *s->p == ']')) return ev_fail(s, *s->p == '}' ? "mismatched '}'" : "mismatched ']'");
    return ev_fail(s, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static bool value(ps *s, int depth) {
  if (s->p >= s->end) return ev_fail(s, "unexpected end of the event");
  bool real;
  switch (*s->p) {
  case '{':
  case '[':
    return container(s, depth);
  case '"':
    return str(s, NULL);
  case 't':
    return literal(s, "true");
  case 'f':
    return literal(s, "false");
  case 'n':
    return literal(s, "null");
  default:
    return number(s, NULL, &real);
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
      if (round_half && r * 2 >= div) q++;
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

/* The keys compared here are short literals, so the comparison is inlined byte by byte. */
static inline bool key_is_n(const tr_slice *k, const char *lit, size_t n) {
  if (k->escaped) return tr_slice_eq(k, lit);
  if (k->n != n) return false;
  for (size_t i = 0; i < n; i++)
    if (k->p[i] != lit[i]) return false;
  return true;
}
/* lit is a string literal: its length is known at compile time */
#define key_is(k, lit) key_is_n((k), (lit), sizeof(lit) - 1)

/* A field that wants a string: a string slice; other values are validated and ignored. */
static bool want_str(ps *s, tr_slice *out, int depth) {
  if (s->p < s->end && *s->p == '"') return str(s, out);
  return value(s, depth);
}

/* The common number in one pass: [-]digits[.digits], at most 18 digits in all, no exponent,
 * followed by a byte that cannot continue a number. False (nothing consumed) otherwise; the
 * general path then handles it. *frac is the count of decimals. */
static bool num_fast(ps *s, uint64_t *mant, int *frac, bool *neg) {
  const char *p = s->p, *e = s->end;
  *neg = p < e && *p == '-';
  if (*neg) p++;
  if (p >= e || !is_digit(*p) || (*p == '0' && p + 1 < e && is_digit(p[1]))) return false;
  uint64_t m = 0, v8;
  int digits = 0, f = 0;
  if (e - p >= 8 && eight_digits(p, &v8)) { /* 18 digits at most: one block before the point */
    m = v8;
    p += 8;
    digits = 8;
  }
  for (; p < e && is_digit(*p); p++, digits++) m = m * 10 + (uint64_t)(*p - '0');
  if (p < e && *p == '.') {
    p++;
    if (p >= e || !is_digit(*p)) return false;
    for (; p < e && is_digit(*p); p++, digits++, f++) m = m * 10 + (uint64_t)(*p - '0');
  }
  if (digits > 18 || p >= e || *p == 'e' || *p == 'E') return false;
  *mant = m;
  *frac = f;
  s->p = p;
  return true;
}

static const uint64_t pow10_u[] = {1,          10,          100,          1000,          10000,
                                   100000,     1000000,     10000000,     100000000,     1000000000,
                                   10000000000, 100000000000, 1000000000000, 10000000000000,
                                   100000000000000, 1000000000000000, 10000000000000000,
                                   100000000000000000, 1000000000000000000};

/* ts / dur in µs from the fast form: exact ns (rounded half away from zero, as dec_scaled)
 * and the nearest double (one correctly rounded division: mant < 2^53 and 10^frac exact). */
static void num_fast_ns(uint64_t mant, int frac, bool neg, tr_num *out) {
  uint64_t ns;
  if (frac <= 3) ns = mant * pow10_u[3 - frac];
  else {
    uint64_t div = pow10_u[frac - 3];
    ns = mant / div + (mant % div * 2 >= div);
  }
  out->v = neg ? -(int64_t)ns : (int64_t)ns;
  out->present = true;
  out->real = frac > 0;
  double us = (double)mant / (double)pow10_u[frac];
  out->us = frac > 0 ? (neg ? -us : us) : (double)(out->v / 1000);
}

/* A field that wants a number (ns when to_ns). Strings holding an integer count for args. */
static bool want_num(ps *s, tr_num *out, bool to_ns, int depth) {
  uint64_t mant;
  int frac;
  bool neg;
  const char *b = s->p;
  if (s->p < s->end && (*s->p == '-' || is_digit(*s->p)) && num_fast(s, &mant, &frac, &neg)) {
    if (to_ns) {
      num_fast_ns(mant, frac, neg, out);
      if (frac > 0 && mant >= ((uint64_t)1 << 53)) /* one division would round twice */
        out->us = as_double(&(tr_slice){b, (size_t)(s->p - b), false, true});
    }
    else {
      uint64_t iv = mant / pow10_u[frac]; /* truncated, as as_int */
      out->v = neg ? -(int64_t)iv : (int64_t)iv;
      out->present = true;
      out->real = frac > 0;
    }
    return true;
  }
  if (s->p < s->end && (*s->p == '-' || is_digit(*s->p))) {
    tr_slice n;
    bool real;
    if (!number(s, &n, &real)) return false;
    out->real = real;
    if (to_ns) {
      out->present = as_ns(&n, &out->v);
      out->us = real ? as_double(&n) : (double)(out->v / 1000);
    }
    else {
      out->v = as_int(&n);
      out->present = true;
    }
    return true;
  }
  if (!to_ns && s->p < s->end && *s->p == '"') {
    tr_slice t;
    if (!str(s, &t)) return false;
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
    return true;
  }
  return value(s, depth);
}

/* A field kept as text whether a string or a number (collective identifiers). */
static bool want_text(ps *s, tr_slice *out, int depth) {
  if (s->p < s->end && (*s->p == '-' || is_digit(*s->p))) {
    bool real;
    return number(s, out, &real);
  }
  return want_str(s, out, depth);
}

/* Any value, kept as its raw JSON text. */
static bool want_raw(ps *s, tr_slice *out, int depth) {
  const char *b = s->p;
  if (!value(s, depth)) return false;
  *out = (tr_slice){b, (size_t)(s->p - b), false, false};
  return true;
}

/* The key as plain bytes: itself, or decoded into buf (never needed in practice, but it keeps the
 * comparisons right). False when an escaped key is too long to be one of ours. */
#define KEY_BUF 32
static bool plain_key(const tr_slice *key, char buf[KEY_BUF], tr_slice *out) {
  *out = *key;
  if (!key->escaped) return true;
  if (key->n >= KEY_BUF) return false;
  *out = (tr_slice){buf, tr_slice_decode(key, buf), false, false};
  return true;
}

#define IS(lit) (k->n == sizeof(lit) - 1 && !memcmp(k->p, lit, sizeof(lit) - 1))

/* One args key: the fields the analyses read. Dispatched on the key's length first: a CPU op
 * with record_shapes carries a dozen keys, and most events none of ours. */
static bool arg_field(ps *s, const tr_slice *key, tr_event *ev) {
  tr_slice plain;
  char buf[KEY_BUF];
  if (!plain_key(key, buf, &plain)) return value(s, 2);
  const tr_slice *k = &plain;
  switch (k->n) {
  case 3:
    if (IS("Seq")) return want_num(s, &ev->seq, false, 2);
    break;
  case 5:
    if (IS("flops")) return want_num(s, &ev->flops, false, 2);
    if (IS("dtype")) return want_text(s, &ev->dtype, 2);
    break;
  case 6:
    if (IS("stream")) return want_num(s, &ev->stream, false, 2);
    if (IS("device")) return want_num(s, &ev->device, false, 2);
    break;
  case 8:
    if (IS("Comms Id")) return want_text(s, &ev->comms_id, 2);
    break;
  case 9:
    if (IS("Device Id")) return want_num(s, &ev->dev_id, false, 2);
    break;
  case 10:
    if (IS("Input Dims")) return want_raw(s, &ev->dims, 2);
    if (IS("Input type")) return want_raw(s, &ev->types, 2);
    if (IS("Group size")) return want_num(s, &ev->group_size, false, 2);
    break;
  case 11:
    if (IS("correlation")) return want_num(s, &ev->correlation, false, 2);
    if (IS("Device Type")) return want_num(s, &ev->dev_type, false, 2);
    break;
  case 13:
    if (IS("In msg nelems")) return want_num(s, &ev->nelems, false, 2);
    break;
  case 14:
    if (IS("Total Reserved")) return want_num(s, &ev->mem_reserved, false, 2);
    if (IS("Out msg nelems")) return want_num(s, &ev->out_nelems, false, 2);
    break;
  case 15:
    if (IS("Concrete Inputs")) return want_raw(s, &ev->concrete, 2);
    if (IS("Total Allocated")) return want_num(s, &ev->mem_alloc, false, 2);
    if (IS("Collective name")) return want_text(s, &ev->coll_name, 2);
    break;
  case 18:
    if (IS("Process Group Name")) return want_text(s, &ev->pg_name, 2);
    break;
  case 19:
    if (IS("Process Group Ranks")) return want_text(s, &ev->pg_ranks, 2);
    break;
  }
  return value(s, 2);
}

#undef IS

typedef bool (*field_fn)(ps *s, const tr_slice *key, tr_event *ev);

/* The members of an object, each key's value handed to field; s->p is just after its '{'.
 * Inlined at its two callers, so that field is a direct call on the parser's hot path. */
static inline __attribute__((always_inline)) bool members(ps *s, tr_event *ev, field_fn field) {
  ws(s);
  if (s->p < s->end && *s->p == '}') {
    s->p++;
    return true;
  }
  for (;;) {
    tr_slice k;
    if (s->p >= s->end || *s->p != '"') return ev_fail(s, s->p >= s->end ? "unexpected end of the event" : "expected a key");
    if (!key_str(s, &k)) return false;
    ws(s);
    if (s->p >= s->end || *s->p != ':') return ev_fail(s, "expected ':'");
    s->p++;
    ws(s);
    if (!field(s, &k, ev)) return false;
    ws(s);
    if (s->p < s->end && *s->p == ',') {
      s->p++;
      ws(s);
      continue;
    }
    if (s->p < s->end && *s->p == '}') {
      s->p++;
      return true;
    }
    return ev_fail(s, s->p >= s->end ? "unexpected end of the event" : "expected ',' or '}'");
  }
}

static bool args_object(ps *s, tr_event *ev) {
  if (s->p >= s->end || *s->p != '{') return value(s, 1);
  s->p++;
  return members(s, ev, arg_field);
}

/* One top-level key's value; the keys are dispatched on their length first. */
static bool top_field(ps *s, const tr_slice *key, tr_event *ev) {
  tr_slice plain;
  char buf[KEY_BUF];
  if (!plain_key(key, buf, &plain)) return value(s, 1);
  const tr_slice *k = &plain;
  switch (k->n) {
  case 2:
    if (k->p[0] == 'p' && k->p[1] == 'h') return want_str(s, &ev->ph, 1);
    if (k->p[0] == 't' && k->p[1] == 's') {
      ev->ts_key = true;
      ev->ts = (tr_num){0};
      return want_num(s, &ev->ts, true, 1);
    }
    break;
  case 3:
    if (key_is(k, "cat")) return want_str(s, &ev->cat, 1);
    if (key_is(k, "pid")) return want_text(s, &ev->pid, 1);
    if (key_is(k, "tid")) return want_text(s, &ev->tid, 1);
    if (key_is(k, "dur")) {
      ev->dur = (tr_num){0};
      ev->dur_null = s->p < s->end && *s->p == 'n';
      return want_num(s, &ev->dur, true, 1);
    }
    break;
  case 4:
    if (key_is(k, "name")) return want_str(s, &ev->name, 1);
    if (key_is(k, "args")) return args_object(s, ev);
    break;
  }
  return value(s, 1);
}

bool tr_event_parse_prefix(const char *p, size_t n, tr_event *ev, size_t *used, size_t *err_pos,
                           const char **why) {
  memset(ev, 0, sizeof *ev);
  ps s = {p, p + n, p, NULL, NULL};
  bool ok = false;
  ws(&s);
  if (s.p >= s.end || *s.p != '{') ev_fail(&s, "an event must be a JSON object");
  else {
    s.p++;
    ok = members(&s, ev, top_field);
  }
  if (ok) *used = (size_t)(s.p - p);
  else {
    *err_pos = (size_t)(s.err_at - p);
    *why = s.why ? s.why : "invalid JSON";
  }
  return ok;
}

bool tr_event_parse(const char *p, size_t n, tr_event *ev, size_t *err_pos, const char **why) {
  size_t used = 0;
  if (!tr_event_parse_prefix(p, n, ev, &used, err_pos, why)) return false;
  ps s = {p + used, p + n, p, NULL, NULL};
  ws(&s);
  if (s.p == s.end) return true;
  *err_pos = (size_t)(s.p - p);
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
