/* trace_effsum: the efficiency part of a trace summary — the rank's device, GPU memory from
 * the [memory] events, FLOPs and MFU from the recorded shapes, collective bandwidth — as JSON
 * fields, as the markdown sections "Memory" and "Efficiency", and as hypotheses. Every figure
 * says what it was computed from; what the trace does not hold is "not measured". */
#ifndef PD_TRACE_EFFSUM_H
#define PD_TRACE_EFFSUM_H

#include <jansson.h>

#include "base/alloc.h"
#include "trace/summary.h"

/* Adds "device", "memory", "flops", "ops" and "collective_bandwidth" to a rank's object. */
void tr_eff_rank_json(json_t *o, const tr_rank *r);
/* The cross-rank bandwidth table: {"basis", "rows": [...]}. */
json_t *tr_eff_bw_json(const tr_report *rep);
/* The "Memory" and "Efficiency" sections, in rep->tx's language. */
void tr_eff_md(pd_buf *b, const tr_report *rep);
/* Hypotheses from the efficiency figures in tx's language; each string is handed to add (which
 * owns it). */
void tr_eff_hypotheses(const tr_report *rep, const tr_text *tx, void (*add)(void *ctx, char *s), void *ctx);

#endif
