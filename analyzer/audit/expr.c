#include "audit/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"

typedef enum {
  N_LIT, N_NAME, N_CALL, N_NEG, N_NOT, N_AND, N_OR, N_COND,
  N_ADD, N_SUB, N_MUL, N_DIV, N_MOD, N_EQ, N_NE, N_LT, N_LE, N_GT, N_GE
} node_kind;

struct ax_expr {
  node_kind kind;
  ax_value lit;   /* N_LIT; a string literal points into name */
  char *name;     /* N_NAME, N_CALL, string literal storage */
  int id;         /* N_NAME, N_CALL: what ax_bind resolved, -1 before */
  ax_expr **kids;
  size_t nkids, cap;
};

/* Deep nesting is refused so a hostile user rule file cannot exhaust the stack. */
#define MAX_DEPTH 64

typedef struct {
  const char *s, *p;
  char *err;
  int depth;
} parser;

static ax_expr *node(node_kind k) {
  ax_expr *e = pd_xcalloc(1, sizeof *e);
  e->kind = k;
  e->id = -1;
  return e;
}

static void add_kid(ax_expr *e, ax_expr *kid) { *PD_PUSH(e->kids, e->nkids, e->cap) = kid; }

static ax_expr *binary(node_kind k, ax_expr *a, ax_expr *b) {
  ax_expr *e = node(k);
  add_kid(e, a);
  add_kid(e, b);
  return e;
}

void ax_free(ax_expr *e) {
  if (!e) return;
  for (size_t i = 0; i < e->nkids; i++) ax_free(e->kids[i]);
  free(e->kids);
  free(e->name);
  free(e);
}

static void skip_ws(parser *ps) {
  while (*ps->p && isspace((unsigned char)*ps->p)) ps->p++;
}

static bool parse_fail(parser *ps, const char *what) {
  if (!ps->err)
    ps->err = pd_xasprintf("%s at offset %d in '%s'", what, (int)(ps->p - ps->s), ps->s);
  return false;
}

static bool eat(parser *ps, const char *tok) {
  skip_ws(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->p, tok, n) != 0) return false;
  /* '<' must not eat the first half of '<=', '=' never stands alone, '!' not of '!=' */
  if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && ps->p[1] == '=') return false;
  if (n == 1 && (tok[0] == '&' || tok[0] == '|')) return false;
  ps->p += n;
  return true;
}

static ax_expr *parse_expr(parser *ps);

static ax_expr *parse_primary(parser *ps) {
  skip_ws(ps);
  const char *p = ps->p;
  if (*p == '(') {
    ps->p++;
    ax_expr *e = parse_expr(ps);
    if (!e) return NULL;
    if (!eat(ps, ")")) {
      ax_free(e);
      parse_fail(ps, "expected ')'");
      return NULL;
    }
    return e;
  }
  if (*p == '\'' || *p == '"') {
    char q = *p++;
    const char *start = p;
    while (*p && *p != q) p++;
    if (*p != q) {
      parse_fail(ps, "unterminated string");
      return NULL;
    }
    ax_expr *e = node(N_LIT);
    e->name = pd_xstrndup(start, (size_t)(p - start));
    e->lit = ax_str(e->name);
    ps->p = p + 1;
    return e;
  }
  if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
    char *end;
    double x = strtod(p, &end);
    ps->p = end;
    ax_expr *e = node(N_LIT);
    e->lit = ax_num(x);
    return e;
  }
  if (isalpha((unsigned char)*p) || *p == '_') {
    const char *start = p;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
    char *name = pd_xstrndup(start, (size_t)(p - start));
    ps->p = p;
    if (!strcmp(name, "true") || !strcmp(name, "false") || !strcmp(name, "null")) {
      ax_expr *e = node(N_LIT);
      e->lit = name[0] == 'n' ? ax_null() : ax_bool(name[0] == 't');
      free(name);
      return e;
    }
    skip_ws(ps);
    if (*ps->p != '(') {
      ax_expr *e = node(N_NAME);
      e->name = name;
      return e;
    }
    ps->p++;
    ax_expr *e = node(N_CALL);
    e->name = name;
    if (eat(ps, ")")) return e;
    for (;;) {
      ax_expr *a = parse_expr(ps);
      if (!a) {
        ax_free(e);
        return NULL;
      }
      add_kid(e, a);
      if (eat(ps, ")")) return e;
      if (!eat(ps, ",")) {
        ax_free(e);
        parse_fail(ps, "expected ',' or ')'");
        return NULL;
      }
    }
  }
  parse_fail(ps, *p ? "unexpected character" : "unexpected end");
  return NULL;
}

