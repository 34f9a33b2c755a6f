/* audit_report: the renderers of audit.h (markdown in the fixed template of report-template.md
 * §1, JSON, SARIF 2.1.0) and the hover helpers. Lines and columns in JSON and SARIF are 1-based;
 * columns count characters, as in the `context` output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/audit.h"
#include "analyzer/audit_baseline.h"
#include "analyzer/audit_facts.h"
#include "analyzer/util.h"

static const char *sev_tag(au_severity s) {
  return s == AU_CRITICAL ? "CRITICAL" : s == AU_WARN ? "WARN" : "INFO";
}
static const char *sev_name(au_severity s) {
  return s == AU_CRITICAL ? "critical" : s == AU_WARN ? "warn" : "info";
}

static bool is_zh(const char *lang) { return lang && !strcmp(lang, "zh"); }

static const char *base_name(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s ? s + 1 : path ? path : "";
}

static const char *file_path(const sm_model *m, int file) {
  return file >= 0 && (size_t)file < m->nfiles ? m->files[file].path : "";
}

static void count(const au_result *r, size_t n[3]) {
  n[0] = n[1] = n[2] = 0;
  for (size_t i = 0; i < r->nfindings; i++) n[r->findings[i].severity]++;
}

/* The finding the summary recommends first: the most severe, config errors before others. */
static const au_finding *top(const au_result *r) {
  const au_finding *best = NULL;
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    if (!best || f->severity > best->severity ||
        (f->severity == best->severity && !strcmp(f->category, "config") &&
         strcmp(best->category, "config") != 0))
      best = f;
  }
  return best;
}

/* ---- markdown ---- */

static void context_line(pd_buf *b, const au_result *r) {
  const au_facts *f = r->facts;
  const sm_context *c = &r->model->ctx;
  const char *model = af_str(f, "model");
  bool moe = af_num(f, "moe", 0) != 0;
  const char *modality = af_str(f, "modality");
  pd_buf_printf(b, "**Context:** model=%s (%s, %s)", model ? model : "unknown", moe ? "MoE" : "dense",
                modality ? modality : "text");
  double g = af_num(f, "g_total", NAN);
  if (isnan(g) && c->gpus > 0) g = (double)c->gpus;
  double gpn = af_num(f, "g_node", 8);
  if (isnan(g)) {
    pd_buf_puts(b, " · GPUs=unknown");
  } else {
    double nodes = c->nodes > 0 ? (double)c->nodes : (g > gpn ? ceil(g / gpn) : 1);
    double per = c->gpus_per_node > 0 ? (double)c->gpus_per_node : (g > gpn ? gpn : g);
    pd_buf_printf(b, " · GPUs=%.0f (%.0f×%.0f)", g, nodes, per);
  }
  const char *mode = af_str(f, "mode");
  pd_buf_printf(b, " · mode=%s", mode ? mode : "unknown");
  const char *names[] = {"tp", "pp", "cp", "ep", "etp"};
  const char *labels[] = {"TP", "PP", "CP", "EP", "ETP"};
  pd_buf_puts(b, " · ");
  for (int i = 0; i < 5; i++) {
    double v = af_num(f, names[i], NAN);
    if (isnan(v)) pd_buf_printf(b, "%s%s?", i ? "/" : "", labels[i]);
    else pd_buf_printf(b, "%s%s%.0f", i ? "/" : "", labels[i], v);
  }
  double resp = af_num(f, "resp", NAN);
  if (isnan(resp)) pd_buf_puts(b, " · max-resp-len=unknown");
  else pd_buf_printf(b, " · max-resp-len=%.0f", resp);
  const char *gpu = af_str(f, "gpu_display");
  pd_buf_printf(b, " · GPU=%s%s\n", gpu ? gpu : "H20 96GB",
                af_num(f, "gpu_assumed", 1) != 0 ? " (assumed)" : "");
}

static void finding_md(pd_buf *b, const au_finding *f) {
  pd_buf_printf(b, "### [%s] %s — %s\n", sev_tag(f->severity), f->rule, f->title);
  pd_buf_printf(b, "- **Setting:** %s\n", f->setting);
  pd_buf_printf(b, "- **Cost:** %s\n", f->cost);
  pd_buf_printf(b, "- **Fix:** %s\n", f->fix);
  pd_buf_printf(b, "- **Skip if:** %s\n\n", f->skip_if);
}

