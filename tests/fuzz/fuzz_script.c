/* fuzz_script: arbitrary bash through the script model and the whole rule engine, then every
 * renderer (context JSON/text, report markdown/JSON/SARIF, hover facts).
 *
 * The input is the launch script, optionally followed by a line "#@@" and the text every
 * `source` resolves to (the model config, the entrypoint, a file sourcing itself...). Sourced
 * files are answered from memory through the sm_reader hook, so the run never reads the disk;
 * the workspace root is the fake script's folder so that source-following limits are hit too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "tests/fuzz/fuzz_util.h"

#define FZ_SCRIPT "/fuzz-ws/scripts/training/text/run-qwen3-4B-8xgpu.sh"

typedef struct {
  const char *sourced;
  size_t len;
} fz_files;

static char *fz_read(void *ctx, const char *path, size_t *len) {
  const fz_files *f = ctx;
  (void)path;
  if (!f->sourced) return NULL; /* errno from the caller's reset: reported as missing */
  *len = f->len;
  return pd_xstrndup(f->sourced, f->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The compiled catalog is read-only during analyses (as in the server): load it once. */
  static au_rules *rules;
  if (!rules) {
    char **errs = NULL;
    size_t nerrs = 0;
    rules = au_rules_load(NULL, &errs, &nerrs);
    if (nerrs) abort(); /* the built-in catalog must load cleanly */
    free(errs);
  }
  if (size > (1u << 20)) return -1;
  char *text = fz_cstr(data, size);
  size_t len = size;
  fz_files files = {NULL, 0};
  char *sep = strstr(text, "\n#@@\n"); /* strstr stops at an embedded NUL: fine, then no split */
  if (sep) {
    len = (size_t)(sep - text) + 1;
    files.sourced = sep + 5;
    files.len = size - len - 4;
  }
  sm_reader reader = {fz_read, &files};
  au_config cfg = {0};
  cfg.rules = rules;
  cfg.reader = &reader;
  cfg.workspace_root = "/fuzz-ws";
  cfg.model_config_dir = "/fuzz-ws/scripts/models";
  cfg.lang = (size & 1) ? "zh" : "en";
  au_result *r = au_run(FZ_SCRIPT, text, len, NULL, &cfg);

  json_t *j = sm_to_json(r->model);
  char *s = json_dumps(j, JSON_COMPACT);
  free(s);
  json_decref(j);
  free(sm_to_text(r->model));
  free(au_report_markdown(r, cfg.lang));
  j = au_report_json(r);
  json_decref(j);
  j = au_report_sarif(&r, 1, NULL);
  json_decref(j);
  for (size_t i = 0; i < r->model->nflags; i++)
    free(au_flag_markdown(r->rules, NULL, r->model->flags[i].name, &r->model->flags[i], cfg.lang));
  /* one hover topic per input */
  if (r->model->nflags) free(au_hover_facts(r, r->model->flags[size % r->model->nflags].name, cfg.lang));
  au_result_free(r);
  free(text);
  return 0;
}
