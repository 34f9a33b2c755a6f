/* report: the renderers of audit.h: markdown in the fixed template of report-template.md §1,
 * JSON, SARIF 2.1.0. Lines and columns in JSON and SARIF are 1-based; columns count characters,
 * as in the `context` output. The words are messages (audit/messages.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/au_int.h"
#include "audit/facts.h"
#include "base/alloc.h"
#include "base/path.h"

static const char *sev_tag(au_severity s) {
  return s == AU_CRITICAL ? "CRITICAL" : s == AU_WARN ? "WARN" : "INFO";
}
static const char *sev_name(au_severity s) {
  return s == AU_CRITICAL ? "critical" : s == AU_WARN ? "warn" : "info";
}


static const char *file_path(const sm_model *m, int file) {
  return file >= 0 && (size_t)file < m->nfiles ? m->files[file].path : "";
}

/* Findings by severity (suppressed ones apart); returns the number suppressed. */
static size_t count(const au_result *r, size_t n[3]) {
  size_t sup = 0;
  n[0] = n[1] = n[2] = 0;
  for (size_t i = 0; i < r->nfindings; i++) {
    if (r->findings[i].suppressed) sup++;
    else n[r->findings[i].severity]++;
  }
  return sup;
}

/* The finding the summary recommends first: the most severe, config errors before others. */
static const au_finding *top(const au_result *r) {
  const au_finding *best = NULL;
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    if (f->suppressed) continue;
    if (!best || f->severity > best->severity ||
        (f->severity == best->severity && !strcmp(f->category, "config") &&
         strcmp(best->category, "config") != 0))
      best = f;
  }
  return best;
}

/* ---- markdown ---- */

typedef struct {
  pd_buf *b;
  const au_messages *ms;
  const char *lang;
  ax_env env;
} md_out;

static void md(md_out *o, au_msg_id id, const ax_value *args) {
  au_msg_append(o->b, o->ms, id, o->lang, &o->env, args);
}

static void context_line(md_out *o, const au_result *r) {
  md(o, AU_MSG_MD_CONTEXT, NULL);
  md(o, isnan(af_num(r->facts, AF_GPUS, NAN)) ? AU_MSG_MD_CONTEXT_NO_GPUS : AU_MSG_MD_CONTEXT_GPUS, NULL);
  md(o, AU_MSG_MD_CONTEXT_REST, NULL);
}

static void finding_md(md_out *o, const au_finding *f) {
  ax_value a[9] = {ax_str(sev_tag(f->severity)), ax_str(f->rule), ax_str(f->title), ax_str(f->setting),
                   ax_str(f->cost), ax_str(f->fix), ax_str(f->skip_if), ax_str(f->evidence ? f->evidence : ""),
                   ax_str(f->evidence_verdict ? f->evidence_verdict : "")};
  md(o, AU_MSG_MD_FINDING, a);
}

/* Why the memory estimate is missing, when it is: said before the memory findings. */
static bool memory_skipped(md_out *o, const au_result *r) {
  static const struct {
    const char *code;
    au_msg_id id;
  } reasons[] = {{"no-training", AU_MSG_MEM_SKIP_NO_TRAINING}, {"backend", AU_MSG_MEM_SKIP_BACKEND},
                 {"architecture", AU_MSG_MEM_SKIP_ARCH},       {"device", AU_MSG_MEM_SKIP_DEVICE},
                 {"layout", AU_MSG_MEM_SKIP_LAYOUT},           {"inputs", AU_MSG_MEM_SKIP_INPUTS}};
  const char *code = af_str(r->facts, AF_MEMORY_SKIPPED);
  for (size_t i = 0; code && i < sizeof reasons / sizeof *reasons; i++) {
    if (strcmp(code, reasons[i].code)) continue;
    char *why = au_msg(o->ms, reasons[i].id, o->lang, &o->env, NULL);
    ax_value a = ax_str(why);
    md(o, AU_MSG_MD_MEM_SKIPPED, &a);
    free(why);
    return true;
  }
  return false;
}

/* Config errors stop the job from starting: they lead the performance section. */
static void md_findings(md_out *o, const au_result *r, bool memory, bool said) {
  size_t shown = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < r->nfindings; i++) {
      const au_finding *f = &r->findings[i];
      if (f->suppressed) continue;
      bool is_memory = !strcmp(f->category, "memory"), config = !strcmp(f->category, "config");
      if (memory ? (pass || !is_memory) : (is_memory || (pass == 0) != config)) continue;
      finding_md(o, f);
      shown++;
    }
  if (!shown && !said) md(o, AU_MSG_MD_NONE, NULL);
}