static ax_expr *parse_unary(parser *ps) {
  if (++ps->depth > MAX_DEPTH) {
    parse_fail(ps, "expression nested too deeply");
    return NULL;
  }
  ax_expr *r;
  if (eat(ps, "-")) {
    ax_expr *a = parse_unary(ps);
    if (!a) return NULL;
    r = node(N_NEG);
    add_kid(r, a);
  } else if (eat(ps, "!")) {
    ax_expr *a = parse_unary(ps);
    if (!a) return NULL;
    r = node(N_NOT);
    add_kid(r, a);
  } else {
    r = parse_primary(ps);
  }
  ps->depth--;
  return r;
}

static ax_expr *parse_mul(parser *ps) {
  ax_expr *a = parse_unary(ps);
  while (a) {
    node_kind k;
    if (eat(ps, "*")) k = N_MUL;
    else if (eat(ps, "/")) k = N_DIV;
    else if (eat(ps, "%")) k = N_MOD;
    else break;
    ax_expr *b = parse_unary(ps);
    if (!b) {
      ax_free(a);
      return NULL;
    }
    a = binary(k, a, b);
  }
  return a;
}

static ax_expr *parse_add(parser *ps) {
  ax_expr *a = parse_mul(ps);
  while (a) {
    node_kind k;
    if (eat(ps, "+")) k = N_ADD;
    else if (eat(ps, "-")) k = N_SUB;
    else break;
    ax_expr *b = parse_mul(ps);
    if (!b) {
      ax_free(a);
      return NULL;
    }
    a = binary(k, a, b);
  }
  return a;
}

static ax_expr *parse_cmp(parser *ps) {
  ax_expr *a = parse_add(ps);
  if (!a) return NULL;
  node_kind k;
  if (eat(ps, "==")) k = N_EQ;
  else if (eat(ps, "!=")) k = N_NE;
  else if (eat(ps, "<=")) k = N_LE;
  else if (eat(ps, ">=")) k = N_GE;
  else if (eat(ps, "<")) k = N_LT;
  else if (eat(ps, ">")) k = N_GT;
  else return a;
  ax_expr *b = parse_add(ps);
  if (!b) {
    ax_free(a);
    return NULL;
  }
  return binary(k, a, b);
}

static ax_expr *parse_and(parser *ps) {
  ax_expr *a = parse_cmp(ps);
  while (a && eat(ps, "&&")) {
    ax_expr *b = parse_cmp(ps);
    if (!b) {
      ax_free(a);
      return NULL;
    }
    a = binary(N_AND, a, b);
  }
  return a;
}

static ax_expr *parse_or(parser *ps) {
  ax_expr *a = parse_and(ps);
  while (a && eat(ps, "||")) {
    ax_expr *b = parse_and(ps);
    if (!b) {
      ax_free(a);
      return NULL;
    }
    a = binary(N_OR, a, b);
  }
  return a;
}

static ax_expr *parse_expr(parser *ps) {
  if (++ps->depth > MAX_DEPTH) {
    parse_fail(ps, "expression nested too deeply");
    return NULL;
  }
  ax_expr *c = parse_or(ps);
  if (c && eat(ps, "?")) {
    ax_expr *a = parse_expr(ps), *b = NULL;
    if (a && eat(ps, ":")) b = parse_expr(ps);
    else if (a) parse_fail(ps, "expected ':'");
    if (!a || !b) {
      ax_free(c);
      ax_free(a);
      return NULL;
    }
    ax_expr *e = node(N_COND);
    add_kid(e, c);
    add_kid(e, a);
    add_kid(e, b);
    c = e;
  }
  ps->depth--;
  return c;
}

ax_expr *ax_parse(const char *src, char **err) {
  parser ps = {src ? src : "", src ? src : "", NULL, 0};
  ax_expr *e = parse_expr(&ps);
  if (e) {
    skip_ws(&ps);
    if (*ps.p) {
      parse_fail(&ps, "unexpected text");
      ax_free(e);
      e = NULL;
    }
  }
  if (!e) {
    if (err) *err = ps.err ? ps.err : pd_xstrdup("parse error");
    else free(ps.err);
  }
  return e;
}

int ax_truth(ax_value v) {
  switch (v.kind) {
  case AX_BOOL: return v.b;
  case AX_NUM: return v.num != 0;
  case AX_STR: return v.str[0] != '\0';
  default: return -1;
  }
}

static bool as_num(ax_value v, double *x) {
  if (v.kind == AX_NUM) {
    *x = v.num;
    return true;
  }
  if (v.kind == AX_BOOL) {
    *x = v.b;
    return true;
  }
  if (v.kind == AX_STR) return pd_parse_double(v.str, x);
  return false;
}

