/* facts: storage of the facts, and the derivation of everything but the model's shape and
 * memory (facts_mem.c): device, parallel layout, mode, resources, batching, optimizer and
 * offload settings, and what the script's name says. */
#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts_int.h"
#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"

/* ---- storage ---- */

static const char *const fact_names[AF_COUNT] = {
#define AF_NAME_(id, name, step) name,
    AF_FACTS(AF_NAME_)
#undef AF_NAME_
};

static const af_step fact_step[AF_COUNT] = {
#define AF_STEP_OF_(id, name, step) AF_STEP_##step,
    AF_FACTS(AF_STEP_OF_)
#undef AF_STEP_OF_
};

/* A fact set outside its step, or read before it: the declared order (facts.h) is broken. */
static void order_error(au_facts *f, af_id id, const char *what) {
  f->order_errors++;
#ifndef NDEBUG
  fprintf(stderr, "perf-doctor: fact %s %s (facts.h declares its step)\n", fact_names[id], what);
  abort();
#else
  (void)id, (void)what;
#endif
}

size_t af_order_errors(const au_facts *f) { return f->order_errors; }

const char *af_fact_name(af_id id) { return id < AF_COUNT ? fact_names[id] : NULL; }

int af_fact_id(const char *name) {
  for (int i = 0; i < AF_COUNT; i++)
    if (!strcmp(fact_names[i], name)) return i;
  return pd_str_starts(name, "res_") && name[4] ? AF_RES_ROLE : -1;
}

const char *af_own(au_facts *f, char *s) {
  *PD_PUSH(f->strs, f->nstrs, f->capstrs) = s;
  return s;
}

void af_begin(au_facts *f) {
  f->track.cert = SM_CERT_LITERAL;
  f->track.why = NULL;
}

void af_note(au_facts *f, sm_cert cert, const sm_flag *why) {
  if (cert >= f->track.cert) return;
  f->track.cert = cert;
  f->track.why = why;
}

void af_note_flag(au_facts *f, const sm_flag *fl) {
  if (fl) af_note(f, fl->cert, fl);
}

void af_note_fact(au_facts *f, af_id id) {
  if (id < AF_COUNT && fact_step[id] > f->step) order_error(f, id, "read before its step");
  if (id < AF_COUNT && f->set[id]) af_note(f, f->cert[id], f->why[id]);
}

void af_set(au_facts *f, af_id id, ax_value v) {
  if (fact_step[id] != f->step) order_error(f, id, "set outside its step");
  f->v[id] = v;
  f->set[id] = true;
  f->cert[id] = f->track.cert;
  f->why[id] = f->track.why;
}

sm_cert af_cert(const au_facts *f, af_id id, const sm_flag **why) {
  if (why) *why = id < AF_COUNT ? f->why[id] : NULL;
  return id < AF_COUNT && f->set[id] ? f->cert[id] : SM_CERT_LITERAL;
}

void af_track_begin(au_facts *f) { af_begin(f); }

sm_cert af_track_end(au_facts *f, const sm_flag **why) {
  if (why) *why = f->track.why;
  return f->track.cert;
}
/* NaN is never a value: a number computed from an unknown input is unknown (no "nan" in a message). */
void af_setn(au_facts *f, af_id id, double x) { af_set(f, id, isnan(x) ? ax_null() : ax_num(x)); }
void af_setb(au_facts *f, af_id id, bool b) { af_set(f, id, ax_bool(b)); }
void af_sets(au_facts *f, af_id id, const char *s) {
  af_set(f, id, s ? ax_str(af_own(f, pd_xstrdup(s))) : ax_null());
}
void af_setu(au_facts *f, af_id id, double x) { af_set(f, id, isnan(x) ? ax_null() : ax_num(x)); }

void af_assume(au_facts *f, const char *fmt, const char *arg) {
  *PD_PUSH(f->assumed, f->nassumed, f->capassumed) = pd_xasprintf(fmt, arg ? arg : "");
}

ax_value af_value(const au_facts *f, af_id id) { return id < AF_COUNT ? f->v[id] : ax_null(); }

double af_input(au_facts *f, af_id id) {
  af_note_fact(f, id);
  return af_num(f, id, NAN);
}

double af_num(const au_facts *f, af_id id, double fallback) {
  ax_value v = af_value(f, id);
  if (v.kind == AX_NUM) return v.num;
  if (v.kind == AX_BOOL) return v.b;
  return fallback;
}

const char *af_str(const au_facts *f, af_id id) {
  ax_value v = af_value(f, id);
  return v.kind == AX_STR ? v.str : NULL;
}

bool af_get(const au_facts *f, const char *name, ax_value *out) {
  *out = ax_null();
  int id = af_fact_id(name);
  if (id >= 0 && id < AF_COUNT) {
    *out = f->v[id];
    return f->set[id];
  }
  for (size_t i = 0; id == AF_RES_ROLE && i < f->ndyn; i++)
    if (!strcmp(f->dyn[i].name, name)) {
      *out = f->dyn[i].v;
      return true;
    }
  return false;
}

size_t af_count(const au_facts *f) {
  size_t n = f->ndyn;
  for (int i = 0; i < AF_COUNT; i++) n += f->set[i];
  return n;
}

const char *af_name(const au_facts *f, size_t i, ax_value *value) {
  for (int k = 0; k < AF_COUNT; k++) {
    if (!f->set[k]) continue;
    if (i-- == 0) {
      if (value) *value = f->v[k];
      return fact_names[k];
    }
  }
  if (i >= f->ndyn) return NULL;
  if (value) *value = f->dyn[i].v;
  return f->dyn[i].name;
}