char *au_report_markdown(const au_result *r, const char *lang) {
  pd_buf b = {0};
  md_out o = {&b, au_rules_messages(r->rules), lang, af_env(r->facts)};
  const sm_model *m = r->model;
  ax_value script = ax_str(pd_path_base(m && m->nfiles ? m->files[0].path : "script"));
  md(&o, AU_MSG_MD_TITLE, &script);
  if (!m->launch_script) {
    md(&o, AU_MSG_NOT_LAUNCH, NULL);
    pd_buf_puts(&b, ".\n");
    return pd_buf_take(&b);
  }
  context_line(&o, r);
  md(&o, AU_MSG_MD_PERFORMANCE, NULL);
  md_findings(&o, r, false, false);
  char *budget = af_str(r->facts, AF_MEMORY_SKIPPED) ? NULL : au_budget_markdown(r, lang);
  if (budget) pd_buf_puts(&b, budget); /* the estimate at a glance, memory findings or not */
  free(budget);
  md(&o, AU_MSG_MD_MEMORY, NULL);
  md_findings(&o, r, true, memory_skipped(&o, r));
  size_t n[3];
  size_t sup = count(r, n);
  ax_value counts[4] = {ax_num((double)n[AU_CRITICAL]), ax_num((double)n[AU_WARN]),
                        ax_num((double)n[AU_INFO]), ax_num((double)sup)};
  md(&o, AU_MSG_MD_SUMMARY, counts);
  const au_finding *t = top(r);
  if (t) {
    ax_value a[3] = {ax_str(t->rule), ax_str(t->title), ax_str(t->fix)};
    md(&o, AU_MSG_MD_TOP, a);
  } else {
    md(&o, AU_MSG_MD_TOP_NONE, NULL);
  }
  return pd_buf_take(&b);
}

char *au_skipped_note(const au_rules *rules, const char *files, const char *lang) {
  ax_value a = ax_str(files);
  return au_msg(au_rules_messages(rules), AU_MSG_MD_SKIPPED, lang, NULL, &a);
}

/* ---- JSON ---- */

static void put_json_range(json_t *o, const sm_model *m, int file, sm_range r) {
  json_object_set_new(o, "line", json_integer(r.start_line + 1));
  json_object_set_new(o, "column", json_integer(sm_char_col(m, file, r.start_byte, r.start_col)));
  json_object_set_new(o, "end_line", json_integer(r.end_line + 1));
  json_object_set_new(o, "end_column", json_integer(sm_char_col(m, file, r.end_byte, r.end_col)));
}

static json_t *value_json(ax_value v) {
  switch (v.kind) {
  case AX_NUM: return json_real(v.num);
  case AX_BOOL: return json_boolean(v.b);
  case AX_STR: return json_string(v.str);
  default: return json_null();
  }
}

static json_t *finding_json(const sm_model *m, const au_finding *f) {
  json_t *o = json_object();
  json_object_set_new(o, "rule", json_string(f->rule));
  json_object_set_new(o, "category", json_string(f->category));
  json_object_set_new(o, "severity", json_string(sev_name(f->severity)));
  json_object_set_new(o, "verdict", json_string(f->borderline ? "borderline" : "applies"));
  json_object_set_new(o, "certainty", json_string(sm_cert_name(f->certainty)));
  json_object_set_new(o, "suppressed", json_boolean(f->suppressed));
  if (f->after_syntax) json_object_set_new(o, "follows_syntax_error", json_true());
  json_object_set_new(o, "title", json_string(f->title));
  json_object_set_new(o, "file", json_string(file_path(m, f->file)));
  put_json_range(o, m, f->file, f->range);
  json_object_set_new(o, "flag", f->flag ? json_string(f->flag) : json_null());
  json_object_set_new(o, "setting", json_string(f->setting));
  json_object_set_new(o, "cost", json_string(f->cost));
  json_object_set_new(o, "fix", json_string(f->fix));
  json_object_set_new(o, "skip_if", json_string(f->skip_if));
  if (f->verified) json_object_set_new(o, "verified", json_string(f->verified));
  json_object_set_new(o, "why", json_string(f->why));
  json_t *edits = json_array();
  for (size_t i = 0; i < f->nedits; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "file", json_string(file_path(m, f->edits[i].file)));
    put_json_range(e, m, f->edits[i].file, f->edits[i].range);
    json_object_set_new(e, "new_text", json_string(f->edits[i].new_text));
    json_array_append_new(edits, e);
  }
  json_object_set_new(o, "edits", edits);
  json_object_set_new(o, "fix_title", f->fix_title ? json_string(f->fix_title) : json_null());
  if (f->evidence) {
    json_t *e = json_pack("{s:s, s:s}", "verdict", f->evidence_verdict ? f->evidence_verdict : "inconclusive",
                          "measured", f->evidence);
    if (f->severity_before >= 0) json_object_set_new(e, "severity_before", json_string(sev_name((au_severity)f->severity_before)));
    json_object_set_new(o, "evidence", e);
  }
  json_object_set_new(o, "safe", json_boolean(f->safe));
  json_object_set_new(o, "preferred", json_boolean(f->preferred));
  json_t *rel = json_array();
  for (size_t i = 0; i < f->nrelated; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "file", json_string(file_path(m, f->related[i].file)));
    put_json_range(e, m, f->related[i].file, f->related[i].range);
    json_object_set_new(e, "message", json_string(f->related[i].message));
    json_array_append_new(rel, e);
  }
  json_object_set_new(o, "related", rel);
  return o;
}

