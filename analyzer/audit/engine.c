/* engine: runs the rule catalog over the facts of one script and turns matches into findings.
 *
 * For each rule: the skip expression, then the first case whose trigger holds; a case with an
 * error band ("ratio") gives applies / borderline / not applicable; a `# NOTE(...)` on the flag
 * downgrades to info (or silences, per rule); user overrides change severity or disable; the
 * finding gets its location, texts (templates filled from facts), baseline anchor and edits. */
#include "audit/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "audit/au_int.h"
#include "audit/edits.h"
#include "audit/facts.h"
#include "audit/suppress.h"
#include "base/alloc.h"
#include "base/data.h"
#include "base/str.h"
#include "base/limits.h"
#include "base/path.h"

/* ---- the rule set ---- */

struct au_rules {
  int refs; /* the loader's plus one per au_result using them */
  ac_catalog *cat;
  ab_baselines *bl;
  au_messages *msgs;
  fc_catalog *flags; /* the built-in flag catalog (NULL only if its data is broken) */
  au_flag_notes *notes;
  ak_knowledge *know; /* model families, words, job kinds (NULL only if its data is broken) */
};

const ac_catalog *au_rules_catalog(const au_rules *rs) { return rs ? rs->cat : NULL; }
const ab_baselines *au_rules_baselines(const au_rules *rs) { return rs ? rs->bl : NULL; }
const au_messages *au_rules_messages(const au_rules *rs) { return rs ? rs->msgs : NULL; }

void au_text_append(pd_buf *b, const au_rules *rules, au_msg_id id, const char *lang,
                    const char *const *args) {
  ax_value a[16];
  size_t n = au_msg_arity(id);
  if (n > sizeof a / sizeof a[0]) n = sizeof a / sizeof a[0];
  for (size_t i = 0; i < n; i++) a[i] = args && args[i] ? ax_str(args[i]) : ax_null();
  au_msg_append(b, au_rules_messages(rules), id, lang, NULL, n ? a : NULL);
}

char *au_text(const au_rules *rules, au_msg_id id, const char *lang, const char *const *args) {
  pd_buf b = {0};
  au_text_append(&b, rules, id, lang, args);
  return pd_buf_take(&b);
}
const fc_catalog *au_rules_flags(const au_rules *rs) { return rs ? rs->flags : NULL; }
const au_flag_notes *au_rules_notes(const au_rules *rs) { return rs ? rs->notes : NULL; }

static void load_user_rules(au_rules *rs, const char *path, char ***errors, size_t *nerrors,
                            size_t *cap) {
  size_t n = 0;
  char *user = pd_read_file(path, PD_MAX_FILE_BYTES, &n);
  if (!user) {
    *PD_PUSH(*errors, *nerrors, *cap) = pd_xasprintf("%s: cannot read rule file", path);
    return;
  }
  ac_load(rs->cat, user, n, path, errors, nerrors, cap);
  free(user);
}

au_rules *au_rules_load(const char *extra_rules, char ***errors, size_t *nerrors) {
  au_rules *rs = pd_xcalloc(1, sizeof *rs);
  rs->refs = 1;
  size_t cap = *nerrors; /* the caller's array may be full: grow from its length */
  rs->cat = ac_new();
  size_t len = 0;
  char *text = pd_data_text("rules.json", &len);
  /* the built-in templates compile (tests/audit/test_messages.c checks every one): each is
     compiled when a finding first needs it */
  rs->cat->lazy_templates = true;
  if (text) ac_load(rs->cat, text, len, "built-in rules", errors, nerrors, &cap);
  else *PD_PUSH(*errors, *nerrors, cap) = pd_xstrdup("built-in rule catalog not found");
  rs->cat->lazy_templates = false;
  free(text);
  text = pd_data_text("messages.json", &len);
  rs->msgs = au_messages_load(text, len, errors, nerrors, &cap);
  free(text);
  if (extra_rules) load_user_rules(rs, extra_rules, errors, nerrors, &cap);
  rs->bl = ab_load();
  char *err = NULL;
  rs->flags = fc_builtin(&err);
  if (err) *PD_PUSH(*errors, *nerrors, cap) = err;
  rs->notes = au_flag_notes_load(errors, nerrors, &cap);
  rs->know = ak_builtin(&err);
  if (err) *PD_PUSH(*errors, *nerrors, cap) = err;
  return rs;
}

