/* pyval: Python literals and argparse's add_argument keywords, read from syntax nodes. */
#include "pysrc/pyval.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"

char *py_node_text(const char *text, size_t len, TSNode n) {
  if (ts_node_is_null(n)) return pd_xstrdup("");
  uint32_t a = ts_node_start_byte(n), z = ts_node_end_byte(n);
  if (z > len) z = (uint32_t)len;
  if (a > z) a = z;
  return pd_xstrndup(text + a, z - a);
}

static bool is(TSNode n, const char *type) { return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type); }

/* ---- strings ---- */

static int hexval(char c) {
  return isdigit((unsigned char)c) ? c - '0' : isxdigit((unsigned char)c) ? (tolower((unsigned char)c) - 'a' + 10) : -1;
}

static void put_utf8(pd_buf *b, unsigned long cp) {
  if (cp < 0x80) {
    pd_buf_putc(b, (char)cp);
  } else if (cp < 0x800) {
    pd_buf_putc(b, (char)(0xC0 | (cp >> 6)));
    pd_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    pd_buf_putc(b, (char)(0xE0 | (cp >> 12)));
    pd_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
    pd_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
  } else {
    pd_buf_putc(b, (char)(0xF0 | (cp >> 18)));
    pd_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
    pd_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
    pd_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
  }
}

/* One escape sequence at s (after the backslash), appended decoded; returns its length. */
static size_t escape(pd_buf *b, const char *s, size_t n) {
  static const char from[] = "ntr0abfv\\'\"", to[] = "\n\t\r\0\a\b\f\v\\'\"";
  if (!n) return 0;
  const char *k = memchr(from, s[0], sizeof from - 1);
  if (k) {
    pd_buf_putc(b, to[k - from]);
    return 1;
  }
  size_t digits = s[0] == 'x' ? 2 : s[0] == 'u' ? 4 : s[0] == 'U' ? 8 : 0;
  if (digits && n > digits) {
    unsigned long cp = 0;
    for (size_t i = 1; i <= digits; i++) {
      int h = hexval(s[i]);
      if (h < 0) digits = 0;
      else cp = cp * 16 + (unsigned long)h;
    }
    if (digits) {
      put_utf8(b, cp);
      return digits + 1;
    }
  }
  if (s[0] == '\n') return 1; /* a backslash-newline continues the line */
  pd_buf_putc(b, '\\');       /* Python keeps unknown escapes as they are */
  return 0;
}

/* A string node's value; false for an f-string with fields or a bytes literal. */
static bool string_value(pd_buf *b, const char *text, size_t len, TSNode n) {
  char *src = py_node_text(text, len, n);
  size_t pre = 0;
  while (isalpha((unsigned char)src[pre])) pre++;
  bool raw = false, ok = true;
  for (size_t i = 0; i < pre; i++) {
    char c = (char)tolower((unsigned char)src[i]);
    if (c == 'r') raw = true;
    if (c == 'b') ok = false;
    if (c == 'f' && ts_node_named_child_count(n) > 2) {
      for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
        if (is(ts_node_named_child(n, k), "interpolation")) ok = false;
    }
  }
  size_t total = strlen(src), q = 1;
  if (total >= pre + 6 && src[pre] == src[pre + 1] && src[pre] == src[pre + 2]) q = 3;
  if (!ok || total < pre + 2 * q) {
    free(src);
    return false;
  }
  const char *s = src + pre + q;
  size_t n2 = total - pre - 2 * q;
  for (size_t i = 0; i < n2; i++) {
    if (s[i] == '\\' && !raw && i + 1 < n2) {
      i += escape(b, s + i + 1, n2 - i - 1);
      continue;
    }
    pd_buf_putc(b, s[i]);
  }
  free(src);
  return true;
}

/* ---- numbers ---- */

static json_t *number(const char *text, size_t len, TSNode n, bool integer) {
  char *src = py_node_text(text, len, n);
  char *w = src;
  for (char *r = src; *r; r++)
    if (*r != '_') *w++ = *r;
  *w = '\0';
  json_t *v = NULL;
  if (integer) {
    char *end;
    long long x = strtoll(src, &end, 0);
    if (src[0] == '0' && src[1] && isdigit((unsigned char)src[1])) x = strtoll(src, &end, 10);
    if (*end == '\0') v = json_integer(x);
  } else {
    double d;
    if (pd_parse_double(src, &d)) v = json_real(d);
  }
  free(src);
  return v;
}

