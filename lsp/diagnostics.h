/* diagnostics: an analysis (au_result) as LSP Diagnostic objects, grouped by file.
 *
 * A finding is reported in the file that holds the flag causing it (the script or the model
 * config it sources); its severity maps critical -> Error, warn -> Warning, info (and
 * borderline findings) -> Information; code = rule id; source = "perf-doctor". Conditions of
 * the script model that no rule reports (see au_reports_condition: today only "grammar", the
 * parser failing to load) are reported as diagnostics too, with the condition's code. */
#ifndef PD_LSP_DIAGNOSTICS_H
#define PD_LSP_DIAGNOSTICS_H

#include <jansson.h>
#include <stdbool.h>

#include "audit/audit.h"
#include "lsp/filemap.h"

typedef struct {
  bool related_information; /* the client shows relatedInformation */
  const char *docs_base;    /* codeDescription href prefix ("<rule>.md" appended), NULL = none */
  const char *lang;         /* "zh" or English: the words around the finding's own texts */
} dg_options;

/* {"<uri>": [Diagnostic...], ...} for every file of the analysis that has diagnostics.
 * New reference. */
json_t *dg_build(const au_result *r, const fm_map *m, const dg_options *o);

/* One finding as a Diagnostic (used by code actions to echo the diagnostic they fix).
 * New reference. */
json_t *dg_finding(const au_result *r, const au_finding *f, const fm_map *m, const dg_options *o);

/* LSP DiagnosticSeverity of a finding. */
int dg_severity(const au_finding *f);

#endif
