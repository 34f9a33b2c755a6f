/* Unit tests of the efficiency modules: the FLOP model (TraceLens's formulas, worked by hand
 * here), collective bandwidth conventions (nccl-tests), device look-up from deviceProperties
 * names and the memory collector's bounded buffer (table-friendly kernel names: test_kname.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/bw.h"
#include "trace/effsum.h"
#include "trace/event.h"
#include "trace/flops.h"
#include "trace/mem.h"
#include "trace/ops.h"
#include "event_pad.h"
#include "harness.h"

/* The FLOPs tr_flops_of gives for an event written as JSON; -1 when it does not model it. */
static double flops_of(const char *json, tr_fl *fl) {
  tr_event ev;
  size_t at;
  const char *why;
  if (!tr_event_parse(event_padded(json, strlen(json)), strlen(json), &ev, &at, &why)) return -2;
  char name[128];
  tr_slice_decode(&ev.name, name);
  return tr_flops_of(name, &ev, fl) ? fl->flops : -1;
}

#define CHECK_FLOPS(json, want)                                                      \
  do {                                                                               \
    tr_fl fl_;                                                                       \
    double got_ = flops_of(json, &fl_);                                              \
    if (fabs(got_ - (double)(want)) > 1e-6 * fabs((double)(want)) + 1e-9) {          \
      fprintf(stderr, "%s:%d: FLOPs %.0f, want %.0f\n", __FILE__, __LINE__, got_, (double)(want)); \
      pd_test_failures++;                                                            \
    }                                                                                \
    pd_test_checks++;                                                                \
  } while (0)

static void test_gemm(void) {
  /* mm with an out= tensor: the third shape is ignored (TraceLens's torch_compile trace) */
  CHECK_FLOPS("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[32768,2048],[2048,2048],[32768,2048]],"
              "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]}}",
              2.0 * 32768 * 2048 * 2048);
  tr_fl fl;
  CHECK(flops_of("{\"name\":\"aten::addmm\",\"args\":{\"Input Dims\":[[512],[141,512],[512,512],[],[]],"
                 "\"Input type\":[\"c10::BFloat16\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]}}", &fl) ==
        2.0 * 141 * 512 * 512 + 141 * 512); /* the bias adds M·N */
  CHECK_STR(fl.dtype, "fp16");           /* addmm's type is read from the first matrix */
  CHECK_INT(fl.m, 141);
  CHECK_INT(fl.n, 512);
  CHECK_INT(fl.k, 512);
  CHECK_INT(fl.b, 1);
  CHECK_FLOPS("{\"name\":\"aten::bmm\",\"args\":{\"Input Dims\":[[1024,96,50],[1024,50,8]],\"Input type\":[\"float\",\"float\"]}}",
              1024.0 * 2 * 96 * 8 * 50);
  CHECK_FLOPS("{\"name\":\"aten::baddbmm\",\"args\":{\"Input Dims\":[[4,16,16],[4,16,32],[4,32,16]]}}",
              4.0 * (2 * 16 * 32 * 16 + 16 * 16));
  /* linear and matmul carry no FLOPs of their own (their mm child does), even with "flops" */
  CHECK(flops_of("{\"name\":\"aten::linear\",\"args\":{\"Input Dims\":[[8,4],[4,4]],\"flops\":256}}", &fl) == -1);
  CHECK(flops_of("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[8,4]]}}", &fl) == -1); /* one matrix */
  /* an op outside the model with the profiler's own count */
  CHECK(flops_of("{\"name\":\"aten::conv2d\",\"args\":{\"flops\":123456}}", &fl) == 123456);
  CHECK(fl.kind == TR_FL_PROFILER);
  /* the sizes are read by hand: negative and saturating as strtoll, a real ends the shape */
  CHECK(flops_of("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[-2,4],[4,4]]}}", &fl) == -1);
  CHECK(flops_of("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[2.5,4],[4,4]]}}", &fl) == -1);
  CHECK(flops_of("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[99999999999999999999,4],[4,4]]}}", &fl) ==
        2.0 * 9223372036854775807.0 * 4 * 4);
  CHECK_INT(fl.m, INT64_MAX);
  CHECK_FLOPS("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[ 3 , 4 ],[4, 5]]}}", 2.0 * 3 * 4 * 5);
  /* an unknown recorded type is kept as written (bounded), an absent one says so */
  flops_of("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[3,4],[4,5]],\"Input type\":[\"c10::ComplexFloat\"]}}", &fl);
  CHECK_STR(fl.dtype, "c10::ComplexFloat");
  flops_of("{\"name\":\"aten::mm\",\"args\":{\"Input Dims\":[[3,4],[4,5]]}}", &fl);
  CHECK_STR(fl.dtype, "unrecorded");
  /* which names the formulas model: the length decides first, then every byte */
  CHECK(tr_flops_modelled("aten::mm", 8));
  CHECK(tr_flops_modelled("aten::baddbmm", 13));
  CHECK(tr_flops_modelled("flash_attn::_flash_attn_backward", 32));
  CHECK(!tr_flops_modelled("aten::mm", 7));
  CHECK(!tr_flops_modelled("aten::mn", 8));
  CHECK(!tr_flops_modelled("aten::mmm", 9));
  CHECK(!tr_flops_modelled("", 0));
}