void au_rules_free(au_rules *rs) {
  if (!rs || --rs->refs > 0) return;
  ab_free(rs->bl);
  fc_free(rs->flags);
  au_flag_notes_free(rs->notes);
  ak_free(rs->know);
  ac_free(rs->cat);
  au_messages_free(rs->msgs);
  free(rs);
}

/* ---- one analysis ---- */

typedef struct {
  au_finding *items;
  size_t n, cap;
} finding_list;

typedef struct {
  const sm_model *m;
  au_facts *facts;
  const ax_env *env;
  const au_config *cfg;
  const au_rules *rules;
  const char *lang;
  finding_list *out;
} run_ctx;

static char *msg(const run_ctx *x, au_msg_id id, const ax_value *args) {
  return au_msg(x->rules->msgs, id, x->lang, x->env, args);
}

/* The Setting line: the flag with its values and where it is set. */
static char *setting_text(const run_ctx *x, const sm_flag *fl, const char *flag_name) {
  const sm_model *m = x->m;
  if (!fl) {
    if (!flag_name) return msg(x, AU_MSG_SETTING_WHOLE, NULL);
    ax_value a = ax_str(flag_name);
    return msg(x, AU_MSG_SETTING_NOT_SET, &a);
  }
  pd_buf v = {0}, place = {0};
  pd_buf_printf(&v, "`%s", fl->name);
  const char *unset = NULL; /* an unset variable shows as written, `${NAME}`, not as nothing */
  for (size_t i = 0; i < fl->nvalues && i < 8; i++) {
    const sm_value *val = &fl->values[i];
    const sm_file *src = val->file >= 0 && (size_t)val->file < m->nfiles ? &m->files[val->file] : NULL;
    if (val->unset_var && src && val->range.end_byte <= src->len) {
      pd_buf_putc(&v, ' ');
      pd_buf_append(&v, src->text + val->range.start_byte, val->range.end_byte - val->range.start_byte);
      if (!unset) unset = val->unset_var;
    } else {
      pd_buf_printf(&v, " %s", val->text);
    }
  }
  if (fl->nvalues > 8) pd_buf_puts(&v, " …");
  pd_buf_puts(&v, "`");
  const char *path = fl->file >= 0 && (size_t)fl->file < m->nfiles ? m->files[fl->file].path : "";
  ax_value at[2] = {ax_str(pd_path_base(path)), ax_num(fl->full.start_line + 1)};
  au_msg_append(&place, x->rules->msgs, fl->file != 0 ? AU_MSG_SETTING_FILE_LINE : AU_MSG_SETTING_LINE,
                x->lang, x->env, fl->file != 0 ? at : at + 1);
  ax_value group = ax_str(fl->group);
  if (fl->group) au_msg_append(&place, x->rules->msgs, AU_MSG_SETTING_GROUP, x->lang, x->env, &group);
  if (fl->conditional) au_msg_append(&place, x->rules->msgs, AU_MSG_SETTING_CONDITIONAL, x->lang, x->env, NULL);
  ax_value un = ax_str(unset);
  if (unset) au_msg_append(&place, x->rules->msgs, AU_MSG_SETTING_UNSET, x->lang, x->env, &un);
  ax_value w[2] = {ax_str(v.data), ax_str(place.data)};
  char *s = msg(x, AU_MSG_SETTING_WHERE, w);
  pd_buf_free(&v);
  pd_buf_free(&place);
  return s;
}

static bool overridden_severity(const au_config *cfg, const char *id, int *sev) {
  bool found = false;
  for (size_t i = 0; i < cfg->noverrides; i++)
    if (cfg->overrides[i].rule && !strcmp(cfg->overrides[i].rule, id)) {
      *sev = cfg->overrides[i].severity;
      found = true;
    }
  return found;
}

/* Wraps f->cost in message id ({cost} and one more argument). */
static void wrap_cost(const run_ctx *x, au_finding *f, au_msg_id id, const char *extra) {
  ax_value a[2] = {ax_str(f->cost), ax_str(extra)};
  char *s = msg(x, id, a);
  free(f->cost);
  f->cost = s;
}

static au_related *add_related(au_finding *f, size_t *cap, int file, sm_range r, char *message) {
  au_related *rel = PD_PUSH(f->related, f->nrelated, *cap);
  rel->file = file;
  rel->range = r;
  rel->message = message;
  return rel;
}