size_t af_nassumptions(const au_facts *f) { return f->nassumed; }
const char *af_assumption(const au_facts *f, size_t i) {
  return i < f->nassumed ? f->assumed[i] : NULL;
}

void af_free(au_facts *f) {
  if (!f) return;
  for (size_t i = 0; i < f->ndyn; i++) free(f->dyn[i].name);
  free(f->dyn);
  for (size_t i = 0; i < f->nstrs; i++) free(f->strs[i]);
  free(f->strs);
  for (size_t i = 0; i < f->nassumed; i++) free(f->assumed[i]);
  free(f->assumed);
  ak_free(f->own_k);
  free(f);
}

/* ---- the environment ---- */

static bool env_lookup(void *ctx, int id, const char *name, ax_value *out) {
  au_facts *f = ctx;
  if (id >= 0 && id < AF_COUNT) {
    *out = f->v[id];
    af_note_fact(f, (af_id)id);
    return f->set[id];
  }
  for (size_t i = 0; id == AF_RES_ROLE && i < f->ndyn; i++)
    if (!strcmp(f->dyn[i].name, name)) af_note(f, f->dyn[i].cert, f->dyn[i].why);
  return af_get(f, name, out);
}

static bool env_call(void *ctx, int id, const char *fn, const ax_value *a, size_t n, ax_value *out) {
  (void)fn;
  return af_call(ctx, id, a, n, out);
}

ax_env af_env(au_facts *f) {
  ax_env e = {env_lookup, env_call, f};
  return e;
}

/* ---- flags, read as inputs ---- */

const sm_flag *af_flag_input(au_facts *f, const char *name, bool *broken) {
  const sm_flag *fl = sm_flag_get(f->m, name);
  const sm_flag *bad = sm_flag_broken(f->m, name);
  *broken = bad != NULL;
  if (bad) af_note(f, SM_CERT_UNRESOLVED, bad);
  else af_note_flag(f, fl);
  return fl;
}

double af_flag_num(au_facts *f, const char *name, double fallback) {
  bool broken;
  const sm_flag *fl = af_flag_input(f, name, &broken);
  if (broken) return NAN;
  if (!fl) return fallback;
  double x;
  return sm_flag_double(f->m, name, &x) ? x : NAN;
}

/* The default argparse gives `name`, as a number (True/False as 1/0); NaN for None, a default
 * computed at run time, or one the catalog does not have. */
static double catalog_default(const au_facts *f, const char *name) {
  const fc_option *o = fc_find(f->m->catalog, name);
  if (!o || o->default_computed) return NAN;
  if (!strcmp(o->default_text, "True")) return 1;
  if (!strcmp(o->default_text, "False")) return 0;
  double x;
  return pd_parse_double(o->default_text, &x) ? x : NAN;
}

double af_flag_numd(au_facts *f, const char *name) {
  return af_flag_num(f, name, catalog_default(f, name));
}

double af_flag_num_or(au_facts *f, const char *name, af_id fallback) {
  if (sm_flag_get(f->m, name) || sm_flag_broken(f->m, name)) return af_flag_num(f, name, NAN);
  return af_input(f, fallback);
}

bool af_flag_on(au_facts *f, const char *name) {
  bool broken;
  (void)af_flag_input(f, name, &broken);
  return sm_flag_on(f->m, name);
}

bool af_flag_has(au_facts *f, const char *name) {
  bool broken;
  return af_flag_input(f, name, &broken) != NULL;
}

const char *af_flag_str(au_facts *f, const char *name) {
  bool broken;
  const sm_flag *fl = af_flag_input(f, name, &broken);
  if (broken || (fl && fl->nvalues && !fl->values[0].resolved)) return NULL;
  return sm_flag_str(f->m, name);
}

/* ---- environment variables the script sets ---- */

/* True when byte offset off of file fi lies inside a --train-env-vars value: those variables
 * reach the training actors only, not the global runtime env. */
static bool in_train_env(const sm_model *m, size_t fi, uint32_t off) {
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    if (fl->file == (int)fi && !strcmp(fl->name, "--train-env-vars") && off >= fl->full.start_byte &&
        off < fl->full.end_byte)
      return true;
  }
  return false;
}

/* The value after NAME at q (`=v`, or `: "v"` in JSON), or NULL when NAME is not assigned
 * there. */
static char *assigned_value(const char *q) {
  if (*q == '\\') q++;
  if (*q == '"') q++;
  if (*q == '=') {
    q++;
  } else {
    while (*q == ' ') q++;
    if (*q != ':') return NULL;
    q++;
    while (*q == ' ') q++;
  }
  if (*q == '\\') q++;
  char quote = 0;
  if (*q == '"' || *q == '\'') quote = *q++;
  const char *start = q;
  while (*q && *q != '\n' && *q != quote && *q != '\\' && (quote || (*q != ' ' && *q != ';')) &&
         *q != ',' && *q != '}')
    q++;
  return pd_xstrndup(start, (size_t)(q - start));
}

/* `NAME=v`, `export NAME=v`, or a JSON member "NAME": "v" (RUNTIME_ENV_JSON, with or without
 * \" escapes); the last one wins. */
/* Whether text position p (in t) is on a line that is a comment. */
static bool on_comment_line(const char *t, const char *p) {
  while (p > t && p[-1] != '\n') p--;
  while (*p == ' ' || *p == '\t') p++;
  return *p == '#';
}

