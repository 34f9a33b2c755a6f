#include "audit/template.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *lit;     /* literal text, or NULL */
  ax_expr *expr; /* an expression part, or NULL */
} at_part;

struct at_tpl {
  char *src;
  at_part *parts;
  size_t n, cap;
};

void at_free(at_tpl *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n; i++) {
    free(t->parts[i].lit);
    ax_free(t->parts[i].expr);
  }
  free(t->parts);
  free(t->src);
  free(t);
}

const char *at_source(const at_tpl *t) { return t ? t->src : ""; }

static void add_lit(at_tpl *t, pd_buf *lit) {
  if (!lit->len) return;
  at_part *p = PD_PUSH(t->parts, t->n, t->cap);
  p->lit = pd_buf_take(lit);
  p->expr = NULL;
}

/* The closing brace of the expression that starts after p, outside quotes; NULL when none. */
static const char *closing_brace(const char *p) {
  char quote = 0;
  for (; *p; p++) {
    if (quote && *p == quote) quote = 0;
    else if (!quote && (*p == '\'' || *p == '"')) quote = *p;
    else if (!quote && *p == '}') return p;
  }
  return NULL;
}

at_tpl *at_compile(const char *src, ax_resolver resolve, void *ctx, char **err) {
  at_tpl *t = pd_xcalloc(1, sizeof *t);
  t->src = pd_xstrdup(src ? src : "");
  pd_buf lit = {0};
  for (const char *p = t->src; *p;) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      pd_buf_putc(&lit, p[0]);
      p += 2;
      continue;
    }
    if (*p != '{') {
      pd_buf_putc(&lit, *p++);
      continue;
    }
    const char *q = closing_brace(p + 1);
    char *msg = NULL, *why = NULL;
    char *expr_src = q ? pd_xstrndup(p + 1, (size_t)(q - p - 1)) : NULL;
    ax_expr *e = expr_src ? ax_parse(expr_src, &why) : NULL;
    if (!q) msg = pd_xasprintf("unclosed '{' at offset %d", (int)(p - t->src));
    else if (!e) msg = pd_xasprintf("{%s}: %s", expr_src, why);
    else if (!ax_bind(e, resolve, ctx, &why)) msg = pd_xasprintf("{%s}: %s", expr_src, why);
    free(why);
    free(expr_src);
    if (msg) {
      ax_free(e);
      pd_buf_free(&lit);
      at_free(t);
      *err = msg;
      return NULL;
    }
    add_lit(t, &lit);
    at_part *part = PD_PUSH(t->parts, t->n, t->cap);
    part->lit = NULL;
    part->expr = e;
    p = q + 1;
  }
  add_lit(t, &lit);
  pd_buf_free(&lit);
  return t;
}

void at_format_value(pd_buf *b, ax_value v) {
  /* A rule text should guard its unknowns (known(x)); if one slips through, say it in a word,
   * never "?" or "nan". */
  if (v.kind == AX_NULL || (v.kind == AX_NUM && !isfinite(v.num))) {
    pd_buf_puts(b, "unknown");
    return;
  }
  switch (v.kind) {
  case AX_NUM:
    if (fabs(v.num) >= 1e15) pd_buf_printf(b, "%.3g", v.num);
    else if (v.num == floor(v.num) || fabs(v.num) >= 1000) pd_buf_printf(b, "%.0f", v.num);
    else if (fabs(v.num) >= 10) pd_buf_printf(b, "%.1f", v.num);
    else pd_buf_printf(b, "%.3g", v.num);
    break;
  case AX_BOOL: pd_buf_puts(b, v.b ? "true" : "false"); break;
  case AX_STR: pd_buf_puts(b, v.str); break;
  default: break;
  }
}

void at_render(pd_buf *b, const at_tpl *t, const ax_env *env, bool *unknown) {
  for (size_t i = 0; t && i < t->n; i++) {
    if (t->parts[i].lit) {
      pd_buf_puts(b, t->parts[i].lit);
      continue;
    }
    ax_value v = ax_eval(t->parts[i].expr, env);
    if (v.kind == AX_NULL && unknown) *unknown = true;
    at_format_value(b, v);
  }
}