/* Where the finding points: the flag, else the variable's assignment, else the `source` line
 * or the train command. */
static void place_finding(const run_ctx *x, au_finding *f, const ac_rule *r, const sm_flag *loc,
                          const sm_var *var) {
  const sm_model *m = x->m;
  if (loc) {
    f->file = loc->file;
    f->range = loc->full;
  } else if (var) {
    free(f->setting);
    ax_value a[3] = {ax_str(var->name), ax_str(var->value), ax_num(var->range.start_line + 1)};
    f->setting = msg(x, AU_MSG_SETTING_VARIABLE, a);
    f->file = var->file;
    f->range = var->range;
  } else if (r->anchor_source && m->source_file >= 0) {
    f->file = m->source_file;
    f->range = m->source_range;
  } else {
    f->file = m->train_line_found ? m->train_file : 0;
    f->range = m->train_line_found ? m->train_range : sm_range_at(m, 0, 0, 0);
    if (m->train_line_found) {
      /* the first line of the command, not the whole pipeline: a quick fix is offered anywhere
       * on it */
      const sm_file *tf = &m->files[f->file];
      uint32_t l = f->range.start_line;
      uint32_t end = l + 1 < tf->nlines ? tf->lines[l + 1] - 1 : (uint32_t)tf->len;
      if (end > f->range.end_byte) end = f->range.end_byte;
      if (end <= f->range.start_byte) end = f->range.start_byte + 1;
      f->range = sm_range_at(m, f->file, f->range.start_byte, end);
    }
  }
}

/* The reasons a finding is shown below its severity, appended to its Cost line. */
static void explain_downgrades(const run_ctx *x, au_finding *f, const sm_flag *loc, bool noted,
                               bool conditional, bool no_train, size_t *relcap) {
  if (noted) {
    ax_value a = ax_str(loc->note);
    add_related(f, relcap, loc->note_file, loc->note_range, msg(x, AU_MSG_RELATED_NOTE, &a));
    wrap_cost(x, f, AU_MSG_COST_NOTED, loc->note);
  }
  if (conditional) wrap_cost(x, f, AU_MSG_COST_CONDITIONAL, NULL);
  if (no_train) wrap_cost(x, f, AU_MSG_COST_NO_TRAIN, NULL);
  if (f->borderline) wrap_cost(x, f, AU_MSG_COST_BORDERLINE, NULL);
}

/* The model config's flags the finding rests on, for rules that say "related": "model-config". */
static void relate_model_config(const run_ctx *x, const ac_rule *r, au_finding *f, size_t *relcap) {
  const sm_model *m = x->m;
  if (!r->related_config || m->source_file < 0) return;
  const sm_flag *arch = sm_flag_get(m, "--num-experts");
  if (!arch) arch = sm_flag_get(m, "--num-layers");
  if (!arch || arch->file == f->file) return;
  ax_value a = ax_str(arch->name);
  add_related(f, relcap, arch->file, arch->full, msg(x, AU_MSG_RELATED_ARCH, &a));
}

static void fill_texts(const run_ctx *x, au_finding *f, const ac_rule *r, const ac_case *c) {
  f->title = pd_xstrdup(ac_tr(&r->title, x->lang));
  f->why = pd_xstrdup(ac_tr(&r->why, x->lang));
  f->fix = pd_xstrdup(ac_tr(&r->fix, x->lang));
  f->skip_if = pd_xstrdup(ac_tr(&r->skip_if, x->lang));
  f->verified = r->verified ? pd_xstrdup(r->verified) : NULL;
  pd_buf cost = {0};
  at_render(&cost, ac_tpl_in(&c->cost, x->lang), x->env, NULL);
  f->cost = pd_buf_take(&cost);
}

/* The number the case's fix sets `flag` to, NAN when it sets none: a baseline is cited only when
 * it agrees with the fix. */
static double fix_value(const run_ctx *x, const ac_case *c, const char *flag) {
  for (size_t i = 0; flag && i < c->nedits; i++) {
    const ac_edit *e = &c->edits[i];
    if (e->op != AC_SET || !e->value || !e->flag || strcmp(e->flag, flag)) continue;
    pd_buf b = {0};
    bool unknown = false;
    at_render(&b, e->value, x->env, &unknown);
    double v = NAN;
    if (!unknown && b.data && !pd_parse_double(b.data, &v)) v = NAN;
    pd_buf_free(&b);
    return v;
  }
  return NAN;
}