char *au_report_markdown(const au_result *r, const char *lang) {
  pd_buf b = {0};
  bool zh = is_zh(lang);
  const sm_model *m = r->model;
  pd_buf_printf(&b, "# perf-doctor: %s\n\n", base_name(m && m->nfiles ? m->files[0].path : "script"));
  context_line(&b, r);
  pd_buf_puts(&b, "\n---\n\n## 🚀 Performance findings\n\n");
  size_t shown = 0;
  /* config errors stop the job from starting: they lead the performance section */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < r->nfindings; i++) {
      const au_finding *f = &r->findings[i];
      bool config = !strcmp(f->category, "config");
      if ((pass == 0) != config || !strcmp(f->category, "memory")) continue;
      finding_md(&b, f);
      shown++;
    }
  if (!shown) pd_buf_puts(&b, zh ? "无。\n\n" : "No findings.\n\n");
  pd_buf_puts(&b, "## 💾 Memory findings\n\n");
  shown = 0;
  for (size_t i = 0; i < r->nfindings; i++)
    if (!strcmp(r->findings[i].category, "memory")) {
      finding_md(&b, &r->findings[i]);
      shown++;
    }
  if (!shown) pd_buf_puts(&b, zh ? "无。\n\n" : "No findings.\n\n");
  size_t n[3];
  count(r, n);
  pd_buf_puts(&b, "---\n\n## Summary\n");
  pd_buf_printf(&b, "- Critical: %zu · Warn: %zu · Info: %zu\n", n[AU_CRITICAL], n[AU_WARN], n[AU_INFO]);
  const au_finding *t = top(r);
  if (t) pd_buf_printf(&b, "- **Top action:** %s (%s): %s\n", t->rule, t->title, t->fix);
  else pd_buf_printf(&b, "- **Top action:** %s\n", zh ? "无需修改。" : "nothing to change.");
  return pd_buf_take(&b);
}

/* ---- JSON ---- */

static void put_range(json_t *o, const sm_model *m, int file, sm_range r) {
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
  json_object_set_new(o, "title", json_string(f->title));
  json_object_set_new(o, "file", json_string(file_path(m, f->file)));
  put_range(o, m, f->file, f->range);
  json_object_set_new(o, "flag", f->flag ? json_string(f->flag) : json_null());
  json_object_set_new(o, "setting", json_string(f->setting));
  json_object_set_new(o, "cost", json_string(f->cost));
  json_object_set_new(o, "fix", json_string(f->fix));
  json_object_set_new(o, "skip_if", json_string(f->skip_if));
  json_object_set_new(o, "why", json_string(f->why));
  json_t *edits = json_array();
  for (size_t i = 0; i < f->nedits; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "file", json_string(file_path(m, f->edits[i].file)));
    put_range(e, m, f->edits[i].file, f->edits[i].range);
    json_object_set_new(e, "new_text", json_string(f->edits[i].new_text));
    json_array_append_new(edits, e);
  }
  json_object_set_new(o, "edits", edits);
  json_object_set_new(o, "fix_title", f->fix_title ? json_string(f->fix_title) : json_null());
  json_object_set_new(o, "safe", json_boolean(f->safe));
  json_object_set_new(o, "preferred", json_boolean(f->preferred));
  json_t *rel = json_array();
  for (size_t i = 0; i < f->nrelated; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "file", json_string(file_path(m, f->related[i].file)));
    put_range(e, m, f->related[i].file, f->related[i].range);
    json_object_set_new(e, "message", json_string(f->related[i].message));
    json_array_append_new(rel, e);
  }
  json_object_set_new(o, "related", rel);
  return o;
}

