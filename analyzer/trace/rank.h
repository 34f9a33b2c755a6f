/* trace_rank: everything measured from one trace file (one rank) on its own.
 *
 * tr_rank_analyze streams the file through trace_read, keeps compact records of the GPU
 * activity, the launching runtime calls, the ProfilerStep spans and the host activity, and
 * then computes
 *   - HTA's numbers (temporal breakdown, comm-comp overlap, per-stream idle breakdown,
 *     kernel-type breakdown, per-kernel statistics, launch statistics) with HTA's filtering
 *     and ns rounding (see shared/reference/trace-hta-anchor.md);
 *   - an exclusive per-ProfilerStep decomposition of the GPU timeline (compute, exposed
 *     communication, exposed memory copies, other GPU work, idle split by likely cause);
 *   - the per-step facts the cross-rank analyses need (collective instances, pipeline phase).
 * The big per-event arrays are released before it returns; a tr_rank holds only results. */
#ifndef PD_TRACE_RANK_H
#define PD_TRACE_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/device.h"
#include "trace/mem.h"
#include "trace/ops.h"

/* Kernel classes, as HTA's regexes assign them (hta/common/types.py). */
enum { TR_COMP = 1, TR_COMM = 2, TR_MEM = 4, TR_OTHER = 8 };

typedef struct {
  long stream;
  double host_wait_us, kernel_wait_us, other_us;
} tr_idle_stream;

typedef struct {
  char *name;
  int cls; /* TR_COMP / TR_COMM / TR_MEM / TR_OTHER */
  long count;
  double sum_us, min_us, max_us, mean_us, std_us;
} tr_kernel_stat;

typedef struct {
  bool filtered;         /* HTA's last-step filter was applied (>= 2 ProfilerSteps) */
  long dropped_step;     /* the step HTA drops, or -1 */
  long *iterations;      /* steps whose events HTA analyses */
  size_t n_iterations;
  bool rounded;          /* HTA's ceil/floor rounding of float timestamps applied */
  long n_kernels;        /* GPU rows analysed */
  double kernel_time_us, idle_us, compute_us, non_compute_us;
  /* HTA rounds start up and end down to whole µs, so a non-compute row shorter than 1 µs can get a
   * negative length and non_compute_us can come out negative: how many, their sum, and the
   * figure without rounding */
  long neg_rows;
  double neg_us, non_compute_exact_us;
  double comm_us, overlap_us, overlap_pct; /* overlap_pct is NaN without communication */
  double type_us[8];     /* exclusive kernel-type sweep indexed by mask (1 comp, 2 comm, 4 mem) */
  tr_idle_stream *idle;
  size_t n_idle;
  tr_kernel_stat *kernels; /* per kernel name, sorted by sum descending */
  size_t n_kernel_stats;
  long launch_n, launch_delay_over_100, launch_cpu_over_50, launch_gpu_shorter;
  double launch_median_delay_us, launch_mean_delay_us;
} tr_hta;

/* One ProfilerStep window (or the whole trace when there are none). All *_us fields are
 * exclusive and sum to window_us. */
typedef struct {
  long step;                 /* N of ProfilerStep#N, or -1 for the whole trace */
  int64_t b, e;              /* window, absolute ns (trace clock + baseTimeNanoseconds) */
  double window_us, compute_us, exposed_comm_us, exposed_mem_us, other_gpu_us;
  double idle_collective_us, idle_launch_us, idle_data_us;
  double comm_us;            /* union of communication kernels inside the window */
  long n_kernels;            /* GPU rows starting inside the window */
  /* Pipeline phase: first compute kernel to the first non-P2P collective after the last
   * P2P kernel (or the last compute kernel). */
  bool has_phase;
  int64_t phase_b, phase_e;  /* absolute ns */
  double phase_busy_us;      /* compute union inside the phase */
  double phase_p2p_us;       /* P2P kernels with no compute running, inside the phase */
  long p2p_kernels, p2p_sends;
} tr_step;

/* One non-P2P collective kernel, for matching across ranks. */
typedef struct {
  char *key;   /* same string on every rank for the same instance */
  char *what;  /* collective name (args) or kernel name */
  long step;
  int64_t b, e; /* absolute ns */
  int64_t bytes; /* message size as nccl-tests counts it (trace_bw), -1 when not recorded */
  int group;     /* Group size, -1 when not recorded */
} tr_coll;

typedef struct {
  char *file;
  uint64_t file_bytes, json_bytes, n_events;
  bool gzip, array_form;
  int rank;                /* from distributedInfo, else the file name, else 0 */
  const char *rank_source; /* "distributedInfo", "file name" or "default" */
  int world_size;          /* -1 when unknown */
  int name_rank, dp, tp, pp; /* from the Relax file name, -1 when absent */
  bool has_base;
  int64_t base_ns;
  bool has_memory_events;
  long n_gpu_rows, n_runtime_rows, n_steps_seen;
  long *streams;
  size_t n_streams;
  tr_hta hta;
  tr_step *steps;
  size_t n_steps;
  tr_coll *colls;
  size_t n_colls;
  long p2p_kernels;        /* point-to-point NCCL kernels (pipeline send/recv), not in colls */
  int64_t t_begin, t_end;  /* absolute ns span of the events, to tell jobs apart */
  /* the device: deviceProperties of the device the rank used, and the table's entry for it
   * (or for --gpu) */
  char *device_name;       /* NULL when the trace does not say */
  int device_id;           /* -1 when unknown */
  int64_t device_total;    /* totalGlobalMem, bytes; -1 when not stated */
  const pd_device *device; /* NULL when the table does not know it */
  int node_devices;        /* devices deviceProperties lists (the node's GPUs), 0 when absent */
  bool device_from_option;
  tr_memory memory;
  long mem_at_step;        /* the step of the allocated peak, -1 outside the steps */
  char *mem_at_op;         /* the CPU op running at the peak, or NULL ... */
  const char *mem_at_op_why; /* ... and why */
  tr_ops ops;
  bool shapes;             /* some CPU op recorded Input Dims (record_shapes) */
  char *err; /* non-NULL when the file could not be read; then nothing else is filled */
} tr_rank;

typedef struct {
  bool include_last; /* keep HTA's last ProfilerStep (include_last_profiler_step=True) */
  const char *gpu;   /* the device to judge MFU against, overriding deviceProperties; NULL */
  int lang;          /* the language ->err is said in (TR_EN, TR_ZH of trace/messages.h) */
} tr_rank_opts;

/* Why mem_at_op is NULL (the texts mem_at_op_why points at). */
#define TR_AT_OP_NO_SPAN "no CPU op on that thread spans the moment"
#define TR_AT_OP_NOT_KEPT "not resolved: the file lists its CPU ops before anything says memory was recorded"
#define TR_AT_OP_HEADER "not resolved: the trace header lists the profiler's options without profile_memory, so CPU ops were not kept"

/* Reads and analyses one file. Never returns NULL; on failure ->err names the file and the
 * byte offset. Caller frees with tr_rank_free. Thread-safe: shares no state. */
tr_rank *tr_rank_analyze(const char *path, const tr_rank_opts *opts);
void tr_rank_free(tr_rank *r);

/* Parses the Relax worker name `..._rank{R}_dp{D}_tp{T}_pp{P}...` (also `rank_R`, `rank-R`)
 * out of a file name; absent parts are -1. */
void tr_parse_file_name(const char *path, int *rank, int *dp, int *tp, int *pp);

/* HTA's kernel class of a GPU row name. */
int tr_kernel_class(const char *name);

#endif
