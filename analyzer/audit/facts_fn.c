/* facts_fn: the functions rule triggers and templates call, as a table {name, arity, fn}.
 *
 * Flag functions look at the script model: has('--x') (present), on('--x') (switch on),
 * cond('--x') (set only in a branch), num('--x'[, default]), str('--x'[, default]),
 * hasval('--x', 'v'), maxval('--x') (largest number among the values), nvals('--x'),
 * note('--x') (a NOTE explains it), env('NAME') / train_env('NAME') (script environment /
 * --train-env-vars), json_has('--x', 'key'), json_num('--x', 'key'). Numeric and string
 * helpers: min, max, ceil, floor, abs, log2, pow2ceil, gcd, in(x, a, b, ...), contains(s, sub),
 * startswith(s, p), def(x, fallback), known(x), fixed(x, digits) (x with that many decimals),
 * alts(a, b) ("a or b" of the known ones), nearest(x, lo, hi) (the one nearer to x). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts_int.h"
#include "base/alloc.h"
#include "base/str.h"
#include "audit/template.h"

typedef ax_value (*fn_impl)(au_facts *f, const ax_value *a, size_t n);

/* ---- flag functions: a[0] is the flag's name (the binding checked the arity, not the types) */

/* The flag a[0] names, noted as an input of the evaluation (af_flag_input); *broken when an
 * occurrence keeps it from being set as written: the functions below then answer null. */
static const sm_flag *flag_arg_b(au_facts *f, const ax_value *a, bool *broken) {
  *broken = false;
  return a[0].kind == AX_STR ? af_flag_input(f, a[0].str, broken) : NULL;
}

static const sm_flag *flag_arg(au_facts *f, const ax_value *a) {
  bool broken;
  return flag_arg_b(f, a, &broken);
}

static ax_value fn_has(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  bool broken;
  const sm_flag *fl = flag_arg_b(f, a, &broken);
  return a[0].kind != AX_STR || broken ? ax_null() : ax_bool(fl != NULL);
}

static ax_value fn_on(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  bool broken;
  if (a[0].kind != AX_STR) return ax_null();
  (void)flag_arg_b(f, a, &broken);
  return broken ? ax_null() : ax_bool(sm_flag_on(f->m, a[0].str));
}

static ax_value fn_cond(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  if (a[0].kind != AX_STR) return ax_null();
  const sm_flag *fl = flag_arg(f, a);
  return ax_bool(fl && fl->conditional);
}

static ax_value fn_num(au_facts *f, const ax_value *a, size_t n) {
  if (a[0].kind != AX_STR) return ax_null();
  bool broken;
  const sm_flag *fl = flag_arg_b(f, a, &broken);
  if (broken) return ax_null();
  if (!fl && n >= 2) return a[1];
  double x = af_flag_num(f, a[0].str, NAN);
  return isnan(x) ? ax_null() : ax_num(x);
}

static ax_value fn_str(au_facts *f, const ax_value *a, size_t n) {
  if (a[0].kind != AX_STR) return ax_null();
  bool broken;
  const sm_flag *fl = flag_arg_b(f, a, &broken);
  if (broken) return ax_null();
  if (!fl) return n >= 2 ? a[1] : ax_null();
  if (fl->nvalues && !fl->values[0].resolved) return ax_null();
  return ax_str(sm_flag_str(f->m, a[0].str));
}

/* One of the flag's values is v (null when it is absent, or not found among values some of
 * which could not be resolved). */
static ax_value fn_hasval(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  if (a[0].kind != AX_STR || a[1].kind != AX_STR) return ax_null();
  bool broken;
  const sm_flag *fl = flag_arg_b(f, a, &broken);
  if (broken) return ax_null();
  bool hit = false, unknown = false;
  for (size_t i = 0; fl && i < fl->nvalues && !hit; i++) {
    hit = fl->values[i].resolved && !strcmp(fl->values[i].text, a[1].str);
    unknown = unknown || !fl->values[i].resolved;
  }
  return fl && (hit || !unknown) ? ax_bool(hit) : ax_null();
}

