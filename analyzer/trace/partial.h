/* trace_partial: one rank's analysis as a JSON document that can be merged elsewhere.
 *
 * A 1,000-rank run writes its traces on many machines. `perf-doctor trace --partial FILE`
 * analyses one file where it lives and prints its tr_rank whole (every figure the summary and
 * the cross-rank analyses read, collective instances included); `--merge PART...` loads the
 * partials and renders exactly what one process reading all the files would. Numbers round-trip
 * exactly (integers as integers, doubles with 17 significant digits; NaN as null). A partial
 * names the options it was made with; partials made with different options are not merged. */
#ifndef PD_TRACE_PARTIAL_H
#define PD_TRACE_PARTIAL_H

#include <jansson.h>
#include <stdbool.h>

#include "trace/rank.h"

/* The partial document of r, analysed with opts (new reference). */
json_t *tr_partial_json(const tr_rank *r, const tr_rank_opts *opts);

/* The rank a partial document describes; NULL with *err (caller frees) when it is not one.
 * *opts receives the options it was made with (gpu borrowed from doc). */
tr_rank *tr_partial_load(const json_t *doc, tr_rank_opts *opts, char **err);

#endif