json_t *au_report_json(const au_result *r) {
  const sm_model *m = r->model;
  json_t *ctx = sm_to_json(m);
  if (!json_is_object(ctx)) {
    json_decref(ctx);
    ctx = json_object();
  }
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
  count(r, n);
  const au_finding *t = top(r);
  json_t *summary = json_pack("{s:I, s:I, s:I}", "critical", (json_int_t)n[AU_CRITICAL], "warn",
                              (json_int_t)n[AU_WARN], "info", (json_int_t)n[AU_INFO]);
  json_object_set_new(summary, "top_action", t ? json_sprintf("%s: %s", t->rule, t->fix) : json_null());
  json_t *errs = json_array();
  for (size_t i = 0; i < r->nerrors; i++) json_array_append_new(errs, json_string(r->errors[i]));
  json_t *o = json_object();
  json_object_set_new(o, "file", json_string(file_path(m, 0)));
  json_object_set_new(o, "context", ctx);
  json_object_set_new(o, "findings", arr);
  json_object_set_new(o, "summary", summary);
  json_object_set_new(o, "errors", errs);
  return o;
}

/* ---- SARIF 2.1.0 ---- */

static const char *sarif_level(au_severity s) {
  return s == AU_CRITICAL ? "error" : s == AU_WARN ? "warning" : "note";
}

static json_t *sarif_region(const sm_model *m, int file, sm_range rg) {
  return json_pack("{s:I, s:I, s:I, s:I}", "startLine", (json_int_t)rg.start_line + 1, "startColumn",
                   (json_int_t)sm_char_col(m, file, rg.start_byte, rg.start_col), "endLine",
                   (json_int_t)rg.end_line + 1, "endColumn",
                   (json_int_t)sm_char_col(m, file, rg.end_byte, rg.end_col));
}

static json_t *sarif_location(const sm_model *m, int file, sm_range rg) {
  return json_pack("{s:{s:{s:s}, s:o}}", "physicalLocation", "artifactLocation", "uri",
                   file_path(m, file), "region", sarif_region(m, file, rg));
}

json_t *au_report_sarif(au_result *const *rs, size_t n) {
  json_t *rules = json_array(), *results = json_array();
  json_t *seen = json_object();
  for (size_t k = 0; k < n; k++) {
    const au_result *r = rs[k];
    if (!r) continue;
    const sm_model *m = r->model;
    for (size_t i = 0; i < r->nfindings; i++) {
      const au_finding *f = &r->findings[i];
      json_t *idx = json_object_get(seen, f->rule);
      if (!idx) {
        idx = json_integer((json_int_t)json_array_size(rules));
        json_object_set_new(seen, f->rule, idx);
        json_array_append_new(rules, json_pack("{s:s, s:{s:s}, s:{s:s}, s:{s:s}}", "id", f->rule,
                                               "shortDescription", "text", f->title, "fullDescription",
                                               "text", f->why, "defaultConfiguration", "level",
                                               sarif_level(f->severity)));
      }
      char *msg = pd_xasprintf("%s — %s. Cost: %s. Fix: %s", f->rule, f->title, f->cost, f->fix);
      json_t *res = json_pack("{s:s, s:I, s:s, s:{s:s}, s:[o]}", "ruleId", f->rule, "ruleIndex",
                              json_integer_value(idx), "level", sarif_level(f->severity), "message",
                              "text", msg, "locations", sarif_location(m, f->file, f->range));
      free(msg);
      json_object_set_new(res, "properties",
                          json_pack("{s:s, s:s, s:s}", "verdict", f->borderline ? "borderline" : "applies",
                                    "category", f->category, "skipIf", f->skip_if));
      if (f->nrelated) {
        json_t *rel = json_array();
        for (size_t j = 0; j < f->nrelated; j++) {
          json_t *loc = sarif_location(m, f->related[j].file, f->related[j].range);
          json_object_set_new(loc, "id", json_integer((json_int_t)j));
          json_object_set_new(loc, "message", json_pack("{s:s}", "text", f->related[j].message));
          json_array_append_new(rel, loc);
        }
        json_object_set_new(res, "relatedLocations", rel);
      }
      if (f->nedits) {
        json_t *changes = json_array();
        for (size_t j = 0; j < f->nedits; j++) {
          const au_edit *e = &f->edits[j];
          json_array_append_new(
              changes, json_pack("{s:{s:s}, s:[{s:o, s:{s:s}}]}", "artifactLocation", "uri",
                                 file_path(m, e->file), "replacements", "deletedRegion",
                                 sarif_region(m, e->file, e->range), "insertedContent", "text",
                                 e->new_text));
        }
        json_object_set_new(res, "fixes",
                            json_pack("[{s:{s:s}, s:o}]", "description", "text",
                                      f->fix_title ? f->fix_title : f->fix, "artifactChanges", changes));
      }
      json_array_append_new(results, res);
    }
  }
  json_decref(seen);
  json_t *driver = json_pack("{s:s, s:s, s:s, s:o}", "name", "perf-doctor", "version", PD_VERSION,
                             "informationUri", "https://github.com/redai-infra/Relax", "rules", rules);
  return json_pack("{s:s, s:s, s:[{s:{s:o}, s:o}]}", "$schema",
                   "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs", "tool",
                   "driver", driver, "results", results);
}

