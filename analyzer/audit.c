/* audit: the public face of the rule engine (first increment: model + empty rule set).
 *
 * au_run builds the script model and runs the rules that exist; the renderers produce the
 * report template's skeleton. The rule engine proper replaces the body of run_rules. */
#include "analyzer/audit.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/util.h"

struct au_facts {
  int unused; /* filled by the facts module */
};

static void run_rules(au_result *r, const au_config *cfg) {
  (void)r;
  (void)cfg;
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
  au_result *r = pd_xcalloc(1, sizeof *r);
  r->model = sm_build(path, text, len, tree, &opt);
  r->facts = pd_xcalloc(1, sizeof *r->facts);
  run_rules(r, cfg);
  return r;
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
  free(f->flag);
  free(f->fix_title);
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
  free(r->facts);
  if (r->model) sm_model_free(r->model);
  free(r);
}

char *au_report_markdown(const au_result *r, const char *lang) {
  (void)lang;
  pd_buf b = {0};
  const char *name = r->model && r->model->nfiles ? r->model->files[0].path : "script";
  const char *slash = strrchr(name, '/');
  pd_buf_printf(&b, "# perf-doctor: %s\n\n", slash ? slash + 1 : name);
  pd_buf_puts(&b, "---\n\n## 🚀 Performance findings\n\n## 💾 Memory findings\n\n---\n\n");
  pd_buf_puts(&b, "## Summary\n- Critical: 0 · Warn: 0 · Info: 0\n");
  return pd_buf_take(&b);
}

json_t *au_report_json(const au_result *r) {
  (void)r;
  return json_pack("{s:{}, s:[], s:{s:i, s:i, s:i}}", "context", "findings", "summary",
                   "critical", 0, "warn", 0, "info", 0);
}

json_t *au_report_sarif(au_result *const *rs, size_t n) {
  (void)rs;
  (void)n;
  return json_pack("{s:s, s:s, s:[{s:{s:{s:s}}, s:[]}]}", "version", "2.1.0", "$schema",
                   "https://json.schemastore.org/sarif-2.1.0.json", "runs", "tool", "driver",
                   "name", "perf-doctor", "results");
}

const char *au_flag_doc(const char *flag, const char *lang) {
  (void)flag;
  (void)lang;
  return NULL;
}

char *au_hover_facts(const au_result *r, const char *topic, const char *lang) {
  (void)r;
  (void)topic;
  (void)lang;
  return NULL;
}