/* The largest number among the values (whitespace-separated words included: $(seq ...)). */
static ax_value fn_maxval(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  const sm_flag *fl = flag_arg(f, a);
  double best = NAN;
  for (size_t i = 0; fl && i < fl->nvalues; i++) {
    const char *p = fl->values[i].text;
    while (p && *p) {
      char *end;
      double x = strtod(p, &end);
      if (end == p) {
        p++;
        continue;
      }
      if (isnan(best) || x > best) best = x;
      p = end;
    }
  }
  return isnan(best) ? ax_null() : ax_num(best);
}

static ax_value fn_nvals(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  const sm_flag *fl = flag_arg(f, a);
  return fl ? ax_num((double)fl->nvalues) : ax_null();
}

static ax_value fn_note(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  if (a[0].kind != AX_STR) return ax_null();
  const sm_flag *fl = flag_arg(f, a);
  return ax_bool(fl && fl->note);
}

/* An exported shell variable of the script, else a RUNTIME_ENV_JSON-style assignment. */
static ax_value fn_env(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  if (a[0].kind != AX_STR) return ax_null();
  const sm_var *var = sm_var_get(f->m, a[0].str);
  char *v = var && var->known && var->exported ? pd_xstrdup(var->value) : af_env_scan(f->m, a[0].str);
  if (var && var->exported) af_note(f, var->cert, NULL);
  return v ? ax_str(af_own(f, v)) : ax_null();
}

static ax_value fn_train_env(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  if (a[0].kind != AX_STR) return ax_null();
  const sm_flag *fl = sm_flag_get(f->m, "--train-env-vars");
  af_note_flag(f, fl);
  json_t *x = fl && fl->json ? json_object_get(fl->json, a[0].str) : NULL;
  return json_is_string(x) ? ax_str(af_own(f, pd_xstrdup(json_string_value(x)))) : ax_null();
}

static json_t *json_member(au_facts *f, const ax_value *a) {
  const sm_flag *fl = flag_arg(f, a);
  if (!fl || !fl->json || !json_is_object(fl->json) || a[1].kind != AX_STR) return NULL;
  return json_object_get(fl->json, a[1].str);
}

static ax_value fn_json_has(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  const sm_flag *fl = flag_arg(f, a);
  if (!fl || !fl->json || a[1].kind != AX_STR) return ax_null();
  return ax_bool(json_member(f, a) != NULL);
}

static ax_value fn_json_num(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  json_t *x = json_member(f, a);
  if (json_is_array(x) && json_is_number(json_array_get(x, 1)))
    return ax_num(json_number_value(json_array_get(x, 1)));
  return json_is_number(x) ? ax_num(json_number_value(x)) : ax_null();
}

/* ---- numbers and strings ---- */

static ax_value minmax(const ax_value *a, size_t n, bool want_min) {
  double r = NAN;
  for (size_t i = 0; i < n; i++) {
    if (a[i].kind != AX_NUM) return ax_null();
    if (isnan(r) || (want_min ? a[i].num < r : a[i].num > r)) r = a[i].num;
  }
  return ax_num(r);
}

static ax_value fn_min(au_facts *f, const ax_value *a, size_t n) {
  (void)f;
  return minmax(a, n, true);
}

static ax_value fn_max(au_facts *f, const ax_value *a, size_t n) {
  (void)f;
  return minmax(a, n, false);
}

static ax_value unary(const ax_value *a, double (*op)(double)) {
  if (a[0].kind != AX_NUM) return ax_null();
  double x = op(a[0].num);
  return isnan(x) ? ax_null() : ax_num(x);
}

static double log2_pos(double x) { return x > 0 ? log2(x) : NAN; }
static double pow2ceil(double x) { return x <= 1 ? 1 : pow(2, ceil(log2(x) - 1e-12)); }