char *af_env_scan(const sm_model *m, const char *name) {
  char *best = NULL;
  size_t nlen = strlen(name);
  for (size_t fi = 0; fi < m->nfiles; fi++) {
    const char *t = m->files[fi].text;
    if (!t) continue;
    for (const char *p = strstr(t, name); p; p = strstr(p + 1, name)) {
      if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
      const char *q = p + nlen;
      if (isalnum((unsigned char)*q) || *q == '_') continue;
      if (on_comment_line(t, p)) continue; /* a commented-out export does not run */
      if (in_train_env(m, fi, (uint32_t)(p - t))) continue;
      char *v = assigned_value(q);
      if (!v) continue;
      free(best);
      best = v;
    }
  }
  return best;
}

/* A word character of a name in a script: what may not touch a mention on either side. */
static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.'; }

bool af_mentions(const sm_model *m, const char *word) {
  size_t k = strlen(word);
  for (size_t fi = 0; k && fi < m->nfiles; fi++) {
    const char *t = m->files[fi].text;
    for (const char *p = t ? strstr(t, word) : NULL; p; p = strstr(p + 1, word)) {
      if ((p > t && name_char(p[-1])) || name_char(p[k])) continue;
      if (!on_comment_line(t, p)) return true; /* a commented-out line does not run */
    }
  }
  return false;
}

/* ---- the condition a rule is looking at ---- */

/* The name among names[0..n) closest to want (one or two edits away), or NULL. */
static const char *closest(const char *want, const char *const *names, size_t n) {
  const char *best = NULL;
  size_t best_d = 3;
  if (!want || strlen(want) < 4) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!names[i] || !strcmp(names[i], want)) continue;
    size_t d = pd_edit_distance(want, names[i], 2);
    if (d >= 1 && d < best_d) {
      best_d = d;
      best = names[i];
    }
  }
  return best;
}

static const char *similar_name(const sm_model *m, const sm_condition *c) {
  size_t n = c && !strcmp(c->code, "spread-undefined") ? m->narrays : m->nvars;
  const char **names = pd_xmalloc((n + 1) * sizeof *names);
  for (size_t i = 0; i < n; i++)
    names[i] = !strcmp(c->code, "spread-undefined") ? m->arrays[i].name : m->vars[i].name;
  const char *best = closest(c->subject, names, n);
  free(names);
  return best;
}

/* The first sourced file the model could not read or follow (shown as the condition shows it):
 * what a variable or array the script never sets may come from. */
static const char *unread_source(const sm_model *m) {
  /* an entrypoint or env file before a model config: a model config sets the model's flags,
     not the launch's variables */
  const char *any = NULL;
  for (size_t i = 0; i < m->nconds; i++) {
    const char *code = m->conds[i].code, *subject = m->conds[i].subject;
    if (!pd_str_starts(code, "source-") || !strcmp(code, "source-cycle") || !subject) continue;
    if (!strstr(subject, "/models/")) return subject;
    if (!any) any = subject;
  }
  return any;
}

/* The first sourced file that does not exist (source-missing, -near-miss, -missing-outside: what
 * R-S03 reports, saying the rules that need it were skipped); NULL when none. */
static const char *missing_source(const sm_model *m) {
  for (size_t i = 0; i < m->nconds; i++)
    if (pd_str_starts(m->conds[i].code, "source-missing") || !strcmp(m->conds[i].code, "source-near-miss"))
      return m->conds[i].subject;
  return NULL;
}

/* Whether the script's file name names what the array NAME_ARGS is for ("mtp" of MTP_ARGS in
 * run-...-mtp-sft.sh): the author meant it to add flags. Case and '_' / '-' are not told apart. */
static bool named_in_file(const sm_model *m, const char *array) {
  const char *base = pd_path_base(m->nfiles ? m->files[0].path : "");
  size_t n = strcspn(array, "_");
  if (!n || n > 32) return false;
  char stem[33];
  for (size_t i = 0; i < n; i++) stem[i] = (char)tolower((unsigned char)array[i]);
  stem[n] = '\0';
  for (const char *p = base; (p = strstr(p, stem)) != NULL; p++) {
    bool start = p == base || !isalnum((unsigned char)p[-1]);
    if (start && !isalpha((unsigned char)p[n])) return true;
  }
  return false;
}

/* Whether some file of the model has `# NAME=(` or `# NAME=`: a definition commented out. */
static bool commented_definition(const sm_model *m, const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < m->nfiles; i++) {
    const char *t = m->files[i].text, *end = t + m->files[i].len;
    for (const char *p = t; p < end; p++) {
      if (*p != '#') continue;
      const char *q = p + 1;
      while (q < end && (*q == ' ' || *q == '\t')) q++;
      if ((size_t)(end - q) > n && !memcmp(q, name, n) && q[n] == '=') return true;
    }
  }
  return false;
}

/* A `--resource` role entry [1, N]: its N GPUs; NAN for any other shape. */
static double role_gpus(const json_t *v) {
  json_t *n = json_array_get(v, 1);
  if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 0)) ||
      json_integer_value(json_array_get(v, 0)) != 1 || !json_is_integer(n))
    return NAN;
  return (double)json_integer_value(n);
}

/* The word another train command gives `name` (its last occurrence, `--x v` or `--x=v`; NULL
 * when not known); *seen: whether the flag is among its words at all. */
static const char *alt_value(const sm_condition *c, const char *name, bool *seen) {
  size_t n = strlen(name);
  const char *v = NULL;
  *seen = false;
  for (size_t i = 0; i < c->nwords; i++) {
    const char *w = c->words[i];
    if (!w || strncmp(w, name, n) != 0 || (w[n] != '\0' && w[n] != '=')) continue;
    *seen = true;
    v = w[n] == '=' ? w + n + 1 : i + 1 < c->nwords ? c->words[i + 1] : NULL;
  }
  return v;
}

/* Its number for `name`: the catalog's default when absent, NAN when the shell's value is not
 * known. */
