/* trace_compare: before / after, from two trace summaries (the objects `trace --format json`
 * prints).
 *
 * Compared: the step time, the per-step shares (compute, exposed communication and copies,
 * idle by cause), MFU, the memory peaks, the ops (matched by name, shape and dtype), the
 * kernels (by name) and the collectives (by kind, size and group). Each figure carries its
 * step-to-step spread (the standard deviation over every rank's profiled steps), and a change
 * is called significant only when it exceeds twice the larger spread and 1 % of the figure,
 * so noise is not reported as change. The spread is measured only when every rank on both sides
 * has two profiled steps or more; otherwise no change is called significant ("significant":
 * null with "significance_note": "noise not measured (1 step)") and the changes are shown as
 * they are. A multi-job summary contributes its first job. */
#ifndef PD_TRACE_COMPARE_H
#define PD_TRACE_COMPARE_H

#include <jansson.h>

#include "trace/messages.h"
#include "trace/trace.h"

/* {"before": <summary>, "after": <summary>, "delta": {"step": {...}, "shares": [...], "mfu",
 * "memory": [...], "ops": [...], "kernels": [...], "collectives": [...], "noise": {...}}} (new
 * reference; the summaries are referenced, not copied; the shape is docs/trace.schema.json's
 * `comparison`). Rows are every one that changed, largest change first, under full names. The
 * sentences in it (the significance rule and notes) are msgs' English ones (NULL: the built-in
 * catalog). */
json_t *tr_compare(json_t *before, json_t *after, const char *before_path, const char *after_path,
                   const tr_msgs *msgs);

/* The comparison of the traces at two paths (files or folders), summarised with opts (svg not
 * used); NULL with *err (caller frees) when either cannot be read. *n_failed: files that could
 * not be read on both sides. */
json_t *tr_compare_paths(const char *before, const char *after, const tr_options *opts, int *n_failed, char **err);

/* The comparison as markdown in tx's language (NULL: the built-in catalog, English; caller
 * frees): the steps of each side, the figures, and the rows that changed most (kernel names
 * shortened, the rest summed in a "… N more" line). */
char *tr_compare_md(const json_t *cmp, const tr_text *tx);

#endif
