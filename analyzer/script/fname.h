/* fname: what a launch script's file name says.
 *
 *   run-<model>-<size>-<N>x<device>(-<suffix>)*.sh   e.g. run-qwen35-35B-A3B-16xgpu-async.sh
 *
 * Underscores count as dashes (run_qwen35_9B_mtp_8xnpu_thd.sh). Names without a GPU count or a
 * size are still parsed as far as they go. */
#ifndef PD_SCRIPT_FNAME_H
#define PD_SCRIPT_FNAME_H

#include <stdbool.h>

typedef struct {
  char *model;     /* "qwen35" (tokens before the size), or everything before NxDEV; NULL */
  char *size;      /* "35B-A3B", "0.6B"; NULL when the name has none */
  long gpus;       /* N of NxDEV; -1 when absent */
  char *device;    /* "gpu", "npu", "klx", "P800"; NULL when absent */
  char *suffixes;  /* other tokens joined with '-' ("mtp-thd", "async"); NULL when none */
  const char *mode_hint;     /* "fully-async" | "colocate" | "hybrid" | NULL */
  const char *modality_hint; /* "mm" | "video" | NULL */
} fn_info;

/* Parses the base name of `path`. Always succeeds; fields it cannot find stay NULL / -1.
 * Free with fn_info_free. */
fn_info fn_parse(const char *path);
void fn_info_free(fn_info *fi);

#endif