/* What the inputs of a trigger were, as surely as the least certain of them is known. */
typedef struct {
  sm_cert cert;
  const sm_flag *why;
} inputs;

/* The finding rests on an option argparse refuses or Relax ignores (sm_flag_broken): its fix
 * would be built on a value the script does not set, so it is never applied unasked. */
static bool rests_on_broken(inputs in) {
  return in.why && in.cert == SM_CERT_UNRESOLVED &&
         (sm_argp_ignored(in.why->argp) || sm_argp_fails(in.why->argp));
}

static void fill_fix(const run_ctx *x, au_finding *f, const ac_rule *r, const ac_case *c,
                     const sm_flag *loc, inputs in, const sm_condition *at) {
  char *anchor = ab_anchor(x->rules->bl, x->rules->msgs, x->facts, f->flag,
                           fix_value(x, c, f->flag), x->lang);
  if (anchor) wrap_cost(x, f, AU_MSG_COST_BASELINE, anchor);
  free(anchor);
  /* a condition about one flag occurrence: its edits may remove that occurrence */
  if (!loc && at && at->flag_index >= 0 && (size_t)at->flag_index < x->m->nflags)
    loc = &x->m->flags[at->flag_index];
  au_build_edits(f, x->m, c, x->env, loc, x->lang, x->rules->msgs);
  f->safe = c->safe && f->nedits > 0 && !rests_on_broken(in);
  f->preferred = f->nedits > 0;
  if (!f->nedits) return;
  const at_tpl *t = ac_tpl_in(&c->fix_title, x->lang);
  if (t) {
    pd_buf b = {0};
    at_render(&b, t, x->env, NULL);
    f->fix_title = pd_buf_take(&b);
  } else {
    ax_value a[2] = {ax_str(r->id), ax_str(f->title)};
    f->fix_title = msg(x, AU_MSG_FIX_TITLE, a);
  }
}

/* The line a value's uncertainty comes from: its variable's assignment, else the flag. */
static long uncertain_line(const run_ctx *x, const sm_flag *fl, const char *var) {
  const sm_var *v = var ? sm_var_get(x->m, var) : NULL;
  if (v && v->file >= 0) return (long)v->range.start_line + 1;
  return (long)fl->full.start_line + 1;
}

/* A sentence saying which input is uncertain and where it is set; NULL for literal inputs. */
static char *uncertainty(const run_ctx *x, inputs in, bool critical, const sm_condition *at) {
  if (in.cert == SM_CERT_LITERAL || (in.cert == SM_CERT_DEFAULT && !critical)) return NULL;
  if (!in.why) return in.cert < SM_CERT_DEFAULT ? msg(x, AU_MSG_CERT_OTHER, NULL) : NULL;
  bool self = at && at->flag_index >= 0 && in.why == &x->m->flags[at->flag_index];
  if (!self && rests_on_broken(in)) {
    ax_value b[3] = {ax_str(in.why->name), ax_str(in.why->intended ? in.why->intended : in.why->name),
                     ax_num((double)in.why->range.start_line + 1)};
    return msg(x, sm_argp_fails(in.why->argp) ? AU_MSG_CERT_ARGP_REFUSED : AU_MSG_CERT_ARGP_UNKNOWN, b);
  }
  const char *var = in.why->cert_var;
  ax_value a[3] = {ax_str(in.why->name), ax_str(var ? var : in.why->name),
                   ax_num((double)uncertain_line(x, in.why, var))};
  switch (in.cert) {
  case SM_CERT_DEFAULT: return var ? msg(x, AU_MSG_CERT_DEFAULT, a) : NULL;
  case SM_CERT_BRANCH:
    if (var) return msg(x, AU_MSG_CERT_BRANCH_VAR, a);
    a[1] = a[2];
    return msg(x, AU_MSG_CERT_BRANCH, a);
  case SM_CERT_COMMAND: return msg(x, AU_MSG_CERT_COMMAND, a);
  default:
    a[1] = a[2];
    return msg(x, AU_MSG_CERT_UNRESOLVED, a);
  }
}