static double alt_num(const au_facts *f, const sm_condition *c, const char *name) {
  bool seen;
  const char *v = alt_value(c, name, &seen);
  if (!seen) return catalog_default(f, name);
  double x;
  return v && pd_parse_double(v, &x) ? x : NAN;
}

/* Its `--resource` as JSON, or NULL. Caller decrefs. */
static json_t *alt_resource(const sm_condition *c) {
  bool seen;
  const char *v = alt_value(c, "--resource", &seen);
  return v ? json_loads(v, 0, NULL) : NULL;
}

/* Whether another train command has the switch among its own words. */
static bool alt_on(const sm_condition *c, const char *name) {
  bool seen;
  alt_value(c, name, &seen);
  return seen;
}

/* The roles another train command gives: its actor GPUs ("actor": [1, N], the shape
 * compute_resources reads; else NAN) and whether it lists a reference (NAN: no JSON object). */
static void alt_roles(au_facts *f, const sm_condition *c) {
  json_t *j = alt_resource(c);
  af_setu(f, AF_COND_ALT_G_A, role_gpus(json_object_get(j, "actor")));
  if (json_is_object(j)) af_setb(f, AF_COND_ALT_REF, json_object_get(j, "reference") != NULL);
  json_decref(j);
}

void af_condition(au_facts *f, const sm_condition *c) {
  static const af_id ids[] = {AF_COND_CODE,    AF_COND_SUBJECT, AF_COND_FLAG,  AF_COND_SIMILAR,
                              AF_COND_MISSING, AF_COND_MESSAGE, AF_COND_UNREAD,
                              AF_COND_COMMENTED, AF_COND_SUGGEST, AF_COND_BASH, AF_COND_OPEN,
                              AF_COND_OPEN_LINE, AF_COND_CLOSER, AF_COND_ALT_G_A, AF_COND_ALT_TP,
                              AF_COND_ALT_PP, AF_COND_ALT_CP, AF_COND_ALT_FA, AF_COND_ALT_KL,
                              AF_COND_ALT_REF, AF_COND_IN_NAME};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) f->set[ids[i]] = false;
  if (!c) return;
  af_begin(f);
  af_set(f, AF_COND_CODE, ax_str(c->code));
  af_set(f, AF_COND_SUBJECT, ax_str(c->subject));
  af_set(f, AF_COND_FLAG, ax_str(c->flag));
  af_set(f, AF_COND_SIMILAR, ax_str(similar_name(f->m, c)));
  af_setb(f, AF_COND_MISSING, c->missing);
  af_set(f, AF_COND_MESSAGE, ax_str(c->message));
  af_set(f, AF_COND_UNREAD, ax_str(unread_source(f->m)));
  af_setb(f, AF_COND_COMMENTED, c->subject && commented_definition(f->m, c->subject));
  af_setb(f, AF_COND_IN_NAME, c->subject && named_in_file(f->m, c->subject));
  af_set(f, AF_COND_SUGGEST, ax_str(c->suggest));
  af_set(f, AF_COND_BASH, ax_str(c->bash));
  af_set(f, AF_COND_OPEN, ax_str(c->opener));
  af_setu(f, AF_COND_OPEN_LINE, c->opener ? (double)c->opened.start_line + 1 : NAN);
  af_set(f, AF_COND_CLOSER, ax_str(c->closer));
  /* another train command: the layout it would start with (its own words only) */
  if (c->nwords == 0) return;
  alt_roles(f, c);
  af_setu(f, AF_COND_ALT_TP, alt_num(f, c, "--tensor-model-parallel-size"));
  af_setu(f, AF_COND_ALT_PP, alt_num(f, c, "--pipeline-model-parallel-size"));
  af_setu(f, AF_COND_ALT_CP, alt_num(f, c, "--context-parallel-size"));
  af_setb(f, AF_COND_ALT_FA, alt_on(c, "--fully-async") && !alt_on(c, "--hybrid"));
  double coef = alt_num(f, c, "--kl-coef");
  af_setb(f, AF_COND_ALT_KL, alt_on(c, "--use-kl-loss") || (!isnan(coef) && coef != 0));
}

/* ---- derivation ----
 *
 * Each fact rests on the inputs read since the af_begin before it: a block that sets several
 * facts sets them from the same inputs. */

/* The device the script's own text sets up (knowledge.json "devices": ASCEND_RT_VISIBLE_DEVICES,
 * --sglang-device npu, a sourced local-klx.sh), or NULL: a file name may say "gpu" and the
 * script still run on NPUs. */
static const char *script_device(au_facts *f) {
  ax_env env = af_env(f);
  for (size_t i = 0; f->k && i < ak_ndevices(f->k); i++) {
    const ax_expr *when;
    const char *dev = ak_device(f->k, i, &when);
    if (ax_truth(ax_eval(when, &env)) == 1) return dev;
  }
  return NULL;
}

/* The device: the one the user or the script names, else the file name's (npu, klx, P800),
 * else H20 96GB, assumed. A named device the table does not know has no memory figure: memory
 * rules wait for one instead of judging against H20's. */
