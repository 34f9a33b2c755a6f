/* trace_cross: findings that need several ranks at once.
 *   - collectives matched across ranks (Comms Id, else process group + Seq, else group /
 *     collective / size / order), each rank's NCCL time split into waiting for the last peer
 *     and transfer, and the ranks that arrive last;
 *   - compute spread across the DP ranks of each (pp, tp) position, per step;
 *   - per PP stage the bubble fraction of the pipeline phase against the 1F1B ideal
 *     (p-1)/(m+p-1).
 * Ranks are identified by their index in the array given to tr_cross_compute. */
#ifndef PD_TRACE_CROSS_H
#define PD_TRACE_CROSS_H

#include <stddef.h>

#include "trace/bw.h"
#include "trace/rank.h"

typedef struct {
  long instances;      /* matched instances this rank took part in */
  long arrived_last;   /* ... in which it started last */
  double nccl_us, wait_us, transfer_us;
  double imposed_us;   /* sum over its last arrivals of (its start - the previous latest start) */
} tr_coll_rank;

typedef struct {
  long step;
  int pp, tp;
  size_t n;            /* DP ranks in the group */
  int *idx;            /* rank indices, n of them */
  double min_us, mean_us, max_us, spread_pct; /* compute per rank in the step */
  int slowest, fastest;
  int most_data;       /* rank with the most data-supply idle */
  double data_max_us, data_median_us;
} tr_dp_row;

typedef struct {
  int pp, idx;
  double busy_us, bubble_pct;
  double p2p_pct; /* share of the window spent in P2P kernels with no compute (part of the bubble) */
} tr_pp_stage;

typedef struct {
  long step;
  int dp, tp;
  int p;               /* stages (max pp + 1) */
  long m;              /* micro-batches, from the first stage's P2P sends */
  double ideal_pct, window_us;
  tr_pp_stage *stages;
  size_t n;
} tr_pp_row;

/* How collective instances were keyed (match_basis says it in words, for the JSON). */
typedef enum { TR_MATCH_ID, TR_MATCH_ID_MIXED, TR_MATCH_SEQ, TR_MATCH_SEQ_MIXED, TR_MATCH_ORDER } tr_match_kind;

typedef struct {
  long coll_total;       /* collective kernels seen on all ranks */
  long coll_instances;   /* matched instances (>= 2 ranks) */
  const char *match_basis; /* how instances were keyed */
  tr_match_kind match_kind;
  tr_coll_rank *per_rank;  /* one per rank index */
  tr_dp_row *dp;
  size_t n_dp;
  tr_pp_row *pp;
  size_t n_pp;
  /* Bandwidth per (collective, size, group). Matched instances are timed by the shortest
   * rank's kernel (the last to arrive waits for nobody: TraceLens's choice too); without
   * matches each rank's own kernel time, waiting included (bw_matched false). */
  tr_bw_rows bw;
  bool bw_matched;
  long p2p_kernels;      /* point-to-point kernels on all ranks (not collectives) */
} tr_cross;

/* Computes the cross-rank findings over ranks[0..n) (failed ranks, r->err set, are skipped).
 * *out is overwritten; release it with tr_cross_free. */
void tr_cross_compute(tr_rank *const *ranks, size_t n, tr_cross *out);
void tr_cross_free(tr_cross *c);

#endif