static ax_value compare(node_kind k, ax_value a, ax_value b) {
  if (a.kind == AX_NULL || b.kind == AX_NULL) return ax_null();
  int c;
  double x, y;
  if (a.kind == AX_STR && b.kind == AX_STR) {
    c = strcmp(a.str, b.str);
  } else if (as_num(a, &x) && as_num(b, &y)) {
    c = x < y ? -1 : x > y ? 1 : 0;
  } else {
    /* a string that is not a number against a number: only inequality is known */
    if (k == N_EQ) return ax_bool(false);
    if (k == N_NE) return ax_bool(true);
    return ax_null();
  }
  switch (k) {
  case N_EQ: return ax_bool(c == 0);
  case N_NE: return ax_bool(c != 0);
  case N_LT: return ax_bool(c < 0);
  case N_LE: return ax_bool(c <= 0);
  case N_GT: return ax_bool(c > 0);
  default: return ax_bool(c >= 0);
  }
}

static ax_value ax_arith(node_kind k, ax_value a, ax_value b) {
  double x, y;
  if (!as_num(a, &x) || !as_num(b, &y)) return ax_null();
  switch (k) {
  case N_ADD: return ax_num(x + y);
  case N_SUB: return ax_num(x - y);
  case N_MUL: return ax_num(x * y);
  case N_DIV: return y == 0 ? ax_null() : ax_num(x / y);
  default: return y == 0 ? ax_null() : ax_num(fmod(x, y));
  }
}

#define MAX_ARGS 16

ax_value ax_eval(const ax_expr *e, const ax_env *env) {
  if (!e) return ax_null();
  switch (e->kind) {
  case N_LIT: return e->lit;
  case N_NAME: {
    ax_value v = ax_null();
    if (env && env->lookup && env->lookup(env->ctx, e->id, e->name, &v)) return v;
    return ax_null();
  }
  case N_CALL: {
    ax_value args[MAX_ARGS];
    size_t n = e->nkids < MAX_ARGS ? e->nkids : MAX_ARGS;
    for (size_t i = 0; i < n; i++) args[i] = ax_eval(e->kids[i], env);
    ax_value v = ax_null();
    if (env && env->call && env->call(env->ctx, e->id, e->name, args, n, &v)) return v;
    return ax_null();
  }
  case N_NEG: {
    double x;
    ax_value a = ax_eval(e->kids[0], env);
    return as_num(a, &x) ? ax_num(-x) : ax_null();
  }
  case N_NOT: {
    int t = ax_truth(ax_eval(e->kids[0], env));
    return t < 0 ? ax_null() : ax_bool(!t);
  }
  case N_AND: {
    int a = ax_truth(ax_eval(e->kids[0], env));
    if (a == 0) return ax_bool(false);
    int b = ax_truth(ax_eval(e->kids[1], env));
    if (b == 0) return ax_bool(false);
    return a < 0 || b < 0 ? ax_null() : ax_bool(true);
  }
  case N_OR: {
    int a = ax_truth(ax_eval(e->kids[0], env));
    if (a == 1) return ax_bool(true);
    int b = ax_truth(ax_eval(e->kids[1], env));
    if (b == 1) return ax_bool(true);
    return a < 0 || b < 0 ? ax_null() : ax_bool(false);
  }
  case N_COND: {
    int c = ax_truth(ax_eval(e->kids[0], env));
    if (c < 0) return ax_null();
    return ax_eval(e->kids[c ? 1 : 2], env);
  }
  case N_EQ: case N_NE: case N_LT: case N_LE: case N_GT: case N_GE:
    return compare(e->kind, ax_eval(e->kids[0], env), ax_eval(e->kids[1], env));
  default:
    return ax_arith(e->kind, ax_eval(e->kids[0], env), ax_eval(e->kids[1], env));
  }
}

bool ax_bind(ax_expr *e, ax_resolver resolve, void *ctx, char **err) {
  if (!e) return true;
  if (e->kind == N_NAME || e->kind == N_CALL) {
    char *why = NULL;
    e->id = resolve(ctx, e->name, e->kind == N_CALL, e->nkids, &why);
    if (e->id < 0) {
      *err = why ? why : pd_xasprintf("unknown %s '%s'", e->kind == N_CALL ? "function" : "fact", e->name);
      return false;
    }
  }
  for (size_t i = 0; i < e->nkids; i++)
    if (!ax_bind(e->kids[i], resolve, ctx, err)) return false;
  return true;
}

void ax_visit_names(const ax_expr *e, void (*visit)(void *ctx, const char *name, bool is_call),
                    void *ctx) {
  if (!e) return;
  if (e->kind == N_NAME || e->kind == N_CALL) visit(ctx, e->name, e->kind == N_CALL);
  for (size_t i = 0; i < e->nkids; i++) ax_visit_names(e->kids[i], visit, ctx);
}