char *au_cert_text(const au_result *r, sm_cert cert, const sm_flag *why, const char *lang) {
  ax_env env = af_env(r->facts);
  run_ctx x = {.m = r->model, .facts = r->facts, .env = &env, .rules = r->rules, .lang = lang};
  inputs in = {cert, why};
  return uncertainty(&x, in, false, NULL);
}

/* The Setting line of a finding about a script-model condition: its text, on one line. */
static char *condition_setting(const run_ctx *x, const sm_condition *at) {
  const sm_model *m = x->m;
  /* what argparse said about one flag occurrence: the occurrence, as a finding on a flag shows it */
  if (at->flag_index >= 0 && (size_t)at->flag_index < m->nflags && strcmp(at->code, "value-vanished"))
    return setting_text(x, &m->flags[at->flag_index], m->flags[at->flag_index].name);
  pd_buf t = {0};
  if (at->flag) pd_buf_printf(&t, "%s ", at->flag);
  if (at->file >= 0 && (size_t)at->file < m->nfiles) {
    const sm_file *fl = &m->files[at->file];
    uint32_t a = at->range.start_byte, z = at->range.end_byte;
    if (a == z && at->opener) { /* bash names the end of the file: show what was left open */
      a = at->opened.start_byte;
      z = (uint32_t)fl->len;
    }
    if (z > fl->len) z = (uint32_t)fl->len;
    if (z - a > 60) z = a + 60;
    for (uint32_t i = a; i < z && fl->text[i] != '\n'; i++) pd_buf_putc(&t, fl->text[i]);
  }
  ax_value a[2] = {ax_str(t.data ? t.data : ""), ax_num((double)at->range.start_line + 1)};
  char *s = msg(x, AU_MSG_SETTING_CONDITION, a);
  pd_buf_free(&t);
  return s;
}

/* The first of the rule's "intent" words the script states (fact `intent`, a comma list). */
static const char *stated_intent(const run_ctx *x, const ac_rule *r) {
  const char *all = af_str(x->facts, AF_INTENT);
  for (size_t i = 0; all && i < r->nintents; i++) {
    size_t k = strlen(r->intents[i]);
    for (const char *p = strstr(all, r->intents[i]); p; p = strstr(p + 1, r->intents[i]))
      if ((p == all || p[-1] == ',') && (p[k] == ',' || p[k] == '\0')) return r->intents[i];
  }
  return NULL;
}

/* The finding of case c, unless a NOTE silences it; at: the condition it is about, or NULL. */
static void report_case(const run_ctx *x, const ac_rule *r, const ac_case *c, bool borderline,
                        int severity, inputs in, const sm_condition *at) {
  const sm_model *m = x->m;
  const sm_flag *loc = at ? NULL : au_first_present(m, c->at, c->nat);
  const sm_var *var = NULL;
  if (!at && !loc && c->at_env) {
    var = sm_var_get(m, c->at_env);
    if (var && (var->file < 0 || (size_t)var->file >= m->nfiles)) var = NULL;
  }
  if (!at && !loc && !var) loc = au_first_present(m, r->at, r->nat);
  /* the flag the finding is about even when absent (for the Setting line) */
  const char *flag_name = c->nat ? c->at[0] : r->nat ? r->at[0] : NULL;
  bool noted = loc && loc->note;
  if (noted && r->note_skips) return;
  const char *intent = stated_intent(x, r);
  /* an info about production throughput says nothing to a script stated to be a smoke test */
  if (intent && severity == AU_INFO) return;
  /* about a sourced file's own text: that file's report says it, once */
  if (r->file_local && at && at->file > 0 && severity == AU_INFO) return;
  au_finding *f = PD_PUSH(x->out->items, x->out->n, x->out->cap);
  memset(f, 0, sizeof *f);
  f->severity_before = -1;
  f->rule = pd_xstrdup(r->id);
  f->category = pd_xstrdup(r->category);
  /* a flag set only in an if/case branch may not be passed at all: say so, at info */
  bool conditional = loc && loc->conditional;
  /* without a train command the arrays were only assumed to be passed: nothing is certain */
  bool no_train = !m->train_line_found && !r->about_file;
  if (borderline || noted || conditional || no_train || intent) severity = AU_INFO;
  /* critical only when every input is known: a job that may start fine is not a failure */
  bool capped = severity == AU_CRITICAL && in.cert < SM_CERT_DEFAULT;
  if (capped) severity = AU_WARN;
  f->severity = (au_severity)severity;
  f->borderline = borderline;
  f->certainty = in.cert;
  fill_texts(x, f, r, c);
  /* a condition about one flag occurrence (an unknown spelling, a missing value) is about it */
  const char *cond_flag = at ? at->flag : NULL;
  f->flag = loc ? pd_xstrdup(loc->name) : cond_flag ? pd_xstrdup(cond_flag) : flag_name ? pd_xstrdup(flag_name) : NULL;
  f->setting = at ? condition_setting(x, at) : setting_text(x, loc, flag_name);
  if (at) {
    f->file = at->file;
    f->range = at->range;
  } else {
    place_finding(x, f, r, loc, var);
  }
  size_t relcap = 0;
  explain_downgrades(x, f, loc, noted, conditional, no_train, &relcap);
  if (intent) wrap_cost(x, f, AU_MSG_COST_INTENT, intent);
  char *why = uncertainty(x, in, severity == AU_CRITICAL || capped, at);
  if (why) wrap_cost(x, f, AU_MSG_COST_CERT, why);
  free(why);
  relate_model_config(x, r, f, &relcap);
  fill_fix(x, f, r, c, loc, in, at);
}