json_t *au_report_json(const au_result *r) {
  const sm_model *m = r->model;
  if (!m->launch_script) {
    ax_env env = af_env(r->facts);
    char *why = au_msg(au_rules_messages(r->rules), AU_MSG_NOT_LAUNCH, "en", &env, NULL);
    json_t *o = json_pack("{s:s, s:b, s:s}", "file", file_path(m, 0), "launch_script", 0, "note", why);
    free(why);
    return o;
  }
  json_t *ctx = au_context_json(m, r->facts);
  json_object_del(ctx, "flags");
  json_object_del(ctx, "arrays");
  json_t *facts = json_object();
  for (size_t i = 0; i < af_count(r->facts); i++) {
    ax_value v;
    const char *name = af_name(r->facts, i, &v);
    json_object_set_new(facts, name, value_json(v));
  }
  json_object_set_new(ctx, "facts", facts);
  json_t *as = json_array();
  for (size_t i = 0; i < af_nassumptions(r->facts); i++)
    json_array_append_new(as, json_string(af_assumption(r->facts, i)));
  json_object_set_new(ctx, "assumptions", as);

  json_t *arr = json_array();
  for (size_t i = 0; i < r->nfindings; i++) json_array_append_new(arr, finding_json(m, &r->findings[i]));
  size_t n[3];
  size_t sup = count(r, n);
  const au_finding *t = top(r);
  json_t *summary = json_pack("{s:I, s:I, s:I, s:I}", "critical", (json_int_t)n[AU_CRITICAL], "warn",
                              (json_int_t)n[AU_WARN], "info", (json_int_t)n[AU_INFO], "suppressed",
                              (json_int_t)sup);
  json_object_set_new(summary, "top_action", t ? json_sprintf("%s: %s", t->rule, t->fix) : json_null());
  json_t *errs = json_array();
  for (size_t i = 0; i < r->nerrors; i++) json_array_append_new(errs, json_string(r->errors[i]));
  json_t *o = json_object();
  json_object_set_new(o, "file", json_string(file_path(m, 0)));
  json_object_set_new(o, "launch_script", json_true());
  json_object_set_new(o, "memory_budget", au_budget_json(r));
  json_object_set_new(o, "context", ctx);
  json_object_set_new(o, "findings", arr);
  json_object_set_new(o, "summary", summary);
  json_object_set_new(o, "errors", errs);
  return o;
}

json_t *au_report_json_all(au_result *const *rs, size_t n, json_t *skipped, int exit_status) {
  json_t *reports = json_array();
  size_t total[3] = {0, 0, 0}, sup = 0;
  for (size_t i = 0; i < n; i++) {
    json_array_append_new(reports, au_report_json(rs[i]));
    size_t c[3];
    sup += count(rs[i], c);
    for (int k = 0; k < 3; k++) total[k] += c[k];
  }
  json_t *summary = json_pack("{s:I, s:o, s:I, s:I, s:I, s:I, s:i}", "reports", (json_int_t)n,
                              "skipped", skipped ? skipped : json_array(), "critical",
                              (json_int_t)total[AU_CRITICAL], "warn", (json_int_t)total[AU_WARN],
                              "info", (json_int_t)total[AU_INFO], "suppressed", (json_int_t)sup,
                              "exit_status", exit_status);
  return json_pack("{s:i, s:o, s:o}", "version", 1, "reports", reports, "summary", summary);
}

/* ---- hovers ---- */

static bool known(const au_facts *f, af_id id) { return !isnan(af_num(f, id, NAN)); }

static bool is_layout_flag(const char *t) {
  return !strcmp(t, "--tensor-model-parallel-size") || !strcmp(t, "--pipeline-model-parallel-size") ||
         !strcmp(t, "--context-parallel-size") || !strcmp(t, "--expert-model-parallel-size") ||
         !strcmp(t, "--expert-tensor-parallel-size");
}

