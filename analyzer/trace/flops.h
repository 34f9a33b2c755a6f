/* trace_flops: the floating-point work of one CPU op, from the shapes the profiler recorded
 * (record_shapes: "Input Dims", "Input type", "Concrete Inputs").
 *
 * The formulas are TraceLens's (AMD-AGI/TraceLens, PerfModel/perf_model.py), so that the two
 * tools agree on the same trace:
 *   aten::mm       2MNK                 dims A(M,K) B(K,N)
 *   aten::addmm    2MNK + MN            dims C, A(M,K), B(K,N): the bias always counts
 *   aten::bmm      B·2MNK               dims A(B,M,K) B(B,K,N)
 *   aten::baddbmm  B·(2MNK + MN)        dims C, A(B,M,K), B(B,K,N)
 *   attention      4·B·H·Nq·Nkv·d       SDPA flash / efficient / cudnn (B,H,N,d) and flash_attn
 *                                       (B,N,H,d); causal halves it (only when Nq == Nkv)
 *   backward       flash: 2.5× the forward (QKᵀ recomputed), others 2×, plus TraceLens's GQA
 *                  reduction terms; computed on the backward op from its own q, k, v shapes.
 * aten::linear and aten::matmul are not counted: they dispatch to mm / addmm / bmm, which carry
 * the FLOPs (counting both would count the work twice). Shapes are the logical ones; strides
 * (transposes) do not change the count. An op the model does not cover but for which the
 * profiler wrote a "flops" argument (with_flops) gets that figure, marked as the profiler's. */
#ifndef PD_TRACE_FLOPS_H
#define PD_TRACE_FLOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/device.h"
#include "trace/event.h"

typedef enum { TR_FL_GEMM = 1, TR_FL_ATTN, TR_FL_PROFILER } tr_fl_kind;

typedef struct {
  tr_fl_kind kind;
  /* GEMM: batch (1 for 2-D), M, N, K. Attention: batch, query length, key length, head size. */
  int64_t b, m, n, k;
  int64_t heads, heads_kv; /* attention only */
  bool causal, backward;
  double flops;
  char dtype[24];          /* "bf16", "fp16", "fp32", "fp64", "fp8", or the recorded type */
} tr_fl;

/* The FLOPs of the op `name` with the recorded argument values (raw JSON slices from
 * trace_event; absent slices have p == NULL). Returns false when the op is not one the model
 * covers, its shapes are missing or do not fit the op (then *out is unspecified). */
bool tr_flops_of(const char *name, const tr_event *ev, tr_fl *out);
/* Whether name[0..len) is an op the formulas model (a GEMM or an attention op): tr_flops_of
 * gives nothing for other names unless the profiler wrote a `flops` arg. */
bool tr_flops_modelled(const char *name, size_t len);

/* The device's dense peak for a dtype as tr_flops_of names it (or "tf32"), in TFLOP/s; NAN
 * when the device table does not state it. fp32 is the peak without tensor cores, for fp32
 * GEMMs whose kernels do not run TF32. */
double tr_flops_peak(const pd_device *dev, const char *dtype);

/* The device a trace's deviceProperties entry means ("NVIDIA H100 80GB HBM3", "AMD Instinct
 * MI300X"; total_bytes is its totalGlobalMem, or 0), the variant picked by the memory it
 * reports; NULL when the table does not know it. */
const pd_device *tr_flops_device(const char *props_name, int64_t total_bytes);

#endif