/* The rule's cases on the facts as they are (about condition `at`, or NULL). */
static void eval_cases(const run_ctx *x, const ac_rule *r, bool has_ov, int ov,
                       const sm_condition *at) {
  af_track_begin(x->facts);
  if (r->skip && ax_truth(ax_eval(r->skip, x->env)) == 1) return;
  inputs skip_in;
  skip_in.cert = af_track_end(x->facts, &skip_in.why);
  for (size_t ci = 0; ci < r->ncases; ci++) {
    const ac_case *c = &r->cases[ci];
    af_track_begin(x->facts);
    if (skip_in.cert < SM_CERT_LITERAL) af_note(x->facts, skip_in.cert, skip_in.why);
    if (ax_truth(ax_eval(c->when, x->env)) != 1) continue;
    bool borderline = false;
    if (c->ratio) {
      ax_value rv = ax_eval(c->ratio, x->env);
      if (rv.kind != AX_NUM || rv.num <= 1 - c->band) continue;
      borderline = rv.num <= 1 + c->band;
    }
    inputs in;
    in.cert = af_track_end(x->facts, &in.why);
    /* a condition about a flag holds as surely as the flag is passed */
    if (at && at->cert < in.cert) {
      in.cert = at->cert;
      in.why = at->flag_index >= 0 && (size_t)at->flag_index < x->m->nflags ? &x->m->flags[at->flag_index] : in.why;
    }
    int sev = has_ov ? ov : c->severity >= 0 ? c->severity : (int)r->severity;
    report_case(x, r, c, borderline, sev, in, at);
    /* rules whose triggers are independent ("any of") report every case that holds; the
     * others only the first (a NOTE that silences it silences the rule) */
    if (!r->each) return;
  }
}

static bool reports_code(const ac_rule *r, const char *code) {
  for (size_t i = 0; i < r->nconditions; i++)
    if (!strcmp(r->conditions[i], code)) return true;
  return false;
}

/* Whether the rule applies to this kind of job ("modes", "needs"). */
static bool applies(const run_ctx *x, const ac_rule *r) {
  if (r->needs_engine && !af_num(x->facts, AF_ROLLOUT_ENGINE, 1)) return false;
  if (r->needs_train && !af_num(x->facts, AF_TRAINS, 1)) return false;
  if (r->needs_megatron && !af_num(x->facts, AF_MEGATRON, 1)) return false;
  if (!r->nmodes) return true;
  const char *job = af_str(x->facts, AF_JOB);
  for (size_t i = 0; job && i < r->nmodes; i++)
    if (!strcmp(r->modes[i], job)) return true;
  return false;
}

static void eval_rule(const run_ctx *x, const ac_rule *r) {
  if (!applies(x, r)) return;
  int ov = r->forced_severity;
  bool has_ov = ov >= 0;
  has_ov = overridden_severity(x->cfg, r->id, &ov) || has_ov;
  if (has_ov && ov < 0) return;
  if (!r->nconditions) {
    eval_cases(x, r, has_ov, ov, NULL);
    return;
  }
  for (size_t i = 0; i < x->m->nconds; i++) {
    const sm_condition *c = &x->m->conds[i];
    if (!reports_code(r, c->code)) continue;
    af_condition(x->facts, c);
    eval_cases(x, r, has_ov, ov, c);
  }
  af_condition(x->facts, NULL);
}

