/* The memory estimate against the worked examples of rules-catalog.md section D (within 10 %),
 * plus the GPU table and the verdicts that depend on them. */
#include <math.h>

#include "audit/facts.h"
#include "base/device.h"
#include "tests/audit/fixture.h"
#include "tests/harness.h"

static bool within(double got, double want, double tol) {
  bool ok = !isnan(got) && fabs(got - want) <= tol * want;
  if (!ok) fprintf(stderr, "  got %.3f, want %.3f ± %.0f %%\n", got, want, tol * 100);
  return ok;
}

static double fact(const au_result *r, const char *name) {
  ax_value v;
  if (!af_get(r->facts, name, &v)) return NAN;
  return v.kind == AX_NUM ? v.num : v.kind == AX_BOOL ? v.b : NAN;
}

int main(void) {
  /* Qwen3-4B on 8 GPUs, TP2 (d = 4): ≈ 2.0 B params/GPU → ≈ 18 GB static */
  au_result *r = fx_run("text/run-qwen3-4B-8xgpu.sh", "", NULL, NULL);
  CHECK(r != NULL);
  if (r) {
    CHECK(within(fact(r, "params_gpu_b"), 2.0, 0.10));
    CHECK(within(fact(r, "static_gb"), 18.0, 0.10));
    CHECK(within(fact(r, "bytes_per_param"), 6 + 12.0 / 4, 0.01));
    /* D2: ≈ 93 KB/token/layer, ≈ 17 GB at T = 10240, TP2 without recompute; ≈ 1.4 GB with it;
     * logits ≈ 4.7 GB */
    CHECK(within(fact(r, "act_norecompute") * 1073741824 / 1e9, 17.0, 0.10));
    CHECK(within(fact(r, "act_recompute") * 1073741824 / 1e9, 1.4, 0.10));
    CHECK(within(fact(r, "logits") * 1073741824 / 1e9, 4.7, 0.10));
    /* D3: 2·36·8·128·2 = 147,456 B of KV per token */
    CHECK(fact(r, "kv_bytes_token") == 147456);
    CHECK(fact(r, "M") == 95);
    CHECK(af_num(r->facts, AF_GPU_ASSUMED, 0) == 1);
    CHECK(fx_find(r, "R-M01") == NULL);
    au_result_free(r);
  }

  /* 35B-A3B on 4x H20, TP4 EP4 ETP1 (d = EDP = 1): ≈ 8.75 B params/GPU; with the trio ≈ 52 GB */
  r = fx_run("text/run-qwen35-35B-A3B-4xgpu-colocate.sh", "", NULL, NULL);
  CHECK(r != NULL);
  if (r) {
    CHECK(within(fact(r, "params_gpu_b"), 8.75, 0.10));
    CHECK(within(fact(r, "static_gb"), 52.0, 0.10));
    CHECK(within(fact(r, "P_b"), 35.0, 0.10));
    CHECK(within(fact(r, "P_active_b"), 3.45, 0.05)); /* "A3B" is the rounded name: see tests/fixtures/params */
    /* MOE_LAYER_FREQ built by a for-loop + printf -v in the model config: 40 MoE layers; KV only
     * on the full-attention layers of the hybrid-attention family */
    CHECK(fact(r, "moe_layers") == 40);
    CHECK(fact(r, "L_attn") == 10);
    CHECK(fx_find(r, "R-M01") == NULL); /* skipped: the trio is set */
    const au_finding *host = fx_find(r, "R-M07");
    /* ≈ 587 GiB fits in 80 % of a 1 TiB node and the node's RAM is not in the script: not said */
    CHECK(host == NULL);
    /* host RAM ≈ 35 B × 16 B + one 70 GB backup ≈ 630 GB */
    CHECK(within(fact(r, "host_needed") * 1073741824 / 1e9, 630, 0.10));
    au_result_free(r);
  }
  /* ... and without the trio ≈ 157 GB: R-M01 applies (critical on a named H20; an assumed
   * device could be larger, so there it is a warning) */
  au_config h20 = {.gpu = "H20-96G"};
  r = fx_run("text/run-qwen35-35B-A3B-4xgpu-colocate.sh",
             "del --optimizer-cpu-offload | del --overlap-cpu-optimizer-d2h-h2d | del --use-precision-aware-optimizer",
             &h20, NULL);
  CHECK(r != NULL);
  if (r) {
    CHECK(within(fact(r, "static_gb"), 157.0, 0.10));
    CHECK(within(fact(r, "bytes_per_param"), 18.0, 0.01));
    const au_finding *f = fx_find(r, "R-M01");
    CHECK(f != NULL && f->severity == AU_CRITICAL && !f->borderline);
    CHECK(f && f->nedits == 3);
    CHECK(fact(r, "min_gpus_fit") > 4);
    au_result_free(r);
  }

  /* "[0]*$N_DENSE_LAYERS+[1]*$N_MOE_LAYERS" → 48 MoE layers; Qwen3-30B-A3B ≈ 30.5 B / 3.3 B */
  r = fx_run("text/run-qwen3-30B-A3B-8xgpu.sh", "", NULL, NULL);
  if (r) {
    CHECK(fact(r, "moe_layers") == 48);
    CHECK(within(fact(r, "P_b"), 30.5, 0.05));
    CHECK(within(fact(r, "P_active_b"), 3.3, 0.10));
    au_result_free(r);
  }
  /* the GPU table: an explicit GPU replaces the H20 assumption */
  au_config cfg = {0};
  cfg.gpu = "A100-40G";
  r = fx_run("text/run-qwen3-4B-8xgpu.sh", "", &cfg, NULL);
  if (r) {
    CHECK(fact(r, "M") == 39.5);
    CHECK(af_num(r->facts, AF_GPU_ASSUMED, 1) == 0);
    CHECK_STR(af_str(r->facts, AF_GPU_DISPLAY), "A100 40GB");
    /* 39.7 GiB peak on a 39.5 GiB card: R-M02 within its error band → borderline (info) */
    const au_finding *f = fx_find(r, "R-M02");
    CHECK(f != NULL && f->borderline && f->severity == AU_INFO);
    au_result_free(r);
  }
  const char *names[][2] = {{"h100", "H100-80G"}, {"H800", "H800-80G"}, {"A100", "A100-80G"},
                            {"a100-40gb", "A100-40G"}, {"H200", "H200-141G"}, {"B200", "B200-192G"},
                            {"L20", "L20-48G"}, {"H20", "H20-96G"}, {"h20-141g", "H20-141G"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const pd_device *g = pd_device_find(names[i][0], NULL);
    CHECK(g != NULL);
    if (g) CHECK_STR(g->id, names[i][1]);
  }
  CHECK(pd_device_find("TPUv5", NULL) == NULL);
  CHECK(pd_device_find("H2000", NULL) == NULL);
  /* baselines: a setting two or more steps from the matching reference row carries the row in
   * its Cost line when the row agrees with the fix; one step does not, and a fix that does not
   * set that flag cites nothing. qwen3-4B@8 colocate: TP2, sglang mem 0.8 */
  r = fx_run("text/run-qwen3-4B-8xgpu.sh", "del --sequence-parallel | add --tensor-model-parallel-size 8", NULL, NULL);
  if (r) {
    const au_finding *f = fx_find(r, "R-P10"); /* its fix adds SP, it does not change TP */
    CHECK(f && !strstr(f->cost, "baseline"));
    au_result_free(r);
  }
  r = fx_run("text/run-qwen3-4B-8xgpu.sh", "del --sequence-parallel | add --tensor-model-parallel-size 4", NULL, NULL);
  if (r) {
    const au_finding *f = fx_find(r, "R-P10");
    CHECK(f && !strstr(f->cost, "baseline"));
    au_result_free(r);
  }
  r = fx_run("text/run-qwen3-4B-8xgpu.sh", "add --sglang-mem-fraction-static 0.9", NULL, NULL);
  if (r) {
    const au_finding *f = fx_find(r, "R-M05");
    CHECK(f && strstr(f->cost, "sglang mem 0.8") &&
          strstr(f->cost, "Relax recipe `scripts/training/text/run-qwen3-4B-8xgpu.sh` in redai-infra"));
    au_result_free(r);
  }
  return pd_test_exit("audit_memory");
}
