/* The trigger expression language: precedence, null propagation, parse errors, functions. */
#include <stdlib.h>
#include <string.h>

#include "audit/expr.h"
#include "tests/harness.h"

static bool lookup(void *ctx, int id, const char *name, ax_value *out) {
  (void)ctx;
  (void)id;
  if (!strcmp(name, "tp")) *out = ax_num(4);
  else if (!strcmp(name, "mode")) *out = ax_str("colocate");
  else if (!strcmp(name, "unknown_fact")) *out = ax_null();
  else return false;
  return true;
}

static bool call(void *ctx, int id, const char *fn, const ax_value *a, size_t n, ax_value *out) {
  (void)ctx;
  (void)id;
  if (!strcmp(fn, "twice") && n == 1 && a[0].kind == AX_NUM) {
    *out = ax_num(2 * a[0].num);
    return true;
  }
  return false;
}

static ax_value ev(const char *src) {
  ax_env env = {lookup, call, NULL};
  char *err = NULL;
  ax_expr *e = ax_parse(src, &err);
  if (!e) {
    fprintf(stderr, "parse error: %s\n", err);
    free(err);
    return ax_str("PARSE-ERROR");
  }
  ax_value v = ax_eval(e, &env);
  /* string literals live in the expression: copy the kind/number only */
  if (v.kind == AX_STR) v.str = strcmp(v.str, "colocate") ? "other" : "colocate";
  ax_free(e);
  return v;
}

static int truth(const char *src) { return ax_truth(ev(src)); }
static double num(const char *src) {
  ax_value v = ev(src);
  return v.kind == AX_NUM ? v.num : -12345;
}

static bool parse_fails(const char *src) {
  char *err = NULL;
  ax_expr *e = ax_parse(src, &err);
  bool failed = e == NULL && err != NULL;
  ax_free(e);
  free(err);
  return failed;
}

int main(void) {
  CHECK(num("1 + 2 * 3") == 7);
  CHECK(num("(1 + 2) * 3") == 9);
  CHECK(num("10 % 4") == 2);
  CHECK(num("-tp + 1") == -3);
  CHECK(num("twice(tp) / 2") == 4);
  CHECK(num("2.5e1") == 25);
  CHECK(truth("tp > 2 && tp <= 4") == 1);
  CHECK(truth("tp != 4 || mode == 'colocate'") == 1);
  CHECK(truth("!(tp == 4)") == 0);
  CHECK(truth("mode == \"colocate\"") == 1);
  /* null propagation: unknown facts make the result unknown unless the other side decides */
  CHECK(truth("unknown_fact > 3") == -1);
  CHECK(truth("unknown_fact > 3 && tp == 1") == 0);
  CHECK(truth("unknown_fact > 3 || tp == 4") == 1);
  CHECK(truth("unknown_fact > 3 || tp == 1") == -1);
  CHECK(truth("!unknown_fact") == -1);
  CHECK(truth("no_such_name == 1") == -1);
  CHECK(truth("nosuchfn(1) == 1") == -1);
  CHECK(ev("tp / 0").kind == AX_NULL);
  CHECK(num("tp > 2 ? 10 : 20") == 10);
  CHECK(ev("unknown_fact ? 1 : 2").kind == AX_NULL);
  CHECK(truth("mode == 3") == 0); /* a word is not a number */
  /* errors */
  CHECK(parse_fails("1 +"));
  CHECK(parse_fails("(1"));
  CHECK(parse_fails("'abc"));
  CHECK(parse_fails("tp $ 2"));
  CHECK(parse_fails("a ? b"));
  CHECK(parse_fails("f(1,"));
  /* a hostile nesting depth is refused, not a stack overflow */
  char deep[2100];
  memset(deep, '(', 1000);
  strcpy(deep + 1000, "1");
  memset(deep + 1001, ')', 1000);
  deep[2001] = '\0';
  CHECK(parse_fails(deep));
  return pd_test_exit("audit_expr");
}
