/* fuzz_rules: arbitrary rule files and rule expressions.
 *
 * Byte 0 bit 0 set: the rest is one expression (audit_expr): parsed, its names visited, and
 * evaluated against the real facts of a fixture script (so every fact function is callable
 * with arbitrary arguments). Clear: the rest is a user rule file: loaded into an empty catalog,
 * then, when it holds a valid rule, run by the whole engine next to the built-in rules on the
 * same script (templates, edits, overrides of built-in ids). The script model is built once per process. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/catalog.h"
#include "audit/expr.h"
#include "audit/facts.h"
#include "base/alloc.h"
#include "tests/fuzz/fuzz_util.h"

static const char fz_script[] =
    "#!/bin/bash\n"
    "MODEL_ARGS=(--num-layers 36 --hidden-size 2560 --ffn-hidden-size 9728 --num-attention-heads 32\n"
    "  --group-query-attention --num-query-groups 8 --vocab-size 151936 --kv-channels 128)\n"
    "PERF_ARGS=(--tensor-model-parallel-size 2 --pipeline-model-parallel-size 1 --sequence-parallel\n"
    "  --use-dynamic-batch-size --max-tokens-per-gpu 9216 --recompute-granularity full)\n"
    "ROLLOUT_ARGS=(--rollout-batch-size 32 --n-samples-per-prompt 8 --rollout-max-response-len 8192\n"
    "  --global-batch-size 256)\n"
    "ray job submit --address=http://127.0.0.1:8265 -- python3 -m relax.entrypoints.train \\\n"
    "  --resource '{\"actor\": [1, 8], \"rollout\": [1, 8]}' --colocate \\\n"
    "  \"${MODEL_ARGS[@]}\" \"${PERF_ARGS[@]}\" \"${ROLLOUT_ARGS[@]}\"  # NOTE(perf): fixture\n";

#define FZ_PATH "/fuzz-ws/run-qwen3-4B-8xgpu.sh"

static char *no_read(void *ctx, const char *path, size_t *len) {
  (void)ctx, (void)path, (void)len;
  return NULL;
}

static void visit(void *ctx, const char *name, bool is_call) {
  (void)name, (void)is_call;
  (*(size_t *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sm_model *model;
  static au_facts *facts;
  static const sm_reader reader = {no_read, NULL};
  if (!model) {
    sm_options o = {0};
    o.reader = &reader;
    o.workspace_root = "/fuzz-ws";
    model = sm_build(FZ_PATH, fz_script, sizeof fz_script - 1, NULL, &o);
    facts = af_compute(model, NULL);
  }
  if (size < 1 || size > (1u << 18)) return -1;
  const uint8_t *rest = data + 1;
  size_t n = size - 1;
  if (data[0] & 1) {
    char *src = fz_cstr(rest, n);
    char *err = NULL;
    ax_expr *e = ax_parse(src, &err);
    if (!e == !err) abort(); /* the contract: an expression, or a message */
    if (e) {
      size_t names = 0;
      ax_visit_names(e, visit, &names);
      char *why = NULL;
      (void)ax_bind(e, ac_resolve, NULL, &why); /* unbound names stay null when evaluated */
      free(why);
      ax_env env = af_env(facts);
      ax_value v = ax_eval(e, &env);
      (void)ax_truth(v);
      if (v.kind == AX_STR && !v.str) abort();
      ax_free(e);
    }
    free(err);
    free(src);
    return 0;
  }
  ac_catalog *c = ac_new();
  char **errs = NULL;
  size_t nerrs = 0, caperrs = 0;
  (void)ac_load(c, (const char *)rest, n, "fuzz.json", &errs, &nerrs, &caperrs);
  for (size_t i = 0; i < c->n; i++) (void)ac_find(c, c->rules[i].id);
  for (size_t i = 0; i < nerrs; i++) free(errs[i]);
  free(errs);
  size_t loaded = c->n;
  ac_free(c);
  /* The whole engine (built-in catalog + this file, compiled afresh) costs ~100x the load:
   * only for files that contribute at least one rule. */
  if (loaded == 0) return 0;

  int fd = fz_memfd(rest, n);
  char path[64];
  au_config cfg = {0};
  cfg.reader = &reader;
  cfg.workspace_root = "/fuzz-ws";
  cfg.extra_rules = fz_fd_path(fd, path, sizeof path);
  cfg.lang = (data[0] & 2) ? "zh" : "en";
  au_result *r = au_run(FZ_PATH, fz_script, sizeof fz_script - 1, NULL, &cfg);
  free(au_report_markdown(r, cfg.lang));
  json_decref(au_report_json(r));
  au_result_free(r);
  close(fd);
  return 0;
}
