/* sh_arith: bash arithmetic, $(( )) and (( )), over tree-sitter-bash nodes (see shell.h):
 * integers, variables (unset is 0), the C operators bash has, assignments and increments that
 * update the variable store. A part that is not known (a variable set from an unevaluated
 * command) makes the whole result unknown; the result is as certain as its least certain
 * variable. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "script/bashsym.h"
#include "script/shell.h"

#define MAX_DEPTH 64

typedef struct {
  sh_env *env;
  const sh_file *file;
  int depth; /* nesting guard for pathological inputs */
  sm_cert cert; /* the least certain input so far */
  const char *cert_var;
} arith_ctx;

static void lower(arith_ctx *b, sm_cert cert, const char *var) {
  if (cert >= b->cert) return;
  b->cert = cert;
  b->cert_var = var ? sh_intern(b->env, var, strlen(var)) : NULL;
}



static bool sh_arith(arith_ctx *b, TSNode n, long long *out);

static bool arith_value_str(const char *s, long long *out) {
  while (*s == ' ') s++;
  if (!*s) {
    *out = 0;
    return true;
  }
  char *end;
  long long v = strtoll(s, &end, 0);
  while (*end == ' ') end++;
  if (*end) return false;
  *out = v;
  return true;
}

/* The variable an assignment in arithmetic writes (a bare name), copied into buf; NULL when the
 * target is not a plain variable. */