static int cmp_findings(const void *a, const void *b) {
  const au_finding *x = a, *y = b;
  if (x->severity != y->severity) return (int)y->severity - (int)x->severity;
  if (x->file != y->file) return x->file - y->file;
  if (x->range.start_line != y->range.start_line)
    return x->range.start_line < y->range.start_line ? -1 : 1;
  return strcmp(x->rule, y->rule);
}

/* Where finding place (file, byte) stands in file `in`: itself, or the `source` line of its
 * ancestor there; UINT32_MAX when neither file sources the other. */
static uint32_t point_in(const sm_model *m, int file, uint32_t at, int in) {
  for (int k = file, hops = 0; k >= 0 && (size_t)k < m->nfiles && hops < 64; hops++) {
    if (k == in) return at;
    at = m->files[k].source_range.start_byte;
    k = m->files[k].parent;
  }
  return UINT32_MAX;
}

/* After a syntax error bash reports, bash runs nothing past it (an unclosed construct: past its
 * opening): the findings placed there, and those about the script as a whole, rest on a reading
 * bash never makes. They are suppressed and marked; the syntax finding itself stays. */
static void after_syntax(au_result *r) {
  const sm_model *m = r->model;
  const sm_condition *c = NULL;
  for (size_t i = 0; i < m->nconds && !c; i++)
    if (!strcmp(m->conds[i].code, "syntax") && m->conds[i].bash) c = &m->conds[i];
  if (!c) return;
  sm_range place = c->opener && c->opened.start_byte < c->range.start_byte ? c->opened : c->range;
  const sm_file *cf = &m->files[c->file];
  uint32_t from = place.start_line < cf->nlines ? cf->lines[place.start_line] : place.start_byte; /* its line */
  for (size_t i = 0; i < r->nfindings; i++) {
    au_finding *f = &r->findings[i];
    if (f->file == c->file && f->range.start_byte == c->range.start_byte && f->range.end_byte == c->range.end_byte)
      continue; /* the syntax error itself */
    bool whole = f->range.start_byte == 0 && f->range.end_byte == 0;
    uint32_t at = point_in(m, f->file, f->range.start_byte, c->file);
    uint32_t src = point_in(m, c->file, from, f->file); /* c in a file f's file sources */
    bool after = whole || (at != UINT32_MAX && at >= from) || (src != UINT32_MAX && f->range.start_byte >= src);
    if (after) f->suppressed = f->after_syntax = true;
  }
}

static void finding_free(au_finding *f);

/* The infos of a "group" rule after its first become related places of the first: one cause,
 * one finding (the editor still marks every place). */
static void group_findings(const run_ctx *x) {
  finding_list *out = x->out;
  for (size_t h = 0; h < out->n; h++) {
    au_finding *head = &out->items[h];
    const ac_rule *r = ac_find(x->rules->cat, head->rule);
    if (!r || !r->group || head->severity != AU_INFO) continue;
    size_t cap = head->nrelated, n = 0, keep = h + 1;
    pd_buf names = {0};
    for (size_t i = h + 1; i < out->n; i++) {
      au_finding *g = &out->items[i];
      if (strcmp(g->rule, head->rule) || g->severity != AU_INFO) {
        out->items[keep++] = *g;
        continue;
      }
      const char *name = g->flag ? g->flag : g->rule;
      pd_buf_printf(&names, "%s`%s`", n++ ? ", " : "", name);
      ax_value a[1] = {ax_str(name)};
      add_related(head, &cap, g->file, g->range, msg(x, AU_MSG_RELATED_GROUP, a));
      finding_free(g);
    }
    out->n = keep;
    if (n) {
      ax_value a[3] = {ax_str(head->cost), ax_num((double)n), ax_str(names.data)};
      char *s = msg(x, AU_MSG_COST_GROUP, a);
      free(head->cost);
      head->cost = s;
    }
    pd_buf_free(&names);
  }
}