static void test_attention(void) {
  const char *q16 = "[16,16,559,64]";
  char j[512];
  snprintf(j, sizeof j, "{\"name\":\"aten::_scaled_dot_product_flash_attention\",\"args\":{\"Input Dims\":[%s,%s,%s,[],[],[],[]],"
           "\"Concrete Inputs\":[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"0.125\"]}}", q16, q16, q16);
  CHECK_FLOPS(j, 4.0 * 16 * 16 * 559 * 559 * 64 / 2); /* causal halves it: 10.239377 GF, as TraceLens */
  /* flash_attn's (B, N, H, d) layout */
  CHECK_FLOPS("{\"name\":\"flash_attn::_flash_attn_forward\",\"args\":{\"Input Dims\":[[2,128,8,64],[2,128,8,64],[2,128,8,64]],"
              "\"Concrete Inputs\":[\"\",\"\",\"\",\"0.0\",\"0.125\",\"False\"]}}",
              4.0 * 2 * 8 * 128 * 128 * 64);
  /* causal with Nq != Nkv: the mask is not known, so it is not modelled */
  tr_fl fl;
  CHECK(flops_of("{\"name\":\"aten::_scaled_dot_product_flash_attention\",\"args\":{\"Input Dims\":[[1,8,1,64],[1,8,128,64],[1,8,128,64]],"
                 "\"Concrete Inputs\":[\"\",\"\",\"\",\"0.\",\"True\"]}}", &fl) == -1);
  /* flash backward: 2.5x the forward (QK^T recomputed) */
  double fwd = 4.0 * 8 * 128 * 128 * 64;
  CHECK_FLOPS("{\"name\":\"aten::_scaled_dot_product_flash_attention_backward\",\"args\":{\"Input Dims\":"
              "[[1,8,128,64],[1,8,128,64],[1,8,128,64],[1,8,128,64]],\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
              "\"128\",\"128\",\"0.\",\"False\"]}}",
              2.5 * fwd);
  /* efficient backward with GQA (8 query heads, 2 KV heads): 2x the forward plus the reductions */
  double qk = 2.0 * 128 * 128 * 64, gqa = (8 / 2 - 1) * 128.0 * 64;
  CHECK_FLOPS("{\"name\":\"aten::_scaled_dot_product_efficient_attention_backward\",\"args\":{\"Input Dims\":"
              "[[1,8,128,64],[1,8,128,64],[1,2,128,64],[1,2,128,64],[],[1,8,128,64],[1,8,128],[],[],[],[],[],[]],"
              "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"\",\"False\",\"\"]}}",
              4 * 8 * qk + 2 * gqa);
}