static const pd_device *compute_device(au_facts *f) {
  af_begin(f);
  const sm_context *c = &f->m->ctx;
  const pd_device *g = c->gpu ? pd_device_find(c->gpu, &f->custom_device) : NULL;
  bool assumed = false;
  if (c->gpu && !g) {
    af_assume(f, "device '%s' unknown: memory rules skipped (name a known device with --gpu or "
                 "`# perf-doctor: gpu=`, e.g. H100-80G)", c->gpu);
  } else if (!c->gpu && c->name_device && strcmp(c->name_device, "gpu") != 0) {
    g = pd_device_find(c->name_device, &f->custom_device);
    if (g) af_assume(f, "device taken from the file name: %s", g->display);
  }
  if (!g && !c->gpu) {
    const char *said = script_device(f);
    g = said ? pd_device_find(said, &f->custom_device) : NULL;
    if (g) af_assume(f, "device taken from what the script sets up: %s", g->display);
  }
  if (!g && !c->gpu) {
    g = pd_device_default();
    assumed = true;
    af_assume(f, "GPU assumed %s", g->display);
  }
  if (g && isnan(g->usable_gib))
    af_assume(f, "device memory unknown for %s: memory rules skipped (name it with --gpu "
                 "NAME-<N>G or `# perf-doctor: gpu=`)", g->display);
  af_sets(f, AF_GPU, g ? g->id : c->gpu);
  af_sets(f, AF_GPU_DISPLAY, g ? g->display : c->gpu);
  af_setb(f, AF_GPU_ASSUMED, assumed);
  af_setu(f, AF_M, g ? g->usable_gib : NAN);
  /* the most any device in the table has: what an assumed device could at best be */
  double most = NAN;
  for (size_t i = 0; i < pd_device_count(); i++) {
    double u = pd_device_at(i)->usable_gib;
    if (pd_device_at(i)->trace_only) continue;
    if (!isnan(u) && (isnan(most) || u > most)) most = u;
  }
  af_setu(f, AF_M_MAX, most);
  af_setu(f, AF_TFLOPS, g ? g->bf16_tflops : NAN);  /* dense bf16 peak, TFLOP/s */
  af_setu(f, AF_LINK_GBPS, g ? g->link_gbps : NAN); /* device-to-device in a node, GB/s */
  af_setb(f, AF_BLACKWELL, g && g->blackwell);
  af_setb(f, AF_NPU, (g && g->cls == PD_DEV_NPU) || (c->name_device && !strcmp(c->name_device, "npu")));
  /* the family, for rules that differ by vendor (DeepEP, vendor builds of SGLang) */
  static const char *const family[] = {"gpu", "npu", "xpu"};
  af_sets(f, AF_DEVICE, g ? family[g->cls] : c->name_device);
  return g;
}

static void set_flag_num(au_facts *f, af_id id, const char *flag, double fallback) {
  af_begin(f);
  af_setu(f, id, af_flag_num(f, flag, fallback));
}

/* The fact is the flag's number, else its catalog default. */
static void set_flag_numd(au_facts *f, af_id id, const char *flag) {
  af_begin(f);
  af_setu(f, id, af_flag_numd(f, flag));
}

static void compute_layout(au_facts *f) {
  set_flag_numd(f, AF_TP, "--tensor-model-parallel-size");
  set_flag_numd(f, AF_PP, "--pipeline-model-parallel-size");
  set_flag_numd(f, AF_CP, "--context-parallel-size");
  set_flag_numd(f, AF_EP, "--expert-model-parallel-size");
  af_begin(f);
  af_setu(f, AF_ETP, af_flag_num_or(f, "--expert-tensor-parallel-size", AF_TP)); /* Megatron: ETP = TP */
  af_begin(f);
  af_setb(f, AF_ETP_SET, af_flag_has(f, "--expert-tensor-parallel-size"));
  af_begin(f);
  bool vpp = af_flag_has(f, "--num-layers-per-virtual-pipeline-stage");
  vpp = af_flag_has(f, "--num-virtual-stages-per-pipeline-rank") || vpp;
  vpp = af_flag_has(f, "--pipeline-model-parallel-layout") || vpp;
  af_setb(f, AF_VPP, vpp);
  af_begin(f);
  af_setb(f, AF_DYN_CP, af_flag_on(f, "--dynamic-context-parallel"));
}

static void compute_mode(au_facts *f) {
  af_begin(f);
  bool hybrid = af_flag_on(f, "--hybrid"), fa = af_flag_on(f, "--fully-async");
  bool co = af_flag_on(f, "--colocate");
  const char *mode = hybrid ? "hybrid" : (fa && co) ? "conflict" : fa ? "fully-async"
                     : co   ? "colocate" : "sync";
  af_sets(f, AF_MODE, mode);
  af_setb(f, AF_HYBRID, hybrid);
  af_setb(f, AF_FULLY_ASYNC, fa && !hybrid);
  af_setb(f, AF_COLOCATE, co && !hybrid && !fa);
  af_setb(f, AF_ASYNC, hybrid || fa);
}

static void set_role(au_facts *f, const char *role, double x) {
  char key[80];
  snprintf(key, sizeof key, "res_%s", role);
  af_dyn *d = NULL;
  for (size_t i = 0; i < f->ndyn && !d; i++)
    if (!strcmp(f->dyn[i].name, key)) d = &f->dyn[i];
  if (!d) {
    d = PD_PUSH(f->dyn, f->ndyn, f->capdyn);
    d->name = pd_xstrdup(key);
  }
  d->v = ax_num(x);
  d->cert = f->track.cert;
  d->why = f->track.why;
}

/* --resource {role: [1, gpus]}: GPUs per role; colocated roles share theirs (max), others add.
 * A value that could not be resolved says nothing (null), it is not malformed. */
