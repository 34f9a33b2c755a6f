/* trace_svg: a picture of a trace summary (the object `trace --format json` prints), as plain SVG.
 *
 * Three panels: per rank, its profiled steps end to end as stacked bars (compute, exposed
 * communication, exposed copies, idle by cause; x in ms); the per-step peak of reserved GPU
 * memory per rank when memory events exist (GiB); and per step a heat row of the ranks' compute
 * time (light = the fastest rank, dark = the slowest: the spread a straggler leaves). Every bar
 * segment is a <rect class="seg" data-rank data-step data-kind>, so tests and scripts can read
 * the picture back; each rank's label (<text class="rank">) has a hover naming its longest
 * kernels under short names (trace/kname.h). A multi-job summary draws its first job. */
#ifndef PD_TRACE_SVG_H
#define PD_TRACE_SVG_H

#include <jansson.h>

#include "trace/messages.h"

/* The SVG document with its labels in tx's language (NULL: the built-in catalog, English; the
 * segments' data-kind attributes are English in every language). Caller frees. */
char *tr_svg(const json_t *summary, const tr_text *tx);

#endif