static void test_bandwidth(void) {
  CHECK_STR(tr_bw_kind("_allgather_base"), "allgather");
  CHECK_STR(tr_bw_kind("reduce_scatter_tensor_coalesced"), "reducescatter");
  CHECK(tr_bw_kind("send") == NULL);
  CHECK(fabs(tr_bw_factor("allreduce", 8) - 1.75) < 1e-12);
  CHECK(fabs(tr_bw_factor("allgather", 4) - 0.75) < 1e-12);
  CHECK(fabs(tr_bw_factor("broadcast", 8) - 1.0) < 1e-12);
  CHECK_INT(tr_bw_bytes("allgather", 10, 40, "BFloat16"), 80); /* the gathered output */
  CHECK_INT(tr_bw_bytes("allreduce", 10, 10, "Float"), 40);
  CHECK_INT(tr_bw_bytes("allreduce", 10, 10, "Quux"), -1);
  tr_bw_rows rows = {0};
  tr_bw_add(&rows, "allreduce", 1000000000, 8, 500000.0); /* 1 GB in 0.5 s, twice */
  tr_bw_add(&rows, "allreduce", 1000000000, 8, 500000.0);
  tr_bw_add(&rows, "allreduce", -1, 8, 1.0); /* no size: skipped */
  tr_bw_finish(&rows);
  CHECK_INT(rows.n, 1);
  CHECK(fabs(rows.v[0].algbw_gbps - 2.0) < 1e-9);
  CHECK(fabs(rows.v[0].busbw_gbps - 3.5) < 1e-9);
  tr_bw_free(&rows);
}

static void test_devices(void) {
  const pd_device *d = tr_flops_device("NVIDIA A100-SXM4-40GB", 42505273344LL);
  CHECK(d && !strcmp(d->id, "A100-40G"));
  d = tr_flops_device("NVIDIA A100-PG509-200", 42297524224LL);
  CHECK(d && !strcmp(d->id, "A100-40G"));
  d = tr_flops_device("NVIDIA H100 80GB HBM3", 85018279936LL);
  CHECK(d && !strcmp(d->id, "H100-80G"));
  d = tr_flops_device("AMD Instinct MI300X", 205571227648LL);
  CHECK(d && !strcmp(d->id, "MI300X-192G"));
  CHECK(tr_flops_device("Tesla K80", 0) == NULL);
  CHECK(fabs(tr_flops_peak(tr_flops_device("NVIDIA H100 80GB HBM3", 0), "tf32") - 494.5) < 1e-9);
  CHECK(isnan(tr_flops_peak(tr_flops_device("NVIDIA A100-SXM4-40GB", 0), "fp8")));
}

static void test_memory(void) {
  tr_mem_win w[2] = {{1, 0, 1000}, {2, 1000, 2000}};
  tr_mem_col *m = tr_mem_new();
  tr_mem_add(m, 0, -1, 10, 999999, 999999, 1); /* the CPU: ignored */
  tr_mem_add(m, 1, 0, 100, 50, 64, 1);
  tr_mem_add(m, 1, 0, 1500, 80, 96, 2);
  tr_mem_add(m, 1, 0, 1600, 80, 96, 3); /* the same maximum later: the first one counts */
  tr_mem_add(m, 1, 0, 1700, 20, 96, 2);
  tr_memory r;
  tr_mem_finish(m, w, 2, &r);
  CHECK(r.measured);
  CHECK_INT(r.peak_alloc, 80);
  CHECK_INT(r.peak_reserved, 96);
  CHECK_INT(r.at_ns, 1500);
  CHECK_INT(r.at_tid, 2);
  CHECK_INT(r.steps[0].peak_alloc, 50);
  CHECK_INT(r.steps[1].peak_alloc, 80);
  CHECK(r.steps_exact);
  tr_memory_free(&r);
  /* more events than the buffer holds and no windows yet: thinned, the peaks still exact */
  m = tr_mem_new();
  for (int64_t i = 0; i < 300000; i++) {
    tr_mem_add(m, 1, 0, i * 10, i == 123457 ? 1 << 30 : i % 1000, 2000, 1);
    if (tr_mem_wants_windows(m)) tr_mem_settle(m, NULL, 0);
  }
  tr_mem_win big[2] = {{1, 0, 1500000}, {2, 1500000, 3000000}};
  tr_mem_finish(m, big, 2, &r);
  CHECK_INT(r.peak_alloc, 1 << 30);
  CHECK_INT(r.at_ns, 1234570);
  CHECK_INT(r.steps[0].peak_alloc, 1 << 30);
  CHECK(!r.steps_exact);
  tr_memory_free(&r);
}