static void compute_resources(au_facts *f) {
  const sm_model *m = f->m;
  af_begin(f);
  const sm_flag *res = sm_flag_get(m, "--resource");
  af_note_flag(f, res);
  bool unresolved = res && res->nvalues == 1 && !res->values[0].resolved;
  bool res_ok = res && res->json && json_is_object(res->json);
  double g_a = NAN, g_r = NAN, g_total = NAN, sum = 0, mx = 0;
  if (unresolved) af_set(f, AF_RESOURCE_OK, ax_null());
  else af_setb(f, AF_RESOURCE_OK, res_ok);
  if (res_ok) {
    const char *role;
    json_t *v;
    bool shapes_ok = true;
    json_object_foreach(res->json, role, v) {
      double x = role_gpus(v);
      if (isnan(x)) {
        shapes_ok = false;
        continue;
      }
      if (!strcmp(role, "actor")) g_a = x;
      if (!strcmp(role, "rollout")) g_r = x;
      sum += x;
      if (x > mx) mx = x;
      set_role(f, role, x);
    }
    af_setb(f, AF_RESOURCE_SHAPES_OK, shapes_ok);
  }
  bool colocate = af_input(f, AF_COLOCATE) != 0;
  if (res_ok) g_total = colocate ? mx : sum;
  if (isnan(g_a) && af_flag_has(f, "--actor-num-nodes") && af_flag_has(f, "--actor-num-gpus-per-node"))
    g_a = af_flag_num(f, "--actor-num-nodes", NAN) * af_flag_num(f, "--actor-num-gpus-per-node", NAN);
  if (colocate && isnan(g_r) && !isnan(g_a)) g_r = g_a;
  af_setu(f, AF_G_A, g_a);
  af_setu(f, AF_G_R, g_r);
  af_setu(f, AF_G_TOTAL, g_total);
}

/* The job's GPU total (the file name's count when --resource says nothing) and its nodes. */
static void compute_machines(au_facts *f) {
  const sm_model *m = f->m;
  set_flag_numd(f, AF_G_NODE, "--num-gpus-per-node");
  af_begin(f);
  af_setb(f, AF_G_NODE_SET, af_flag_has(f, "--num-gpus-per-node"));
  af_begin(f);
  double name_gpus = m->ctx.name_gpus > 0 ? (double)m->ctx.name_gpus : NAN;
  af_setu(f, AF_NAME_GPUS, name_gpus);
  af_begin(f);
  double gpus = af_input(f, AF_G_TOTAL);
  if (isnan(gpus)) gpus = name_gpus;
  af_setu(f, AF_GPUS, gpus);
  af_begin(f);
  double g_node = af_input(f, AF_G_NODE), nn = af_flag_num(f, "--nnodes", NAN), nodes = NAN, per = NAN;
  gpus = af_input(f, AF_GPUS);
  if (!isnan(gpus) && gpus > 0) {
    double gpn = isnan(g_node) || g_node <= 0 ? 8 : g_node;
    if (!isnan(nn) && nn > 0) {
      nodes = nn;
      per = ceil(gpus / nn);
    } else {
      per = gpus < gpn ? gpus : gpn;
      nodes = ceil(gpus / per);
    }
  }
  af_setu(f, AF_NODES, nodes);
  af_setu(f, AF_GPUS_PER_NODE, per);
}

/* a / b as a group count: null unless b divides a (no "DP 2.67" from a layout Megatron rejects) */
static double group_count(double a, double b) {
  double q = a / b;
  return isfinite(q) && q >= 1 && q == floor(q) ? q : NAN;
}

static void compute_parallel_groups(au_facts *f) {
  af_begin(f);
  double ga = af_input(f, AF_G_A), tp = af_input(f, AF_TP), pp = af_input(f, AF_PP);
  double cp = af_input(f, AF_CP);
  af_setu(f, AF_DP, group_count(ga, tp * pp * cp));
  af_begin(f);
  ga = af_input(f, AF_G_A);
  double etp = af_input(f, AF_ETP), ep = af_input(f, AF_EP);
  pp = af_input(f, AF_PP);
  af_setu(f, AF_EDP, group_count(ga, etp * ep * pp));
  /* invalid only when every number is known and the grid does not divide the actor GPUs */
  af_begin(f);
  ga = af_input(f, AF_G_A);
  double dense = af_input(f, AF_TP) * af_input(f, AF_PP) * af_input(f, AF_CP);
  double expert = af_input(f, AF_ETP) * af_input(f, AF_EP) * af_input(f, AF_PP);
  bool known = isfinite(ga) && isfinite(dense) && isfinite(expert);
  af_setb(f, AF_LAYOUT_VALID, !known || (isfinite(group_count(ga, dense)) &&
                                         isfinite(group_count(ga, expert))));
  set_flag_numd(f, AF_GPE, "--rollout-num-gpus-per-engine");
  af_begin(f);
  af_setu(f, AF_ENGINES, floor(af_input(f, AF_G_R) / af_input(f, AF_GPE)));
  set_flag_numd(f, AF_SPP, "--sglang-pipeline-parallel-size");
  af_begin(f);
  af_setu(f, AF_ROLLOUT_RATIO, af_input(f, AF_G_R) / af_input(f, AF_G_A));
}

/* text | mm | video: the flags first, then the file name, then the model's name. */
static bool any_in(const char *s, const char *const *words) {
  for (; s && words && *words; words++)
    if (strstr(s, *words)) return true;
  return false;
}

static bool any_prefix(const char *s, const char *const *words) {
  for (; s && words && *words; words++)
    if (pd_str_starts(s, *words)) return true;
  return false;
}

/* The job's modality from its flags, file name and model (the knowledge's markers), and whether
 * the model's Hugging Face config is natively multimodal (text_config / thinker_config). */
