/* trace_bw: collective bandwidth with nccl-tests' conventions (NVIDIA/nccl-tests, src/<collective>.cu
 * *GetBw): algorithm bandwidth = message bytes / time, bus bandwidth = algbw × a factor that
 * makes collectives comparable with the link's speed:
 *   all-reduce       size = the input,               factor 2(n−1)/n
 *   all-gather       size = the gathered output,     factor (n−1)/n
 *   reduce-scatter   size = the input being reduced, factor (n−1)/n
 *   all-to-all       size = the input,               factor (n−1)/n
 *   broadcast/reduce size = the input,               factor 1
 * with n the group size. Sizes come from the collective's recorded arguments (Kineto copies
 * record_param_comms' "In/Out msg nelems", "dtype", "Group size" onto the NCCL kernel). GB/s
 * are decimal (10^9 bytes), as nccl-tests prints them; TraceLens's "GB/s" are GiB/s. */
#ifndef PD_TRACE_BW_H
#define PD_TRACE_BW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The collective's family ("allreduce", "allgather", "reducescatter", "alltoall",
 * "broadcast", "reduce") from a recorded name ("all_gather_into_tensor_coalesced",
 * "_reduce_scatter_base", ...), or NULL for others (send/recv, barrier, all_to_allv). */
const char *tr_bw_kind(const char *collective);
/* Bytes of one element of a recorded dtype ("BFloat16" 2, "Float" 4, ...), 0 when unknown. */
int tr_bw_elem_bytes(const char *dtype);
/* Message bytes of one collective as nccl-tests counts them; -1 when the arguments do not
 * say (unknown kind, dtype or counts). */
int64_t tr_bw_bytes(const char *collective, int64_t in_nelems, int64_t out_nelems, const char *dtype);
/* Bus-bandwidth factor for a group of n; NAN when the kind or n is unknown. */
double tr_bw_factor(const char *collective, int n);

/* Collectives of one kind and size, aggregated. */
typedef struct {
  char *what;          /* recorded collective name */
  int64_t bytes;
  int group;
  long count;
  double time_us;      /* summed over count */
  double algbw_gbps, busbw_gbps; /* NAN when time is 0 or the factor unknown */
} tr_bw_row;

typedef struct {
  tr_bw_row *v;
  size_t n, cap;
} tr_bw_rows;

/* Adds one collective taking time_us (skipped when bytes < 0). */
void tr_bw_add(tr_bw_rows *rows, const char *what, int64_t bytes, int group, double time_us);
/* Computes the bandwidths and sorts the rows by total time, longest first. */
void tr_bw_finish(tr_bw_rows *rows);
void tr_bw_free(tr_bw_rows *rows);

#endif