au_result *au_run(const char *path, const char *text, size_t len, const TSTree *tree,
                  const au_config *cfg) {
  static const au_config defaults = {0};
  if (!cfg) cfg = &defaults;
  sm_options opt = {0};
  opt.model_config_dir = cfg->model_config_dir;
  opt.gpu = cfg->gpu;
  opt.reader = cfg->reader;
  opt.workspace_root = cfg->workspace_root;
  opt.cache = cfg->cache;
  opt.resume = cfg->resume;
  opt.env = cfg->env;
  opt.nenv = cfg->nenv;
  opt.args = cfg->args;
  opt.nargs = cfg->nargs;
  au_result *r = pd_xcalloc(1, sizeof *r);
  au_rules *rules = (au_rules *)cfg->rules; /* only the reference count changes */
  if (rules) rules->refs++;
  else rules = au_rules_load(cfg->extra_rules, &r->errors, &r->nerrors);
  r->rules = rules;
  opt.catalog = cfg->catalog ? cfg->catalog : rules->flags;
  r->model = sm_build(path, text, len, tree, &opt);
  r->facts = af_compute(r->model, rules->know);
  ax_env env = af_env(r->facts);
  finding_list out = {0};
  run_ctx x = {r->model, r->facts, &env, cfg, rules, cfg->lang ? cfg->lang : "en", &out};
  /* Not a launch script: nothing to say. One whose flags are not seen (a quote left open
   * swallowed them): only what the model noticed about the file. */
  bool launch = r->model->launch_script;
  bool flags_seen = r->model->train_line_found || r->model->nflags > 0;
  for (size_t i = 0; launch && i < rules->cat->n; i++)
    if (flags_seen || rules->cat->rules[i].nconditions) eval_rule(&x, &rules->cat->rules[i]);
  group_findings(&x);
  if (out.n) qsort(out.items, out.n, sizeof *out.items, cmp_findings);
  r->findings = out.items;
  r->nfindings = out.n;
  as_apply(r);
  after_syntax(r);
  return r;
}

size_t au_rules_count(const au_rules *rules) { return rules ? rules->cat->n : 0; }

const char *au_rule_id(const au_rules *rules, size_t i) {
  return rules && i < rules->cat->n ? rules->cat->rules[i].id : NULL;
}

json_t *au_rule_json(const au_rules *rules, size_t i) {
  if (!rules || i >= rules->cat->n || !rules->cat->rules[i].json) return NULL;
  const ac_rule *r = &rules->cat->rules[i];
  json_t *j = json_deep_copy(r->json);
  static const char *const names[] = {"info", "warn", "critical"};
  if (r->forced_severity >= 0 && r->forced_severity <= 2)
    json_object_set_new(j, "severity", json_string(names[r->forced_severity]));
  return j;
}

const json_t *au_rule_evidence(const au_rules *rules, const char *id) {
  const ac_rule *r = rules && id ? ac_find(rules->cat, id) : NULL;
  return r && r->json ? json_object_get(r->json, "evidence") : NULL;
}

bool au_rule_needs_engine(const au_rules *rules, const char *id) {
  for (size_t i = 0; rules && id && i < rules->cat->n; i++)
    if (!strcmp(rules->cat->rules[i].id, id)) return rules->cat->rules[i].needs_engine;
  return false;
}

bool au_reports_condition(const au_result *r, const char *code) {
  const ac_catalog *cat = r->rules ? r->rules->cat : NULL;
  for (size_t i = 0; code && cat && i < cat->n; i++)
    if (reports_code(&cat->rules[i], code)) return true;
  return false;
}

static void finding_free(au_finding *f) {
  free(f->rule);
  free(f->category);
  free(f->title);
  free(f->why);
  free(f->setting);
  free(f->cost);
  free(f->fix);
  free(f->skip_if);
  free(f->verified);
  free(f->flag);
  free(f->fix_title);
  free(f->evidence);
  for (size_t i = 0; i < f->nrelated; i++) free(f->related[i].message);
  free(f->related);
  for (size_t i = 0; i < f->nedits; i++) free(f->edits[i].new_text);
  free(f->edits);
}

void au_result_free(au_result *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nfindings; i++) finding_free(&r->findings[i]);
  free(r->findings);
  for (size_t i = 0; i < r->nerrors; i++) free(r->errors[i]);
  free(r->errors);
  af_free(r->facts);
  if (r->model) sm_model_free(r->model);
  au_rules_free(r->rules);
  free(r);
}
