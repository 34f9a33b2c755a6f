/* trace_ops: the CPU ops that carry FLOPs (trace_flops), the GPU time of the kernels each
 * launched, and what that makes per (op, shape) and per step; also which CPU op ran at a given
 * moment on a thread (for the memory peak).
 *
 * A kernel belongs to an op when the runtime call that launched it (found through the
 * correlation id) runs inside the op on the same thread: the innermost modelled op containing
 * the call, as TraceLens attributes a kernel to its op's subtree. An op's kernel time is the
 * busy time (length of the union) of its kernels, memsets and copies included, over all
 * streams. Records are 16 bytes per modelled op and, while host ops are kept, 16 bytes per CPU
 * op; both are released by tr_ops_finish. */
#ifndef PD_TRACE_OPS_H
#define PD_TRACE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/device.h"
#include "trace/flops.h"
#include "trace/mem.h"

#define TR_OPS_NONE UINT32_MAX

typedef struct {
  char *name;
  tr_fl model;       /* shape, dtype and FLOPs of one call; dtype "tf32" when an fp32 op's kernels
                      * run on tensor cores */
  long calls, timed; /* timed: calls with at least one kernel attributed */
  double kernel_us;  /* busy time of the timed calls' kernels, summed */
} tr_op_row;

typedef struct {
  long step;
  double flops;         /* modelled FLOPs of the ops that start in the step */
  double ideal_us;      /* Σ flops / peak of the op's dtype (ops whose peak is known) */
  double flops_no_peak; /* FLOPs of ops whose dtype has no peak in the device table */
  double kernel_us;     /* their kernels' busy time */
} tr_op_step;

typedef struct {
  tr_op_row *rows;      /* sorted by kernel time, then FLOPs, descending */
  size_t n_rows;
  tr_op_step *steps;    /* one per window given to tr_ops_finish */
  size_t n_steps;
  long calls, timed, dropped; /* dropped: past the record limit, not counted */
  double flops, kernel_us;
  double profiler_flops; /* of which from the profiler's own "flops" argument */
} tr_ops;

typedef struct tr_ops_col tr_ops_col;

tr_ops_col *tr_ops_new(void);
/* A modelled op [ts, end) on thread index tid (0: unknown thread). */
void tr_ops_add(tr_ops_col *o, const char *name, const tr_fl *fl, int tid, int64_t ts, int64_t end);
/* Any CPU op (its name is name[0..len), not necessarily NUL-terminated), kept for
 * tr_ops_host_at while host ops are kept (from the start until tr_ops_host_stop). */
void tr_ops_host(tr_ops_col *o, const char *name, size_t len, int tid, int64_t ts, int64_t end);
bool tr_ops_host_kept(const tr_ops_col *o);
void tr_ops_host_stop(tr_ops_col *o);
/* Sorts the records; call once all events are in, before the look-ups below. */
void tr_ops_index(tr_ops_col *o);
/* The modelled op containing moment ts on thread tid, or TR_OPS_NONE. */
uint32_t tr_ops_find(const tr_ops_col *o, int tid, int64_t ts);
/* A GPU row [b, e) attributed to op (from tr_ops_find); call in start order of the rows. tf32:
 * the kernel runs fp32 data on tensor cores (its name says so), which makes an fp32 op's row
 * "tf32" and judges it against that peak. */
void tr_ops_kernel(tr_ops_col *o, uint32_t op, int64_t b, int64_t e, bool tf32);
/* The innermost CPU op running at ts on thread tid: a fresh string, or NULL when host ops were
 * not kept or none contains ts. */
char *tr_ops_host_at(const tr_ops_col *o, int tid, int64_t ts);
/* The results over the step windows (sorted by start) against dev's peaks (may be NULL).
 * Frees the collector. */
void tr_ops_finish(tr_ops_col *o, const tr_mem_win *w, size_t n, const pd_device *dev, tr_ops *out);
void tr_ops_free(tr_ops *ops);

#endif