static bool num_of(json_t *v, double *d) {
  if (json_is_integer(v)) return *d = (double)json_integer_value(v), true;
  if (json_is_real(v)) return *d = json_real_value(v), true;
  if (json_is_boolean(v)) return *d = json_is_true(v) ? 1 : 0, true;
  return false;
}

static json_t *arith(json_t *a, json_t *b, const char *op) {
  double x, y, r;
  if (!num_of(a, &x) || !num_of(b, &y)) return NULL;
  bool ints = json_is_integer(a) && json_is_integer(b);
  if (!strcmp(op, "+")) r = x + y;
  else if (!strcmp(op, "-")) r = x - y;
  else if (!strcmp(op, "*")) r = x * y;
  else if (!strcmp(op, "**")) r = pow(x, y), ints = ints && y >= 0;
  else if (!strcmp(op, "/") && y != 0) r = x / y, ints = false;
  else if (!strcmp(op, "//") && y != 0) r = floor(x / y);
  else if (!strcmp(op, "%") && y != 0) r = x - y * floor(x / y);
  else return NULL;
  return ints && fabs(r) < 9e15 ? json_integer((json_int_t)r) : json_real(r);
}

/* ---- literals ---- */

static json_t *sequence(const char *text, size_t len, TSNode n) {
  json_t *arr = json_array();
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode e = ts_node_named_child(n, i);
    if (is(e, "comment")) continue;
    json_t *v = py_literal(text, len, e);
    if (!v) {
      json_decref(arr);
      return NULL;
    }
    json_array_append_new(arr, v);
  }
  return arr;
}

json_t *py_literal(const char *text, size_t len, TSNode n) {
  if (ts_node_is_null(n)) return NULL;
  const char *t = ts_node_type(n);
  if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) {
    pd_buf b = {0};
    bool ok = true;
    if (!strcmp(t, "string")) {
      ok = string_value(&b, text, len, n);
    } else {
      for (uint32_t i = 0; ok && i < ts_node_named_child_count(n); i++) {
        TSNode s = ts_node_named_child(n, i);
        if (is(s, "string")) ok = string_value(&b, text, len, s);
      }
    }
    json_t *v = ok ? json_string(b.data ? b.data : "") : NULL;
    pd_buf_free(&b);
    return v;
  }
  if (!strcmp(t, "integer")) return number(text, len, n, true);
  if (!strcmp(t, "float")) return number(text, len, n, false);
  if (!strcmp(t, "true")) return json_true();
  if (!strcmp(t, "false")) return json_false();
  if (!strcmp(t, "none")) return json_null();
  if (!strcmp(t, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
    return py_literal(text, len, ts_node_named_child(n, 0));
  if (!strcmp(t, "list") || !strcmp(t, "tuple") || !strcmp(t, "set")) return sequence(text, len, n);
  if (!strcmp(t, "unary_operator")) {
    json_t *v = py_literal(text, len, ts_node_child_by_field_name(n, "argument", 8));
    char *op = py_node_text(text, len, ts_node_child_by_field_name(n, "operator", 8));
    json_t *zero = json_integer(0);
    json_t *r = v && !strcmp(op, "-") ? arith(zero, v, "-") : v && !strcmp(op, "+") ? json_incref(v) : NULL;
    json_decref(zero);
    json_decref(v);
    free(op);
    return r;
  }
  if (!strcmp(t, "binary_operator")) {
    json_t *a = py_literal(text, len, ts_node_child_by_field_name(n, "left", 4));
    json_t *b = py_literal(text, len, ts_node_child_by_field_name(n, "right", 5));
    char *op = py_node_text(text, len, ts_node_child_by_field_name(n, "operator", 8));
    json_t *r = NULL;
    if (a && b && json_is_string(a) && json_is_string(b) && !strcmp(op, "+")) {
      char *s = pd_xasprintf("%s%s", json_string_value(a), json_string_value(b));
      r = json_string(s);
      free(s);
    } else if (a && b) {
      r = arith(a, b, op);
    }
    json_decref(a);
    json_decref(b);
    free(op);
    return r;
  }
  return NULL;
}
