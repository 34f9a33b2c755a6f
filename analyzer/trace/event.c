#include "trace/event.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

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

static void ws(ps *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) s->p++;
}

static int ev_hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* At the opening quote. */
static bool str(ps *s, tr_slice *out) {
  const char *b = ++s->p;
  bool esc = false;
  while (s->p < s->end) {
    unsigned char c = (unsigned char)*s->p;
    if (c == '"') {
      if (out) *out = (tr_slice){b, (size_t)(s->p - b), esc, false};
      s->p++;
      return true;
    }
    if (c < 0x20) return ev_fail(s, "control character in a string");
    if (c == '\\') {
      esc = true;
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
      continue;
    }
    s->p++;
  }
  return ev_fail(s, "unterminated string");
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* At the first byte of a number. */
static bool number(ps *s, tr_slice *out, bool *real) {
  const char *b = s->p;
  *real = false;
  if (s->p < s->end && *s->p == '-') s->p++;
  if (s->p >= s->end || !is_digit(*s->p)) return ev_fail(s, "invalid number");
  if (*s->p == '0') s->p++;
  else
    while (s->p < s->end && is_digit(*s->p)) s->p++;
  if (s->p < s->end && *s->p == '.') {
    *real = true;
    s->p++;
    if (s->p >= s->end || !is_digit(*s->p)) return ev_fail(s, "invalid number");
    while (s->p < s->end && is_digit(*s->p)) s->p++;
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
  if (depth >= EV_MAX_DEPTH) return ev_fail(s, "nested too deeply");
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

static bool key_is_n(const tr_slice *k, const char *lit, size_t n) {
  if (!k->escaped) return k->n == n && memcmp(k->p, lit, n) == 0;
  return tr_slice_eq(k, lit);
}
/* lit is a string literal: its length is known at compile time */
#define key_is(k, lit) key_is_n((k), (lit), sizeof(lit) - 1)

/* A field that wants a string: a string slice; other values are validated and ignored. */
static bool want_str(ps *s, tr_slice *out, int depth) {
  if (s->p < s->end && *s->p == '"') return str(s, out);
  return value(s, depth);
}

/* A field that wants a number (ns when to_ns). Strings holding an integer count for args. */
static bool want_num(ps *s, tr_num *out, bool to_ns, int depth) {
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

#define IS(lit) (k->n == sizeof(lit) - 1 && !memcmp(k->p, lit, sizeof(lit) - 1))

/* One args key: the fields the analyses read. Dispatched on the key's length first: a CPU op
 * with record_shapes carries a dozen keys, and most events none of ours. */
static bool arg_field(ps *s, const tr_slice *key, tr_event *ev) {
  tr_slice plain = *key;
  char buf[32];
  if (key->escaped) { /* never in practice; decode so that the comparisons below hold */
    if (key->n >= sizeof buf) return value(s, 2);
    plain = (tr_slice){buf, tr_slice_decode(key, buf), false, false};
  }
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

static bool args_object(ps *s, tr_event *ev) {
  if (s->p >= s->end || *s->p != '{') return value(s, 1);
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == '}') {
    s->p++;
    return true;
  }
  for (;;) {
    tr_slice k;
    if (s->p >= s->end || *s->p != '"') return ev_fail(s, "expected a key");
    if (!str(s, &k)) return false;
    ws(s);
    if (s->p >= s->end || *s->p != ':') return ev_fail(s, "expected ':'");
    s->p++;
    ws(s);
    if (!arg_field(s, &k, ev)) return false;
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
    return ev_fail(s, "expected ',' or '}'");
  }
}

bool tr_event_parse(const char *p, size_t n, tr_event *ev, size_t *err_pos, const char **why) {
  memset(ev, 0, sizeof *ev);
  ps s = {p, p + n, p, NULL, NULL};
  bool ok = false;
  ws(&s);
  if (s.p >= s.end || *s.p != '{') {
    ev_fail(&s, "an event must be a JSON object");
    goto out;
  }
  s.p++;
  ws(&s);
  if (s.p < s.end && *s.p == '}') {
    s.p++;
    ok = true;
  }
  while (!ok) {
    tr_slice k;
    if (s.p >= s.end || *s.p != '"') {
      ev_fail(&s, "expected a key");
      goto out;
    }
    if (!str(&s, &k)) goto out;
    ws(&s);
    if (s.p >= s.end || *s.p != ':') {
      ev_fail(&s, "expected ':'");
      goto out;
    }
    s.p++;
    ws(&s);
    bool fine;
    if (key_is(&k, "ph")) fine = want_str(&s, &ev->ph, 1);
    else if (key_is(&k, "cat")) fine = want_str(&s, &ev->cat, 1);
    else if (key_is(&k, "name")) fine = want_str(&s, &ev->name, 1);
    else if (key_is(&k, "pid")) fine = want_text(&s, &ev->pid, 1);
    else if (key_is(&k, "tid")) fine = want_text(&s, &ev->tid, 1);
    else if (key_is(&k, "ts")) {
      ev->ts_key = true;
      ev->ts = (tr_num){0};
      fine = want_num(&s, &ev->ts, true, 1);
    } else if (key_is(&k, "dur")) {
      ev->dur = (tr_num){0};
      ev->dur_null = s.p < s.end && *s.p == 'n';
      fine = want_num(&s, &ev->dur, true, 1);
    } else if (key_is(&k, "args")) fine = args_object(&s, ev);
    else fine = value(&s, 1);
    if (!fine) goto out;
    ws(&s);
    if (s.p < s.end && *s.p == ',') {
      s.p++;
      ws(&s);
      continue;
    }
    if (s.p < s.end && *s.p == '}') {
      s.p++;
      ok = true;
      break;
    }
    ev_fail(&s, "expected ',' or '}'");
    goto out;
  }
  ws(&s);
  if (s.p != s.end) {
    ok = false;
    ev_fail(&s, "unexpected data after the event");
  }
out:
  if (!ok) {
    *err_pos = (size_t)(s.err_at - p);
    *why = s.why ? s.why : "invalid JSON";
  }
  return ok;
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
  if (!s->escaped) return strncmp(s->p, lit, s->n) == 0 && lit[s->n] == '\0';
  char small[256];
  if (s->n >= sizeof small) return false; /* literals we compare with are short */
  tr_slice_decode(s, small);
  return strcmp(small, lit) == 0;
}
