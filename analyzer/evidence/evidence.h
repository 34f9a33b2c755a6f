/* evidence: what a trace measured, set against what the audit estimated (`check --trace`).
 *
 * The measures are read from a trace summary, the JSON object `perf-doctor trace --format json`
 * prints (this layer depends on that document, not on the trace code). Which finding a measure
 * speaks to is data: a rule's "evidence" entry in the catalog,
 *   {"measure": "exposed_comm_pct", "confirms_if": ">= 10", "contradicts_if": "< 3"}
 * where the right-hand side is a number or `[factor*]fact` ("0.8*M": 80 % of the GPU memory
 * fact). {"measure": "group_comm_pct", "group": "tp"} is the collective kernel time of the
 * process groups whose size is that fact's (unmeasured when another of tp, cp, dp, ep has the
 * same size). A finding the trace contradicts loses one severity level and says why. */
#ifndef PD_EVIDENCE_H
#define PD_EVIDENCE_H

#include <jansson.h>

#include "audit/audit.h"

typedef struct evd_trace evd_trace; /* opaque: the measures of one trace folder */

/* Reads the measures from `summary` (borrowed; a multi-job summary uses its first job and the
 * report says so). `path` is what the user linked. Never NULL; caller frees. */
evd_trace *evd_trace_from(const json_t *summary, const char *path);
void evd_trace_free(evd_trace *t);
/* The path the measures were read from (as given to evd_trace_from). */
const char *evd_path(const evd_trace *t);

/* Why the trace is not the run of r's script, in lang (caller frees), or NULL when nothing says
 * so: the world size its distributedInfo gives differs from the script's actor GPUs, or a rank
 * (from distributedInfo or a file name) lies beyond them. */
char *evd_mismatch(const evd_trace *t, const au_result *r, const char *lang);

/* Attaches evidence to the findings of r whose rule has an "evidence" entry; a contradicted
 * finding is downgraded one level (severity_before keeps the old one). Returns how many findings
 * got evidence: none when evd_mismatch says the trace is another run's. Catalog entries that do
 * not parse give an inconclusive verdict naming the entry. */
size_t evd_apply(au_result *r, const evd_trace *t);

/* The report's "trace" object: the path, per-rank figures, the estimated-vs-measured rows, and
 * "mismatch" when the trace is another run's (new reference). */
json_t *evd_trace_json(const evd_trace *t, const au_result *r);
/* The same as a markdown section ("## Measured by the trace"), appended to `md` (caller frees
 * the returned string). */
char *evd_markdown(const evd_trace *t, const au_result *r, const char *lang);

#endif