static void compute_modality(au_facts *f) {
  const sm_model *m = f->m;
  const sm_context *c = &m->ctx;
  const ak_knowledge *k = f->k;
  af_begin(f);
  const char *modality = "text";
  for (size_t i = 0; i < m->nflags; i++) {
    const char *n = m->flags[i].name;
    if (strstr(n, "video")) {
      modality = "video";
      break;
    }
    if (k && (any_in(n, ak_mm_flag_words(k)) || any_prefix(n, ak_mm_flag_prefixes(k)))) modality = "mm";
  }
  if (!strcmp(modality, "text") && c->name_modality) modality = c->name_modality;
  if (!strcmp(modality, "text") && k && any_in(c->model, ak_mm_model_words(k))) modality = "mm";
  af_sets(f, AF_MODEL, c->model ? c->model : c->name_model);
  af_sets(f, AF_MODALITY, modality);
  af_setb(f, AF_MM, strcmp(modality, "text") != 0);
  const ak_family *fam = k ? ak_family_of(k, c->model) : NULL;
  af_setb(f, AF_HF_MULTIMODAL, (fam && fam->hf_multimodal) || (k && any_in(c->model, ak_hf_mm_model_words(k))));
}

static void compute_batch_sizes(au_facts *f) {
  af_begin(f);
  double n = af_flag_numd(f, "--n-samples-per-prompt");
  af_setu(f, AF_N, n);
  af_begin(f);
  double rbs = af_flag_num(f, "--rollout-batch-size", NAN), gbs = af_flag_num(f, "--global-batch-size", NAN);
  n = af_input(f, AF_N);
  if (isnan(rbs) && !isnan(gbs) && !af_flag_has(f, "--rollout-batch-size")) rbs = floor(gbs / n);
  af_setu(f, AF_RBS, rbs);
  af_setu(f, AF_S, rbs * n);
  if (isnan(gbs) && !af_flag_has(f, "--global-batch-size")) {
    double steps = af_flag_num(f, "--num-steps-per-rollout", NAN);
    gbs = isnan(steps) ? rbs * n : floor(rbs * n / steps);
  }
  af_setu(f, AF_GBS, gbs);
  af_begin(f);
  af_setu(f, AF_OS, af_flag_num_or(f, "--over-sampling-batch-size", AF_RBS));
}

static void compute_batching(au_facts *f) {
  compute_batch_sizes(f);
  af_begin(f);
  af_setb(f, AF_DYN, af_flag_on(f, "--use-dynamic-batch-size"));
  set_flag_num(f, AF_T, "--max-tokens-per-gpu", NAN);
  af_begin(f);
  af_setu(f, AF_T_LP, af_flag_num_or(f, "--log-probs-max-tokens-per-gpu", AF_T));
  set_flag_num(f, AF_RESP, "--rollout-max-response-len", NAN);
  set_flag_num(f, AF_PROMPT, "--rollout-max-prompt-len", NAN);
  set_flag_num(f, AF_CTX, "--rollout-max-context-len", NAN);
  af_begin(f);
  double ctx = af_input(f, AF_CTX), prompt, resp;
  if (isnan(ctx)) {
    prompt = af_input(f, AF_PROMPT);
    resp = af_input(f, AF_RESP);
    ctx = !isnan(prompt) && !isnan(resp) ? prompt + resp : NAN;
  }
  af_setu(f, AF_CTX_EFF, ctx);
  set_flag_numd(f, AF_MBS, "--micro-batch-size");
  set_flag_numd(f, AF_NUM_ITERS, "--num-iters-per-train-update");
  set_flag_numd(f, AF_STALENESS, "--max-staleness");
  set_flag_num(f, AF_FRAC, "--sglang-mem-fraction-static", NAN);
}

static double moment_bytes(const char *dtype) {
  return !strcmp(dtype, "fp8") ? 1 : strcmp(dtype, "fp32") ? 2 : 4;
}

/* Optimizer bytes per parameter (catalog D1) and the offload settings. */
static af_mem_cfg compute_optimizer(au_facts *f) {
  af_begin(f);
  af_setb(f, AF_OFFLOAD, af_flag_on(f, "--optimizer-cpu-offload"));
  af_begin(f);
  bool trio = af_flag_on(f, "--optimizer-cpu-offload");
  trio = af_flag_on(f, "--use-precision-aware-optimizer") && trio;
  trio = af_flag_on(f, "--overlap-cpu-optimizer-d2h-h2d") && trio;
  af_setb(f, AF_OFFLOAD_TRIO, trio);
  af_begin(f);
  bool pa = af_flag_on(f, "--use-precision-aware-optimizer");
  const char *mg = af_flag_str(f, "--main-grads-dtype");
  const char *ea = af_flag_str(f, "--exp-avg-dtype");
  const char *eas = af_flag_str(f, "--exp-avg-sq-dtype");
  af_mem_cfg mc = {af_num(f, AF_TP, NAN), af_num(f, AF_PP, NAN), af_num(f, AF_CP, NAN),
                   af_num(f, AF_EP, NAN), af_num(f, AF_ETP, NAN), 2, 4, 12, 0, 1, 1};
  if (af_flag_on(f, "--grad-reduce-in-bf16") || (pa && mg && !strcmp(mg, "bf16"))) mc.g_bytes = 2;
  double master = (pa && !af_flag_on(f, "--no-store-param-remainders")) ? 2 : 4;
  double m1 = pa && ea ? moment_bytes(ea) : 4, m2 = pa && eas ? moment_bytes(eas) : 4;
  mc.opt_bytes = master + m1 + m2;
  double off_frac = af_num(f, AF_OFFLOAD, 0) ? af_flag_numd(f, "--optimizer-offload-fraction") : 0;
  mc.offload_frac = isnan(off_frac) ? 1 : off_frac;
  af_setn(f, AF_OPT_BYTES, mc.opt_bytes);
  /* colocate turns both offloads on unless the script says otherwise (hybrid defaults off) */
  af_begin(f);
  bool co = af_input(f, AF_COLOCATE) != 0, all = af_flag_on(f, "--offload");
  af_setb(f, AF_OFFLOAD_TRAIN, all || af_flag_on(f, "--offload-train") ||
                                   (co && !af_flag_on(f, "--no-offload-train")));
  af_begin(f);
  co = af_input(f, AF_COLOCATE) != 0;
  all = af_flag_on(f, "--offload");
  af_setb(f, AF_OFFLOAD_ROLLOUT, all || af_flag_on(f, "--offload-rollout") ||
                                     (co && !af_flag_on(f, "--no-offload-rollout")));
  return mc;
}

