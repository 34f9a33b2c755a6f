/* trace_jobs: tells apart the runs whose traces share a folder. Files of one job agree on the
 * world size, their time spans overlap (every rank profiles the same steps), and no two of them
 * claim the same rank; a folder that mixes runs is summarised one job at a time, never merged. */
#ifndef PD_TRACE_JOBS_H
#define PD_TRACE_JOBS_H

#include <stddef.h>

#include "trace/rank.h"

/* Assigns each rank a job: job_of[i] = 0..k-1 (failed files: -1). A file that states no world
 * size agrees with any; when a file fits several jobs, the one in its own folder wins. Returns
 * k (0 when no file was read). */
size_t tr_jobs_split(tr_rank *const *ranks, size_t n, int *job_of);

#endif