/* ---- hovers ---- */

char *au_hover_facts(const au_result *r, const char *topic, const char *lang) {
  if (!r || !r->facts || !topic) return NULL;
  const au_facts *f = r->facts;
  bool zh = is_zh(lang);
  pd_buf b = {0};
  if (!strcmp(topic, "--resource") || !strcmp(topic, "resource")) {
    double ga = af_num(f, "g_a", NAN), gr = af_num(f, "g_r", NAN), gt = af_num(f, "g_total", NAN);
    if (!isnan(ga))
      pd_buf_printf(&b, zh ? "actor %.0f 卡" : "actor %.0f GPUs", ga);
    if (!isnan(gr)) pd_buf_printf(&b, zh ? "，rollout %.0f 卡" : ", rollout %.0f GPUs", gr);
    if (!isnan(gt)) pd_buf_printf(&b, zh ? "（%s：共 %.0f 卡）" : " (%s: %.0f in total)",
                                  af_str(f, "mode") ? af_str(f, "mode") : "?", gt);
    double dp = af_num(f, "dp", NAN), eng = af_num(f, "engines", NAN);
    if (!isnan(dp)) pd_buf_printf(&b, zh ? "；DP %.0f" : "; DP %.0f", dp);
    if (!isnan(eng))
      pd_buf_printf(&b, zh ? "；%.0f 个推理引擎 × %.0f 卡" : "; %.0f rollout engine(s) × %.0f GPU(s)", eng,
                    af_num(f, "gpe", 1));
    double fit = af_num(f, "min_gpus_fit", NAN);
    if (!isnan(fit))
      pd_buf_printf(&b, zh ? "；该布局最少 actor GPU（估算）：%.0f" : "; smallest actor GPU count for this layout (estimate): %.0f", fit);
  } else if (!strcmp(topic, "model") || !strcmp(topic, "source")) {
    const char *model = af_str(f, "model");
    double P = af_num(f, "P_b", NAN), Pa = af_num(f, "P_active_b", NAN);
    pd_buf_printf(&b, "%s: %s", model ? model : "?", af_num(f, "moe", 0) ? "MoE" : "dense");
    if (!isnan(P)) pd_buf_printf(&b, zh ? "，约 %.1f B 参数" : ", ≈ %.1f B params", P);
    if (af_num(f, "moe", 0) && !isnan(Pa)) pd_buf_printf(&b, zh ? "（激活 %.1f B）" : " (%.1f B active)", Pa);
    double L = af_num(f, "L", NAN), h = af_num(f, "h", NAN);
    if (!isnan(L) && !isnan(h)) pd_buf_printf(&b, zh ? "；%.0f 层，hidden %.0f" : "; %.0f layers, hidden %.0f", L, h);
    double E = af_num(f, "E", 0);
    if (E > 0) pd_buf_printf(&b, zh ? "；%.0f 个专家，top-%.0f" : "; %.0f experts, top-%.0f", E, af_num(f, "topk", 0));
    double st = af_num(f, "static_gb", NAN);
    if (!isnan(st)) pd_buf_printf(&b, zh ? "；每卡静态显存约 %.1f GB（估算）" : "; ≈ %.1f GB static per GPU (estimate)", st);
  }
  else if (!strcmp(topic, "--tensor-model-parallel-size") || !strcmp(topic, "--pipeline-model-parallel-size") ||
           !strcmp(topic, "--context-parallel-size") || !strcmp(topic, "--expert-model-parallel-size") ||
           !strcmp(topic, "--expert-tensor-parallel-size")) {
    double ga = af_num(f, "g_a", NAN);
    pd_buf_printf(&b, "TP%.0f·PP%.0f·CP%.0f", af_num(f, "tp", 1), af_num(f, "pp", 1), af_num(f, "cp", 1));
    if (!isnan(ga)) pd_buf_printf(&b, zh ? "，actor %.0f 卡 → DP %.0f" : " on %.0f actor GPUs → DP %.0f", ga, af_num(f, "dp", NAN));
    if (af_num(f, "moe", 0))
      pd_buf_printf(&b, zh ? "；专家 ETP%.0f·EP%.0f → expert-DP %.0f" : "; experts ETP%.0f·EP%.0f → expert-DP %.0f",
                    af_num(f, "etp", 1), af_num(f, "ep", 1), af_num(f, "edp", NAN));
    double pg = af_num(f, "params_gpu_b", NAN), st = af_num(f, "static_gb", NAN);
    if (!isnan(pg) && !isnan(st))
      pd_buf_printf(&b, zh ? "；每卡约 %.2f B 参数、%.1f GB 静态显存（%.1f B/参数，估算）"
                           : "; ≈ %.2f B params/GPU, ≈ %.1f GB static (%.1f B/param, estimate)",
                    pg, st, af_num(f, "bytes_per_param", NAN));
  } else if (!strcmp(topic, "--max-tokens-per-gpu") || !strcmp(topic, "--recompute-granularity") ||
             !strcmp(topic, "--log-probs-max-tokens-per-gpu") || !strcmp(topic, "--micro-batch-size")) {
    double peak = af_num(f, "peak", NAN);
    if (!isnan(peak)) {
      pd_buf_printf(&b, zh ? "估算：静态 %.1f + 激活 %.1f（不重计算 %.1f / full 重计算 %.1f）+ logits %.1f + 约 2.5 GiB ≈ %.1f GiB"
                           : "estimate: static %.1f + activations %.1f (no recompute %.1f / full recompute %.1f) + logits %.1f + ~2.5 GiB ≈ %.1f GiB",
                    af_num(f, "static", NAN), af_num(f, "act", NAN), af_num(f, "act_norecompute", NAN),
                    af_num(f, "act_recompute", NAN), af_num(f, "logits", NAN), peak);
      const char *gd = af_str(f, "gpu_display");
      if (zh) pd_buf_printf(&b, "，%s 可用 %.1f GiB", gd ? gd : "?", af_num(f, "M", NAN));
      else pd_buf_printf(&b, " of %.1f GiB on %s", af_num(f, "M", NAN), gd ? gd : "?");
    }
  } else if (!strcmp(topic, "--rollout-num-gpus-per-engine") || !strcmp(topic, "--sglang-mem-fraction-static")) {
    double eng = af_num(f, "engines", NAN);
    if (!isnan(eng)) pd_buf_printf(&b, zh ? "%.0f 个引擎 × %.0f 卡" : "%.0f engine(s) × %.0f GPU(s)", eng, af_num(f, "gpe", 1));
    double w = af_num(f, "rollout_weights", NAN), kv = af_num(f, "kv_tokens", NAN);
    if (!isnan(w))
      pd_buf_printf(&b, zh ? "；每卡 bf16 权重 %.1f GiB；每引擎 KV 池约 %.0f token（估算%s）"
                           : "; bf16 weights %.1f GiB per GPU; KV pool ≈ %.0f tokens per engine (estimate%s)",
                    w, kv, isnan(af_num(f, "frac", NAN)) ? (zh ? "，比例假设 0.8" : ", fraction assumed 0.8") : "");
  } else if (!strcmp(topic, "--optimizer-cpu-offload")) {
    double h = af_num(f, "host_needed", NAN);
    if (!isnan(h))
      pd_buf_printf(&b, zh ? "每节点约需 %.0f GiB 主机内存（优化器状态 + 权重备份，估算）"
                           : "≈ %.0f GiB of host RAM per node (optimizer state + weight backups, estimate)", h);
  }
  char *anchor = ab_describe(au_rules_baselines(r->rules), f, topic, lang);
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