static ax_value fn_ceil(au_facts *f, const ax_value *a, size_t n) { (void)f, (void)n; return unary(a, ceil); }
static ax_value fn_floor(au_facts *f, const ax_value *a, size_t n) { (void)f, (void)n; return unary(a, floor); }
static ax_value fn_abs(au_facts *f, const ax_value *a, size_t n) { (void)f, (void)n; return unary(a, fabs); }
static ax_value fn_log2(au_facts *f, const ax_value *a, size_t n) { (void)f, (void)n; return unary(a, log2_pos); }
static ax_value fn_pow2ceil(au_facts *f, const ax_value *a, size_t n) { (void)f, (void)n; return unary(a, pow2ceil); }

static ax_value fn_gcd(au_facts *f, const ax_value *a, size_t n) {
  (void)f, (void)n;
  if (a[0].kind != AX_NUM || a[1].kind != AX_NUM) return ax_null();
  double x = fabs(a[0].num), y = fabs(a[1].num);
  while (y > 0.5) {
    double t = fmod(x, y);
    x = y;
    y = t;
  }
  return ax_num(x);
}

static ax_value fn_in(au_facts *f, const ax_value *a, size_t n) {
  (void)f;
  if (a[0].kind == AX_NULL) return ax_null();
  bool hit = false;
  for (size_t i = 1; i < n && !hit; i++) {
    if (a[0].kind == AX_STR && a[i].kind == AX_STR) hit = !strcmp(a[0].str, a[i].str);
    else if (a[0].kind == AX_NUM && a[i].kind == AX_NUM) hit = a[0].num == a[i].num;
  }
  return ax_bool(hit);
}

static ax_value fn_contains(au_facts *f, const ax_value *a, size_t n) {
  (void)f, (void)n;
  if (a[0].kind != AX_STR || a[1].kind != AX_STR) return ax_null();
  return ax_bool(strstr(a[0].str, a[1].str) != NULL);
}

static ax_value fn_startswith(au_facts *f, const ax_value *a, size_t n) {
  (void)f, (void)n;
  if (a[0].kind != AX_STR || a[1].kind != AX_STR) return ax_null();
  return ax_bool(pd_str_starts(a[0].str, a[1].str));
}

static ax_value fn_def(au_facts *f, const ax_value *a, size_t n) {
  (void)f, (void)n;
  return a[0].kind == AX_NULL ? a[1] : a[0];
}

static ax_value fn_known(au_facts *f, const ax_value *a, size_t n) {
  (void)f, (void)n;
  return ax_bool(a[0].kind != AX_NULL);
}

/* fixed(x, digits): x printed with that many decimals (a string), for message templates. */
static ax_value fn_fixed(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  if (a[0].kind != AX_NUM || a[1].kind != AX_NUM || a[1].num < 0 || a[1].num > 6) return ax_null();
  return ax_str(af_own(f, pd_xasprintf("%.*f", (int)a[1].num, a[0].num)));
}

/* alts(a, b): "a or b", "a" or "b" (whichever is known), null when neither: the candidates of
 * a fix in words. */
static ax_value fn_alts(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  bool x = a[0].kind != AX_NULL, y = a[1].kind != AX_NULL;
  if (!x && !y) return ax_null();
  pd_buf b = {0};
  if (x) at_format_value(&b, a[0]);
  if (x && y) pd_buf_puts(&b, " or ");
  if (y) at_format_value(&b, a[1]);
  return ax_str(af_own(f, pd_buf_take(&b)));
}

/* nearest(x, lo, hi): of lo and hi (either may be null) the one nearer to x; hi on a tie. */
static ax_value fn_nearest(au_facts *f, const ax_value *a, size_t n) {
  (void)f, (void)n;
  bool lo = a[1].kind == AX_NUM, hi = a[2].kind == AX_NUM;
  if (!lo || !hi || a[0].kind != AX_NUM) return hi ? a[2] : lo ? a[1] : ax_null();
  return a[2].num - a[0].num <= a[0].num - a[1].num ? a[2] : a[1];
}

/* ---- the flag catalog: what the parsers define, whatever the script sets ---- */

/* catalog_default('--x'): the default argparse gives the option, as a user reads it ("1",
 * "None"); null without a catalog, for an unknown option, or one computed at run time. */
