/* trace_ktab: the kernels of one job across its ranks, and the long tail of a table.
 *
 * Every distinct GPU row name in HTA's kernel table (the events of HTA's iterations: its last
 * ProfilerStep dropped), summed over the job's ranks: the JSON holds every kernel under its full
 * name; the markdown shows the top rows under short names (trace/kname.h, unique within the
 * table) and one "… N more (x % of the time)" row for the rest, as every long-tail table of a
 * summary does (tr_ktab_more_row). */
#ifndef PD_TRACE_KTAB_H
#define PD_TRACE_KTAB_H

#include <jansson.h>
#include <stddef.h>

#include "base/alloc.h"
#include "trace/summary.h"

typedef struct {
  const char *name; /* borrowed from a rank's tr_kernel_stat */
  int cls;          /* TR_COMP / TR_COMM / TR_MEM / TR_OTHER */
  int ranks;        /* ranks that ran it */
  long count;
  double sum_us, min_us, max_us;
} tr_ktab_row;

typedef struct {
  tr_ktab_row *v; /* longest total first, then by name */
  size_t n;
  int ranks;       /* readable ranks */
  long iterations; /* HTA iterations of the first readable rank (the steps the table covers) */
  double total_us;
} tr_ktab;

/* The table of rep's readable ranks; *t is overwritten, release with tr_ktab_free (the names stay
 * the ranks'). */
void tr_ktab_build(const tr_report *rep, tr_ktab *t);
void tr_ktab_free(tr_ktab *t);

/* {"basis", "ranks", "iterations", "distinct", "total_us", "rows": [{"name", "type", "ranks",
 * "count", "sum_us", "mean_us", "min_us", "max_us", "pct"}]} with every kernel (new reference). */
json_t *tr_ktab_json(const tr_ktab *t);

/* The markdown table of the top rows (at most top) and the rest in one row, in tx's language. */
void tr_ktab_md(pd_buf *b, const tr_ktab *t, size_t top, const tr_text *tx);

/* A table's last row for the rows it leaves out: "| … N more (x % of the time) |" and cols - 1
 * empty cells; nothing when more is 0. */
void tr_ktab_more_row(pd_buf *b, size_t more, double pct, int cols, const tr_text *tx);

#endif