static void compute_runtime(au_facts *f) {
  const sm_model *m = f->m;
  af_begin(f);
  char *a = af_env_scan(m, "PYTORCH_CUDA_ALLOC_CONF");
  if (!a) a = af_env_scan(m, "PYTORCH_ALLOC_CONF");
  af_sets(f, AF_ALLOC_GLOBAL, a ? a : "");
  free(a);
  af_begin(f);
  const sm_flag *tev = sm_flag_get(m, "--train-env-vars");
  af_note_flag(f, tev);
  json_t *x = tev && tev->json ? json_object_get(tev->json, "PYTORCH_CUDA_ALLOC_CONF") : NULL;
  if (!x && tev && tev->json) x = json_object_get(tev->json, "PYTORCH_ALLOC_CONF");
  af_sets(f, AF_ALLOC_TRAIN, json_is_string(x) ? json_string_value(x) : "");
  af_begin(f);
  const char *base = pd_path_base(m->nfiles ? m->files[0].path : "");
  bool debug = false;
  for (const char *const *w = f->k ? ak_debug_name_words(f->k) : NULL; w && *w && !debug; w++)
    debug = strstr(base, *w) != NULL;
  af_setb(f, AF_DEBUG_SCRIPT, debug);
  af_sets(f, AF_SCRIPT_NAME, base);
  af_begin(f);
  af_set(f, AF_SOURCE_MISSING, ax_str(missing_source(m)));
  af_begin(f);
  const char *gran = af_flag_str(f, "--recompute-granularity");
  double rnl = af_flag_numd(f, "--recompute-num-layers"); /* None: every layer */
  af_setb(f, AF_RECOMPUTE_FULL, gran && !strcmp(gran, "full") && !(rnl == 0));
  af_begin(f);
  gran = af_flag_str(f, "--recompute-granularity");
  af_setb(f, AF_RECOMPUTE_SELECTIVE,
          (gran && !strcmp(gran, "selective")) || af_flag_on(f, "--recompute-activations"));
  af_begin(f);
  af_setb(f, AF_SP, af_flag_on(f, "--sequence-parallel") && af_input(f, AF_TP) > 1);
}

/* Why the memory estimate was not made, as a code the report words (md.memory_skipped.<code>);
 * NULL when it was made. */
static const char *memory_skipped(au_facts *f, bool shape_ok, bool layout_ok) {
  if (!af_num(f, AF_TRAINS, 1)) return "no-training";
  if (!af_num(f, AF_MEGATRON, 1)) return "backend";
  if (!shape_ok) return "architecture";
  if (isnan(af_num(f, AF_M, NAN))) return "device";
  if (!layout_ok) return "layout";
  if (isnan(af_num(f, AF_PEAK, NAN))) return "inputs";
  return NULL;
}

au_facts *af_compute(const sm_model *m, const ak_knowledge *k) {
  au_facts *f = pd_xcalloc(1, sizeof *f);
  f->m = m;
  if (!k) {
    char *err = NULL;
    k = f->own_k = ak_builtin(&err);
    if (err) af_assume(f, "%s: model families and job kinds unknown", err);
    free(err);
  }
  f->k = k;
  f->step = AF_STEP_DEVICE;
  const pd_device *g = compute_device(f);
  f->step = AF_STEP_LAYOUT;
  compute_layout(f);
  f->step = AF_STEP_MODE;
  compute_mode(f);
  f->step = AF_STEP_RESOURCES;
  compute_resources(f);
  f->step = AF_STEP_JOB;
  af_compute_job(f);
  f->step = AF_STEP_MACHINES;
  compute_machines(f);
  f->step = AF_STEP_GROUPS;
  compute_parallel_groups(f);
  af_shape s = {0};
  f->step = AF_STEP_SHAPE;
  bool shape_ok = af_read_shape(f, &s);
  f->step = AF_STEP_MODALITY;
  compute_modality(f);
  f->step = AF_STEP_FIXES;
  af_compute_layout_fixes(f);
  f->step = AF_STEP_BATCHING;
  compute_batching(f);
  f->step = AF_STEP_OPTIMIZER;
  af_mem_cfg mc = compute_optimizer(f);
  f->step = AF_STEP_RUNTIME;
  compute_runtime(f);
  bool layout_ok = !isnan(mc.tp) && !isnan(mc.pp) && !isnan(mc.cp) && !isnan(mc.ep) &&
                   !isnan(mc.etp) && mc.tp > 0 && mc.pp > 0 && mc.cp > 0 && mc.ep > 0 && mc.etp > 0 &&
                   af_num(f, AF_LAYOUT_VALID, 1);
  f->step = AF_STEP_MEMORY;
  if (shape_ok && layout_ok) af_compute_memory(f, &s, &mc, g ? g->usable_gib : NAN);
  af_begin(f);
  f->step = AF_STEP_SUMMARY;
  af_setb(f, AF_ARCH_KNOWN, shape_ok);
  af_sets(f, AF_MEMORY_SKIPPED, memory_skipped(f, shape_ok, layout_ok));
  af_begin(f);
  f->step = AF_STEP_CONDITION; /* from here on, the rules read every fact */
  return f;
}