/* Which op a moment falls in: the innermost running one on that thread, none in the gaps,
 * nested or not; before tr_ops_index's reach guard a gap walked back over up to 64 ops. */
static void test_op_lookup(void) {
  tr_ops_col *o = tr_ops_new();
  tr_fl fl = {.kind = TR_FL_GEMM, .flops = 1};
  tr_ops_add(o, "aten::mm", &fl, 1, 100, 200);  /* 0 */
  tr_ops_add(o, "aten::mm", &fl, 1, 300, 1000); /* 1, holds 2 and 3 */
  tr_ops_add(o, "aten::mm", &fl, 1, 400, 500);  /* 2 */
  tr_ops_add(o, "aten::mm", &fl, 1, 600, 700);  /* 3 */
  tr_ops_add(o, "aten::mm", &fl, 2, 150, 160);  /* 4: another thread */
  for (int i = 0; i < 100; i++) tr_ops_add(o, "aten::mm", &fl, 3, 10 * i, 10 * i + 5); /* 100 short ops */
  tr_ops_add(o, "aten::mm", &fl, 3, 0, 2000);  /* one long op under them all, 100 ops back */
  tr_ops_host(o, "outer", 5, 1, 0, 5000);
  tr_ops_host(o, "inner", 5, 1, 450, 460);
  tr_ops_index(o);
  CHECK_INT(tr_ops_find(o, 1, 50), TR_OPS_NONE);
  CHECK(tr_ops_find(o, 1, 150) != TR_OPS_NONE);
  CHECK_INT(tr_ops_find(o, 1, 200), TR_OPS_NONE); /* the end is open */
  CHECK_INT(tr_ops_find(o, 1, 250), TR_OPS_NONE);
  uint32_t outer = tr_ops_find(o, 1, 350), in2 = tr_ops_find(o, 1, 450), gap = tr_ops_find(o, 1, 550);
  CHECK(outer != TR_OPS_NONE && in2 != TR_OPS_NONE && in2 != outer);
  CHECK_INT(gap, outer); /* between two nested ops: the enclosing one */
  CHECK_INT(tr_ops_find(o, 1, 999), outer);
  CHECK_INT(tr_ops_find(o, 1, 1000), TR_OPS_NONE);
  CHECK(tr_ops_find(o, 2, 155) != TR_OPS_NONE);
  CHECK_INT(tr_ops_find(o, 2, 450), TR_OPS_NONE); /* thread 1's ops do not count on thread 2 */
  CHECK(tr_ops_find(o, 3, 2) != TR_OPS_NONE);
  /* past the 64-op walk the long op is not found, as before the guard (bounded look-ups) */
  CHECK_INT(tr_ops_find(o, 3, 1500), TR_OPS_NONE);
  char *h = tr_ops_host_at(o, 1, 455), *g = tr_ops_host_at(o, 1, 470), *none = tr_ops_host_at(o, 1, 6000);
  CHECK_STR(h, "inner");
  CHECK_STR(g, "outer");
  CHECK(none == NULL);
  free(h);
  free(g);
  tr_ops res;
  tr_ops_finish(o, NULL, 0, NULL, &res);
  CHECK_INT(res.calls, 106);
  tr_ops_free(&res);
}

int main(void) {
  test_gemm();
  test_attention();
  test_bandwidth();
  test_devices();
  test_memory();
  test_op_lookup();
  return pd_test_exit("trace_eff_units");
}
