/* trace_summary: renders the per-rank and cross-rank results in the layout of
 * report-template.md §2 (Source, Window, Rank / stream, Filter, Measured, Hypotheses to
 * verify), as markdown or as one JSON object. */
#ifndef PD_TRACE_SUMMARY_H
#define PD_TRACE_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "trace/cross.h"
#include "trace/messages.h"
#include "trace/rank.h"

typedef struct {
  const char *path;       /* what the user asked for */
  tr_rank *const *ranks;  /* all files, failed ones included (r->err set) */
  size_t n;
  const tr_cross *cross;  /* computed over the same array */
  bool include_last;
  const char *title;      /* the markdown heading when not NULL ("Job 2 of 3: ...") */
  const tr_text *tx;      /* the catalog and the markdown's language; NULL: the built-in
                             catalog, English */
} tr_report;

/* The markdown summary in rep->tx's language; caller frees. */
char *tr_summary_md(const tr_report *rep);
/* The JSON summary as a value (new reference); its sentences (hypotheses) are English whatever
 * rep->tx's language. */
json_t *tr_summary_json_value(const tr_report *rep);
/* A summary document as the text `trace --format json` prints (caller frees). */
char *tr_summary_dump(const json_t *doc);
/* Reading a summary document back (compare, svg): a number field (NAN when absent), an integer
 * field for display (-1 when absent or not finite: a summary read back is data), and the job a
 * reader works on (the first of a folder of several, else the summary itself). */
double tr_summary_num(const json_t *o, const char *key);
long long tr_summary_int(const json_t *o, const char *key);
const json_t *tr_summary_job(const json_t *summary);
/* The rank objects of that job (new reference to a fresh array): the summary's ranks, or those
 * of its first job in a folder of several (the job objects list rank numbers; the ranks say their
 * job). */
json_t *tr_summary_job_ranks(const json_t *summary);


#endif