static const char *arith_target(arith_ctx *b, TSNode n, char *buf, size_t cap) {
  if (!bs_is(n, BS_VARIABLE_NAME) && !bs_is(n, BS_WORD)) return NULL;
  sh_var_name(b->file, n, buf, cap);
  for (const char *p = buf; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_') return NULL;
  return *buf && !isdigit((unsigned char)*buf) ? buf : NULL;
}

/* x = e, x op= e, x++, x--, ++x, --x: evaluates and writes x (bash's side effect). */
static bool arith_assign(arith_ctx *b, TSNode n, long long *out) {
  char name[256], op[4] = {0};
  TSNode target, value = {{0}, NULL, NULL};
  bool post = false;
  if (bs_is(n, BS_VARIABLE_ASSIGNMENT)) {
    target = bs_child(n, BSF_NAME);
    value = bs_child(n, BSF_VALUE);
    op[0] = '=';
  } else if (bs_is(n, BS_POSTFIX_EXPRESSION) || bs_is(n, BS_UNARY_EXPRESSION)) {
    post = bs_is(n, BS_POSTFIX_EXPRESSION);
    target = ts_node_child(n, post ? 0 : 1);
    size_t ol;
    const char *o = sh_node_src(b->file, ts_node_child(n, post ? 1 : 0), &ol);
    if (ol != 2) return false;
    op[0] = o[0];
    op[1] = '=';
  } else {
    target = bs_child(n, BSF_LEFT);
    value = bs_child(n, BSF_RIGHT);
    size_t ol;
    const char *o = sh_node_src(b->file, bs_child(n, BSF_OPERATOR), &ol);
    if (ol > 3) return false;
    memcpy(op, o, ol);
  }
  if (ts_node_is_null(target) || !arith_target(b, target, name, sizeof name)) return false;
  long long old = 0, rhs = 1, v;
  if (op[0] != '=' && !sh_arith(b, target, &old)) return false;
  if (!ts_node_is_null(value)) {
    b->depth++;
    bool ok = sh_arith(b, value, &rhs);
    b->depth--;
    if (!ok) return false;
  }
  bool ok = true;
  switch (op[0]) {
  case '=': v = rhs; break;
  case '+': ok = !__builtin_add_overflow(old, rhs, &v); break;
  case '-': ok = !__builtin_sub_overflow(old, rhs, &v); break;
  case '*': ok = !__builtin_mul_overflow(old, rhs, &v); break;
  case '/':
  case '%':
    if (rhs == 0 || (old == LLONG_MIN && rhs == -1)) return false;
    v = op[0] == '/' ? old / rhs : old % rhs;
    break;
  default: return false;
  }
  if (!ok) return false;
  char num[32];
  snprintf(num, sizeof num, "%lld", v);
  sh_var_set(b->env, name, num, b->cert, b->cert_var);
  *out = post ? old : v;
  return true;
}

static bool sh_arith(arith_ctx *b, TSNode n, long long *out) {
  if (b->depth > MAX_DEPTH) return false;
  bs_kind t = bs_kind_of(n);
  size_t len;
  const char *s = sh_node_src(b->file, n, &len);
  if (t == BS_NUMBER) {
    char tmp[64];
    if (len >= sizeof tmp) return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    return arith_value_str(tmp, out);
  }
  if (t == BS_VARIABLE_NAME || t == BS_WORD) {
    char name[256];
    sh_var_name(b->file, n, name, sizeof name);
    const char *v, *via;
    sm_cert cert;
    if (!sh_var_get(b->env, name, &v, &cert, &via)) {
      *out = 0; /* bash: unset is 0 */
      return true;
    }
    lower(b, cert, via);
    return sm_cert_known(cert) && arith_value_str(v, out);
  }
  if (t == BS_SIMPLE_EXPANSION || t == BS_EXPANSION) {
    sm_cert cert;
    const char *via;
    char *v = sh_expand_scalar(b->env, b->file, n, &cert, &via);
    lower(b, cert, via);
    bool ok = sm_cert_known(cert) && arith_value_str(v, out);
    free(v);
    return ok;
  }
  if (t == BS_PARENTHESIZED_EXPRESSION) { /* ( x ): the one expression inside */
    if (ts_node_named_child_count(n) != 1) return false;
    b->depth++;
    bool ok = sh_arith(b, ts_node_named_child(n, 0), out);
    b->depth--;
    return ok;
  }
  if (t == BS_UNARY_EXPRESSION) {
    if (ts_node_child_count(n) < 2) return false;
    size_t ol;
    const char *op = sh_node_src(b->file, ts_node_child(n, 0), &ol);
    long long v;
    b->depth++;
    bool ok = sh_arith(b, ts_node_child(n, 1), &v);
    b->depth--;
    if (!ok) return false;
    if (ol == 1 && *op == '-') *out = v == LLONG_MIN ? v : -v;
    else if (ol == 1 && *op == '+') *out = v;
    else if (ol == 1 && *op == '!') *out = !v;
    else if (ol == 1 && *op == '~') *out = ~v;
    else return false;
    return true;
  }
  if (t == BS_POSTFIX_EXPRESSION || t == BS_VARIABLE_ASSIGNMENT) return arith_assign(b, n, out);
  if (t == BS_UNARY_EXPRESSION && ts_node_child_count(n) == 2) {
    size_t ol;
    const char *op = sh_node_src(b->file, ts_node_child(n, 0), &ol);
    if (ol == 2 && (!strncmp(op, "++", 2) || !strncmp(op, "--", 2))) return arith_assign(b, n, out);
  }
  if (t == BS_BINARY_EXPRESSION) {
    TSNode l = bs_child(n, BSF_LEFT);
    TSNode r = bs_child(n, BSF_RIGHT);
    TSNode o = bs_child(n, BSF_OPERATOR);
    if (ts_node_is_null(l) || ts_node_is_null(r) || ts_node_is_null(o)) return false;
    size_t aol;
    const char *aop = sh_node_src(b->file, o, &aol);
    if (aol >= 1 && aop[aol - 1] == '=' && !(aol == 2 && strchr("=!<>", aop[0])))
      return arith_assign(b, n, out);
    long long a, c;
    b->depth++;
    bool ok = sh_arith(b, l, &a) && sh_arith(b, r, &c);
    b->depth--;
    if (!ok) return false;
    size_t ol;
    const char *op = sh_node_src(b->file, o, &ol);
    char ops[4] = {0};
    if (ol > 3) return false;
    memcpy(ops, op, ol);
    long long v = 0;
    if (!strcmp(ops, "+")) ok = !__builtin_add_overflow(a, c, &v);
    else if (!strcmp(ops, "-")) ok = !__builtin_sub_overflow(a, c, &v);
    else if (!strcmp(ops, "*")) ok = !__builtin_mul_overflow(a, c, &v);
    else if (!strcmp(ops, "/") || !strcmp(ops, "%")) {
      if (c == 0 || (a == LLONG_MIN && c == -1)) return false;
      v = ops[0] == '/' ? a / c : a % c;
    } else if (!strcmp(ops, "**")) {
      if (c < 0) return false;
      v = 1;
      for (long long i = 0; i < c && ok; i++) ok = !__builtin_mul_overflow(v, a, &v);
    } else if (!strcmp(ops, "<<")) {
      if (c < 0 || c > 62 || a < 0) return false;
      v = a << c;
    } else if (!strcmp(ops, ">>")) {
      if (c < 0 || c > 63) return false;
      v = a >> c;
    } else if (!strcmp(ops, "&")) v = a & c;
    else if (!strcmp(ops, "|")) v = a | c;
    else if (!strcmp(ops, "^")) v = a ^ c;
    else if (!strcmp(ops, "&&")) v = a && c;
    else if (!strcmp(ops, "||")) v = a || c;
    else if (!strcmp(ops, "==")) v = a == c;
    else if (!strcmp(ops, "!=")) v = a != c;
    else if (!strcmp(ops, "<")) v = a < c;
    else if (!strcmp(ops, ">")) v = a > c;
    else if (!strcmp(ops, "<=")) v = a <= c;
    else if (!strcmp(ops, ">=")) v = a >= c;
    else return false;
    *out = v;
    return ok;
  }
  if (t == BS_TERNARY_EXPRESSION) {
    TSNode c = bs_child(n, BSF_CONDITION);
    TSNode y = bs_child(n, BSF_CONSEQUENCE);
    TSNode z = bs_child(n, BSF_ALTERNATIVE);
    long long cv;
    if (ts_node_is_null(c) || ts_node_is_null(y) || ts_node_is_null(z)) return false;
    b->depth++;
    bool ok = sh_arith(b, c, &cv) && sh_arith(b, cv ? y : z, out);
    b->depth--;
    return ok;
  }
  return false;
}

bool sh_arith_eval(sh_env *e, const sh_file *f, TSNode n, long long *out, sm_cert *cert,
                   const char **cert_var) {
  arith_ctx b = {e, f, 0, SM_CERT_LITERAL, NULL};
  bool ok = sh_arith(&b, n, out);
  *cert = ok ? b.cert : SM_CERT_UNRESOLVED;
  if (cert_var) *cert_var = b.cert_var;
  return ok;
}