static ax_value fn_catalog_default(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  const fc_option *o = a[0].kind == AX_STR ? fc_find(f->m->catalog, a[0].str) : NULL;
  return o && !o->default_computed ? ax_str(o->default_text) : ax_null();
}

/* catalog_type('--x'): "int", "float", "switch", ... as fc_type_name says it; null when unknown. */
static ax_value fn_catalog_type(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  const fc_option *o = a[0].kind == AX_STR ? fc_find(f->m->catalog, a[0].str) : NULL;
  return o ? ax_str(fc_type_name(o)) : ax_null();
}

/* catalog_parser('--x'): "relax", "megatron", "sglang" or "pre"; null when unknown. */
static ax_value fn_catalog_parser(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  const fc_option *o = a[0].kind == AX_STR ? fc_find(f->m->catalog, a[0].str) : NULL;
  return o ? ax_str(fc_parser_name(o->parser)) : ax_null();
}

static ax_value fn_mentions(au_facts *f, const ax_value *a, size_t n) {
  (void)n;
  return a[0].kind == AX_STR ? ax_bool(af_mentions(f->m, a[0].str)) : ax_null();
}

/* ---- the table ---- */

#define MANY 16

static const struct {
  const char *name;
  size_t min, max; /* arguments */
  fn_impl fn;
} fns[] = {
    {"has", 1, 1, fn_has},          {"on", 1, 1, fn_on},
    {"mentions", 1, 1, fn_mentions},
    {"cond", 1, 1, fn_cond},        {"num", 1, 2, fn_num},
    {"str", 1, 2, fn_str},          {"hasval", 2, 2, fn_hasval},
    {"maxval", 1, 1, fn_maxval},    {"nvals", 1, 1, fn_nvals},
    {"note", 1, 1, fn_note},        {"env", 1, 1, fn_env},
    {"train_env", 1, 1, fn_train_env}, {"json_has", 2, 2, fn_json_has},
    {"json_num", 2, 2, fn_json_num}, {"min", 1, MANY, fn_min},
    {"max", 1, MANY, fn_max},       {"ceil", 1, 1, fn_ceil},
    {"floor", 1, 1, fn_floor},      {"abs", 1, 1, fn_abs},
    {"log2", 1, 1, fn_log2},        {"pow2ceil", 1, 1, fn_pow2ceil},
    {"gcd", 2, 2, fn_gcd},          {"in", 2, MANY, fn_in},
    {"contains", 2, 2, fn_contains}, {"startswith", 2, 2, fn_startswith},
    {"def", 2, 2, fn_def},          {"known", 1, 1, fn_known},
    {"fixed", 2, 2, fn_fixed},      {"alts", 2, 2, fn_alts},
    {"nearest", 3, 3, fn_nearest},  {"catalog_default", 1, 1, fn_catalog_default},
    {"catalog_type", 1, 1, fn_catalog_type}, {"catalog_parser", 1, 1, fn_catalog_parser},
};

#define NFNS (sizeof fns / sizeof fns[0])

int af_fn_id(const char *name, size_t nargs, char **why) {
  for (size_t i = 0; i < NFNS; i++) {
    if (strcmp(fns[i].name, name) != 0) continue;
    if (nargs >= fns[i].min && nargs <= fns[i].max) return (int)i;
    if (why) {
      if (fns[i].min == fns[i].max)
        *why = pd_xasprintf("%s() takes %zu argument%s, not %zu", name, fns[i].min,
                            fns[i].min == 1 ? "" : "s", nargs);
      else
        *why = pd_xasprintf("%s() takes %zu to %zu arguments, not %zu", name, fns[i].min,
                            fns[i].max, nargs);
    }
    return -1;
  }
  return -1;
}

size_t af_fn_count(void) { return NFNS; }
const char *af_fn_name(size_t i) { return i < NFNS ? fns[i].name : NULL; }

bool af_call(au_facts *f, int id, const ax_value *a, size_t n, ax_value *out) {
  if (id < 0 || (size_t)id >= NFNS || n < fns[id].min || n > fns[id].max) return false;
  *out = fns[id].fn(f, a, n);
  return true;
}