static bool is_memory_flag(const char *t) {
  return !strcmp(t, "--max-tokens-per-gpu") || !strcmp(t, "--recompute-granularity") ||
         !strcmp(t, "--log-probs-max-tokens-per-gpu") || !strcmp(t, "--micro-batch-size");
}

static void hover_resource(md_out *o, const au_facts *f) {
  if (known(f, AF_G_A)) md(o, AU_MSG_HOVER_RES_ACTOR, NULL);
  if (known(f, AF_G_R)) md(o, AU_MSG_HOVER_RES_ROLLOUT, NULL);
  if (known(f, AF_G_TOTAL)) md(o, AU_MSG_HOVER_RES_TOTAL, NULL);
  if (known(f, AF_DP)) md(o, AU_MSG_HOVER_RES_DP, NULL);
  if (known(f, AF_ENGINES)) md(o, AU_MSG_HOVER_RES_ENGINES, NULL);
  if (known(f, AF_MIN_GPUS_FIT)) md(o, AU_MSG_HOVER_RES_FIT, NULL);
}

static void hover_model(md_out *o, const au_facts *f) {
  bool moe = af_num(f, AF_MOE, 0) != 0;
  md(o, AU_MSG_HOVER_MODEL, NULL);
  if (known(f, AF_P_B)) md(o, AU_MSG_HOVER_MODEL_PARAMS, NULL);
  if (moe && known(f, AF_P_ACTIVE_B)) md(o, AU_MSG_HOVER_MODEL_ACTIVE, NULL);
  if (known(f, AF_L) && known(f, AF_H)) md(o, AU_MSG_HOVER_MODEL_LAYERS, NULL);
  if (af_num(f, AF_E, 0) > 0) md(o, AU_MSG_HOVER_MODEL_EXPERTS, NULL);
  if (known(f, AF_STATIC_GB)) md(o, AU_MSG_HOVER_MODEL_STATIC, NULL);
}

static void hover_layout(md_out *o, const au_facts *f) {
  md(o, AU_MSG_HOVER_LAYOUT, NULL);
  if (known(f, AF_G_A)) md(o, AU_MSG_HOVER_LAYOUT_DP, NULL);
  if (af_num(f, AF_MOE, 0)) md(o, AU_MSG_HOVER_LAYOUT_EXPERTS, NULL);
  if (known(f, AF_PARAMS_GPU_B) && known(f, AF_STATIC_GB)) md(o, AU_MSG_HOVER_LAYOUT_STATIC, NULL);
}

char *au_say(const au_result *r, au_msg_id id, const char *lang, const ax_value *args) {
  ax_env env = af_env(r->facts);
  return au_msg(au_rules_messages(r->rules), id, lang, &env, args);
}

char *au_rules_say(const au_rules *rules, au_msg_id id, const char *lang, const ax_value *args) {
  return au_msg(au_rules_messages(rules), id, lang, NULL, args);
}

char *au_hover_facts(const au_result *r, const char *topic, const char *lang) {
  if (!r || !r->facts || !topic) return NULL;
  au_facts *f = r->facts;
  pd_buf b = {0};
  md_out o = {&b, au_rules_messages(r->rules), lang, af_env(f)};
  if (!strcmp(topic, "--resource") || !strcmp(topic, "resource")) {
    hover_resource(&o, f);
  } else if (!strcmp(topic, "model") || !strcmp(topic, "source")) {
    hover_model(&o, f);
  } else if (is_layout_flag(topic)) {
    hover_layout(&o, f);
  } else if (is_memory_flag(topic)) {
    if (known(f, AF_PEAK)) md(&o, AU_MSG_HOVER_PEAK, NULL);
  } else if (!strcmp(topic, "--rollout-num-gpus-per-engine") || !strcmp(topic, "--sglang-mem-fraction-static")) {
    if (known(f, AF_ENGINES)) md(&o, AU_MSG_HOVER_ENGINES, NULL);
    if (known(f, AF_ROLLOUT_WEIGHTS)) md(&o, AU_MSG_HOVER_ENGINES_KV, NULL);
  } else if (!strcmp(topic, "--optimizer-cpu-offload")) {
    if (known(f, AF_HOST_NEEDED)) md(&o, AU_MSG_HOVER_HOST, NULL);
  }
  char *anchor = ab_describe(au_rules_baselines(r->rules), au_rules_messages(r->rules), f, topic, lang);
  if (anchor) {
    if (b.len) pd_buf_puts(&b, "\n");
    pd_buf_puts(&b, anchor);
    free(anchor);
  }
  if (!b.len) {
    pd_buf_free(&b);
    return NULL;
  }
  return pd_buf_take(&b);
}
