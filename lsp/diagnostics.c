#include "lsp/diagnostics.h"

#include <string.h>

#include "base/alloc.h"

enum { DG_ERROR = 1, DG_WARNING = 2, DG_INFORMATION = 3 };

int dg_severity(const au_finding *f) {
  if (f->borderline) return DG_INFORMATION;
  switch (f->severity) {
  case AU_CRITICAL: return DG_ERROR;
  case AU_WARN: return DG_WARNING;
  default: return DG_INFORMATION;
  }
}

/* The message: the title, then what it costs and how to fix it (the editor shows the rule id
 * from `code` next to it). */
static const char *nonempty(const char *s) { return s && *s ? s : NULL; }

static json_t *finding_message(const au_result *r, const au_finding *f, const char *lang) {
  const char *args[6] = {f->title && *f->title ? f->title : f->rule, f->borderline ? "yes" : NULL,
                         nonempty(f->cost), f->evidence,
                         f->evidence ? (f->evidence_verdict ? f->evidence_verdict : "inconclusive") : NULL,
                         nonempty(f->fix)};
  char *text = au_text(r->rules, AU_MSG_UI_DIAGNOSTIC, lang, args);
  json_t *s = fm_string(text);
  free(text);
  return s;
}

json_t *dg_finding(const au_result *r, const au_finding *f, const fm_map *m, const dg_options *o) {
  json_t *d = json_pack("{s:o,s:i,s:o,s:s,s:o}", "range", fm_range(m, f->file, f->range),
                        "severity", dg_severity(f), "code", fm_string(f->rule), "source",
                        "perf-doctor", "message", finding_message(r, f, o->lang));
  if (o->docs_base && f->rule) {
    char *href = pd_xasprintf("%s%s.md", o->docs_base, f->rule);
    json_object_set_new(d, "codeDescription", json_pack("{s:o}", "href", fm_string(href)));
    free(href);
  }
  if (o->related_information && f->nrelated > 0) {
    json_t *rel = json_array();
    for (size_t i = 0; i < f->nrelated; i++) {
      json_t *loc = fm_location(m, f->related[i].file, f->related[i].range);
      if (!loc) continue;
      json_array_append_new(rel, json_pack("{s:o,s:o}", "location", loc, "message",
                                           fm_string(f->related[i].message)));
    }
    json_object_set_new(d, "relatedInformation", rel);
  }
  return d;
}

static json_t *condition(const sm_condition *c, const fm_map *m) {
  int sev = c->level == SM_ERROR ? DG_ERROR : c->level == SM_WARN ? DG_WARNING : DG_INFORMATION;
  return json_pack("{s:o,s:i,s:o,s:s,s:o}", "range", fm_range(m, c->file, c->range), "severity",
                   sev, "code", fm_string(c->code), "source", "perf-doctor", "message",
                   fm_string(c->message));
}

static void dg_push(json_t *byfile, const char *uri, json_t *diag) {
  json_t *arr = json_object_get(byfile, uri);
  if (!arr) {
    arr = json_array();
    json_object_set_new(byfile, uri, arr);
  }
  json_array_append_new(arr, diag);
}

json_t *dg_build(const au_result *r, const fm_map *m, const dg_options *o) {
  json_t *byfile = json_object();
  const sm_model *model = r->model;
  for (size_t i = 0; model && i < model->nconds; i++) {
    const sm_condition *c = &model->conds[i];
    if (au_reports_condition(r, c->code)) continue; /* a finding below says it */
    dg_push(byfile, fm_uri(m, c->file), condition(c, m));
  }
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    if (f->suppressed) continue; /* the user said so in the file */
    dg_push(byfile, fm_uri(m, f->file), dg_finding(r, f, m, o));
  }
  return byfile;
}
