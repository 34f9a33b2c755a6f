#include "script/sh_printf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRINTF_MAX_OUT (1u << 20) /* a launch script's printf output is a line or two */

/* One backslash escape at s (after the backslash); appends its character, returns its length. */
static size_t escape(const char *s, pd_buf *o) {
  static const char from[] = "abefnrtv\\\"'", to[] = "\a\b\x1b\f\n\r\t\v\\\"'";
  const char *k = *s ? strchr(from, *s) : NULL;
  if (k) {
    pd_buf_putc(o, to[k - from]);
    return 1;
  }
  if (*s >= '0' && *s <= '7') { /* \NNN octal */
    int v = 0;
    size_t i = 0;
    while (i < 3 && s[i] >= '0' && s[i] <= '7') v = v * 8 + (s[i++] - '0');
    pd_buf_putc(o, (char)v);
    return i;
  }
  pd_buf_putc(o, '\\'); /* unknown escapes stay as written */
  return 0;
}

static bool to_integer(const char *a, long long *v) {
  if (!*a) {
    *v = 0;
    return true;
  }
  if ((a[0] == '\'' || a[0] == '"') && a[1]) { /* 'c: the character's code */
    *v = (unsigned char)a[1];
    return true;
  }
  char *end;
  errno = 0;
  *v = strtoll(a, &end, 0);
  return !errno && !*end;
}

static bool to_real(const char *a, double *v) {
  if (!*a) {
    *v = 0;
    return true;
  }
  char *end;
  errno = 0;
  *v = strtod(a, &end);
  return !errno && !*end;
}

/* One conversion: spec is "%[flags][width][.prec]c" (NUL-terminated), arg its argument. */
static bool convert(const char *spec, char conv, const char *arg, pd_buf *o) {
  char buf[512];
  int n = -1;
  if (strchr("diouxXc", conv) && conv != 'c') {
    long long v;
    if (!to_integer(arg, &v)) return false;
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%.*sll%c", (int)(strlen(spec) - 1), spec, conv);
    n = snprintf(buf, sizeof buf, fmt, v);
  } else if (strchr("eEfFgG", conv)) {
    double v;
    if (!to_real(arg, &v)) return false;
    n = snprintf(buf, sizeof buf, spec, v);
  } else if (conv == 'c') {
    char one[2] = {arg[0], 0};
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%.*ss", (int)(strlen(spec) - 1), spec);
    n = snprintf(buf, sizeof buf, fmt, one);
  } else if (conv == 's' || conv == 'b') {
    pd_buf text = {0};
    if (conv == 'b') {
      for (const char *p = arg; *p; p++) {
        if (*p == '\\' && p[1]) p += escape(p + 1, &text);
        else pd_buf_putc(&text, *p);
      }
    } else {
      pd_buf_puts(&text, arg);
    }
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%.*ss", (int)(strlen(spec) - 1), spec);
    pd_buf tmp = {0};
    pd_buf_printf(&tmp, fmt, text.data ? text.data : "");
    pd_buf_append(o, tmp.data ? tmp.data : "", tmp.len);
    pd_buf_free(&tmp);
    pd_buf_free(&text);
    return true;
  } else {
    return false;
  }
  if (n < 0 || (size_t)n >= sizeof buf) return false;
  pd_buf_append(o, buf, (size_t)n);
  return true;
}

/* One pass of the format over args starting at *next; false when it cannot be done. */
static bool one_pass(const char *fmt, const char *const *args, size_t n, size_t *next, pd_buf *o,
                     bool *consumed) {
  for (const char *p = fmt; *p; p++) {
    if (*p == '\\' && p[1]) {
      p += escape(p + 1, o);
      continue;
    }
    if (*p != '%') {
      pd_buf_putc(o, *p);
      continue;
    }
    if (p[1] == '%') {
      pd_buf_putc(o, '%');
      p++;
      continue;
    }
    const char *q = p + 1;
    while (*q && strchr("-+ #0", *q)) q++;
    while (isdigit((unsigned char)*q)) q++;
    if (*q == '.') {
      q++;
      while (isdigit((unsigned char)*q)) q++;
    }
    if (!*q || (size_t)(q - p) > 32 || strtol(p + 1 + strspn(p + 1, "-+ #0"), NULL, 10) > 4096) return false;
    const char *dot = memchr(p, '.', (size_t)(q - p));
    if (dot && strtol(dot + 1, NULL, 10) > 4096) return false;
    char spec[40];
    memcpy(spec, p, (size_t)(q - p + 1));
    spec[q - p + 1] = '\0';
    const char *arg = *next < n ? args[*next] : "";
    if (*next < n) {
      (*next)++;
      *consumed = true;
    }
    if (!convert(spec, *q, arg, o)) return false;
    p = q;
  }
  return true;
}

bool sh_printf(const char *const *args, size_t n, pd_buf *out) {
  if (n == 0) return false;
  pd_buf o = {0};
  size_t next = 1;
  bool ok = true;
  do {
    bool consumed = false;
    ok = one_pass(args[0], args, n, &next, &o, &consumed) && o.len <= PRINTF_MAX_OUT;
    if (!consumed) break; /* a format without conversions runs once */
  } while (ok && next < n);
  if (ok) pd_buf_append(out, o.data ? o.data : "", o.len);
  pd_buf_free(&o);
  return ok;
}
