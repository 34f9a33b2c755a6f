/* The script model on fixture scripts and on in-memory scripts (each construct of
 * script-patterns.md that matters for flags, context and ranges). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "script/fname.h"
#include "audit/audit.h"
#include "audit/facts.h"
#include "script/script.h"
#include "base/alloc.h"
#include "base/str.h"
#include "base/path.h"
#include "harness.h"

#define FIX PD_TESTS_DIR "/script/fixtures/scripts"

/* The built-in flag catalog, as every real build of a model has it (main loads it). */
static fc_catalog *test_catalog;

static const sm_options *with_catalog(const sm_options *opt) {
  static sm_options d;
  d = (sm_options){.catalog = test_catalog};
  return opt ? opt : &d;
}

static sm_model *build_file(const char *path, const sm_options *opt) {
  opt = with_catalog(opt);
  size_t len;
  char *text = pd_read_file(path, 1 << 24, &len);
  CHECK(text != NULL);
  if (!text) return sm_build(path, "", 0, NULL, opt);
  sm_model *m = sm_build(path, text, len, NULL, opt);
  free(text);
  return m;
}

static sm_model *build_text(const char *path, const char *text, const sm_options *opt) {
  return sm_build(path, text, strlen(text), NULL, with_catalog(opt));
}

static const sm_flag *nth(const sm_model *m, const char *name, int k) {
  for (size_t i = 0; i < m->nflags; i++)
    if (!strcmp(m->flags[i].name, name) && k-- == 0) return &m->flags[i];
  return NULL;
}

static bool has_cond(const sm_model *m, const char *code) {
  for (size_t i = 0; i < m->nconds; i++)
    if (!strcmp(m->conds[i].code, code)) return true;
  return false;
}

static const sm_condition *find_cond(const sm_model *m, const char *code) {
  for (size_t i = 0; i < m->nconds; i++)
    if (!strcmp(m->conds[i].code, code)) return &m->conds[i];
  return NULL;
}

static json_t *flag_json(json_t *model, const char *name, int k) {
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(model, "flags"), i, f) {
    if (!strcmp(json_string_value(json_object_get(f, "name")), name) && k-- == 0) return f;
  }
  return NULL;
}

/* The derived context lives in the facts: these read it there. */
static double dnum(const sm_model *m, af_id id) {
  au_facts *f = af_compute(m, NULL);
  double x = af_num(f, id, -1);
  af_free(f);
  return x;
}

static bool dstr_is(const sm_model *m, af_id id, const char *want) {
  au_facts *f = af_compute(m, NULL);
  const char *s = af_str(f, id);
  bool same = s && want && !strcmp(s, want);
  if (!same) fprintf(stderr, "fact %s: got %s, want %s\n", af_fact_name(id), s ? s : "(null)", want);
  af_free(f);
  return same;
}

static long jint(json_t *o, const char *k) { return (long)json_integer_value(json_object_get(o, k)); }
static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static void test_dense_colocate(void) {
  sm_model *m = build_file(FIX "/training/text/run-qwen3-4B-8xgpu.sh", NULL);
  CHECK(m->train_line_found);
  CHECK_INT(m->train_range.start_line + 1, 105);
  CHECK_INT(m->nflags, 73);
  CHECK_INT(m->nfiles, 3); /* script, entrypoint, model config */
  CHECK_STR(m->ctx.model, "qwen3-4B");
  CHECK(dnum(m, AF_MOE) == 0);
  CHECK(dstr_is(m, AF_MODALITY, "text"));
  CHECK(dnum(m, AF_GPUS) == 8);
  CHECK(dnum(m, AF_NODES) == 1);
  CHECK(dnum(m, AF_GPUS_PER_NODE) == 8);
  CHECK(dstr_is(m, AF_MODE, "colocate"));
  CHECK(dnum(m, AF_TP) == 2);
  CHECK(dnum(m, AF_PP) == 1);
  CHECK(dnum(m, AF_ETP) == 1);
  CHECK(dnum(m, AF_RESP) == 8192);
  CHECK(m->ctx.gpu == NULL); /* nobody names one: */
  CHECK(dstr_is(m, AF_GPU, "H20-96G"));
  CHECK(dnum(m, AF_GPU_ASSUMED) == 1);
  CHECK_INT(m->ctx.name_gpus, 8);
  CHECK_STR(m->ctx.name_device, "gpu");
  CHECK_STR(m->ctx.name_size, "4B");

  /* argparse order: launch-line flags first, then the spreads in order */
  CHECK_STR(m->flags[0].name, "--resource");
  CHECK_STR(m->flags[4].name, "--swiglu");
  CHECK_STR(m->flags[4].group, "MODEL_ARGS");
  /* the model config's flags keep their own file and line */
  const sm_flag *nl = sm_flag_get(m, "--num-layers");
  CHECK(nl && pd_str_ends(m->files[nl->file].path, "/scripts/models/qwen3-4B.sh"));
  CHECK(nl && nl->range.start_line + 1 == 4 && nl->range.start_col == 3);
  CHECK_STR(sm_flag_str(m, "--rotary-base"), "1000000"); /* ${X:-default} inside the config */
  /* multi-value flag */
  const sm_flag *ev = sm_flag_get(m, "--eval-prompt-data");
  CHECK(ev && ev->nvalues == 2);
  CHECK_STR(ev ? ev->values[0].text : NULL, "aime");
  CHECK_STR(ev ? ev->values[1].text : NULL, "/data/aime-2024/aime-2024.jsonl");
  CHECK(ev && ev->values[1].range.start_line + 1 == 46 && ev->values[1].range.start_col == 27);
  /* a commented-out element is not a flag */
  CHECK(sm_flag_get(m, "--micro-batch-size") == NULL);
  /* JSON value parsed */
  const sm_flag *res = sm_flag_get(m, "--resource");
  CHECK(res && json_is_object(res->json));
  CHECK(res && res->range.start_line + 1 == 109 && res->range.start_col == 3);
  CHECK(res && res->values[0].range.start_col == 14);
  /* typed lookups */
  long v;
  double d;
  CHECK(sm_flag_long(m, "--max-tokens-per-gpu", &v) && v == 9216);
  CHECK(sm_flag_double(m, "--sglang-mem-fraction-static", &d) && d == 0.7);
  CHECK(sm_flag_on(m, "--sequence-parallel"));
  CHECK(!sm_flag_on(m, "--use-precision-aware-optimizer"));
  CHECK(!has_cond(m, "syntax"));
  /* exported by the entrypoint, with where */
  const sm_var *mcd = sm_var_get(m, "MODEL_CONFIG_DIR");
  CHECK(mcd && mcd->exported && mcd->known && pd_str_ends(mcd->value, "/entrypoint/../models"));
  CHECK(mcd && pd_str_ends(m->files[mcd->file].path, "/entrypoint/local.sh"));
  const sm_var *rt = sm_var_get(m, "RUNTIME_ENV_JSON");
  CHECK(rt && rt->known && strstr(rt->value, "\"CUDA_DEVICE_MAX_CONNECTIONS\": \"1\""));
  CHECK(sm_var_get(m, "now") && !sm_var_get(m, "now")->known); /* $(date ...) */
  sm_model_free(m);
}

static void test_moe_async(void) {
  sm_model *m = build_file(FIX "/training/text/run-qwen35-35B-A3B-16xgpu-async.sh", NULL);
  CHECK(m->train_line_found);
  CHECK_STR(m->ctx.model, "qwen35-35B-A3B");
  CHECK(dnum(m, AF_MOE) == 1);
  CHECK(dnum(m, AF_E) == 256);
  CHECK(dstr_is(m, AF_MODE, "fully-async"));
  CHECK(dnum(m, AF_GPUS) == 16); /* 8 actor + $(( 2 * 4 )) rollout, dedicated */
  CHECK(dnum(m, AF_G_A) == 8);
  CHECK(dnum(m, AF_G_R) == 8);
  CHECK(dnum(m, AF_NODES) == 2);
  CHECK(dnum(m, AF_EP) == 8);
  CHECK(dnum(m, AF_ETP) == 1); /* case "${LAYOUT:-ep8}" picks the ep8 branch */
  CHECK(dnum(m, AF_CP) == 1);  /* ${CP:+...} with CP empty adds nothing */
  CHECK(sm_flag_get(m, "--context-parallel-size") == NULL);
  CHECK(dnum(m, AF_RESP) == 16384);
  CHECK(dstr_is(m, AF_GPU, "H100-80G"));
  CHECK(dnum(m, AF_GPU_ASSUMED) == 0);

  /* last occurrence wins; the earlier one is remembered as overridden */
  const sm_flag *d0 = nth(m, "--moe-token-dispatcher-type", 0);
  const sm_flag *d1 = nth(m, "--moe-token-dispatcher-type", 1);
  CHECK(d0 && d0->overridden && d1 && !d1->overridden);
  CHECK(d0 && d1 && &m->flags[d0->final_index] == d1);
  CHECK_STR(sm_flag_str(m, "--moe-token-dispatcher-type"), "flex");
  CHECK(nth(m, "--use-health-check", 0)->overridden);
  /* NOTE above (two comment lines) and NOTE trailing on the same line */
  CHECK(d1 && d1->note && strstr(d1->note, "NOTE(perf)") && strstr(d1->note, "DeepEP"));
  CHECK(d1 && d1->note_range.start_line + 1 == 29 && d1->note_range.end_line + 1 == 30);
  const sm_flag *mbs = sm_flag_get(m, "--micro-batch-size");
  CHECK(mbs && mbs->note && !strncmp(mbs->note, "NOTE(oom)", 9));
  /* two flags on one line */
  const sm_flag *mt = sm_flag_get(m, "--max-tokens-per-gpu");
  CHECK(mt && mt->range.start_line + 1 == 32 && mt->range.start_col == 28);
  /* case "${LAYOUT}" on LAYOUT="${LAYOUT:-ep8}": the default's branch runs, so its flags are
   * not conditional but rest on that default (the environment may pick another branch) */
  const sm_flag *etpf = sm_flag_get(m, "--expert-tensor-parallel-size");
  CHECK(etpf && !etpf->conditional && etpf->cert == SM_CERT_DEFAULT);
  CHECK(etpf && etpf->cert_var && !strcmp(etpf->cert_var, "LAYOUT"));
  /* values: $(seq), $((...)), empty string, multi-byte text */
  const sm_flag *bs = sm_flag_get(m, "--sglang-cuda-graph-bs");
  CHECK(bs && bs->nvalues == 7);
  CHECK_STR(bs ? bs->values[6].text : NULL, "32");
  CHECK_STR(sm_flag_str(m, "--update-weight-buffer-size"), "2147483648");
  CHECK(sm_flag_get(m, "--update-weight-buffer-size")->nvalues == 1); /* "${UNDEF[@]}" is nothing */
  const sm_flag *tk = sm_flag_get(m, "--tool-key");
  CHECK(tk && tk->nvalues == 1 && tk->values[0].text[0] == '\0');
  CHECK_STR(sm_flag_str(m, "--system-prompt"), "你好，世界");
  /* the vanished ${ROMPT_DATA} is reported; the MOE_LAYER_FREQ from printf -v over a
   * c-style loop and "$(IFS=', '; echo "${arr[*]}")" is evaluated */
  CHECK(has_cond(m, "value-vanished"));
  CHECK(sm_flag_get(m, "--prompt-data")->nvalues == 0);
  CHECK(has_cond(m, "spread-undefined"));
  const sm_flag *freq = sm_flag_get(m, "--moe-layer-freq");
  CHECK(freq && freq->values[0].resolved && freq->values[0].cert == SM_CERT_LITERAL);
  CHECK(freq && !strncmp(freq->values[0].text, "[1,1,", 5));
  /* heredoc body with unbalanced quotes does not disturb anything */
  CHECK(!has_cond(m, "syntax"));

  /* JSON: 1-based lines, character columns (after Chinese text) */
  au_facts *facts = af_compute(m, NULL);
  json_t *j = au_context_json(m, facts);
  af_free(facts);
  json_t *seed = flag_json(j, "--seed", 0);
  CHECK(seed && jint(seed, "line") == 45 && jint(seed, "column") == 28);
  CHECK_STR(jstr(j, "arch"), "moe");
  CHECK_STR(jstr(j, "mode"), "fully-async");
  CHECK_STR(jstr(flag_json(j, "--num-experts", 0), "file"), "../../models/qwen35-35B-A3B.sh");
  CHECK(json_is_true(json_object_get(flag_json(j, "--moe-token-dispatcher-type", 0),
                                     "overridden")));
  json_decref(j);
  sm_model_free(m);
}

/* The model as JSON equals the reviewed expectation (a subset match: every key given in the
 * expected file must be present and equal; arrays must have the same length). */
static bool subset(json_t *want, json_t *got, const char *where) {
  if (json_is_object(want)) {
    const char *k;
    json_t *v;
    json_object_foreach(want, k, v) {
      char *w = pd_xasprintf("%s.%s", where, k);
      bool ok = subset(v, json_object_get(got, k), w);
      free(w);
      if (!ok) return false;
    }
    return true;
  }
  if (json_is_array(want)) {
    if (!json_is_array(got) || json_array_size(got) != json_array_size(want)) {
      fprintf(stderr, "%s: array size %zu, want %zu\n", where, json_array_size(got),
              json_array_size(want));
      return false;
    }
    for (size_t i = 0; i < json_array_size(want); i++) {
      char *w = pd_xasprintf("%s[%zu]", where, i);
      bool ok = subset(json_array_get(want, i), json_array_get(got, i), w);
      free(w);
      if (!ok) return false;
    }
    return true;
  }
  if (!json_equal(want, got)) {
    char *a = json_dumps(want, JSON_ENCODE_ANY), *b = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL;
    fprintf(stderr, "%s: got %s, want %s\n", where, b ? b : "(missing)", a);
    free(a);
    free(b);
    return false;
  }
  return true;
}

/* What `perf-doctor context --format json` prints: the model and its derived context. */
static void test_expected_json(const char *script, const char *expected) {
  sm_model *m = build_file(script, NULL);
  au_facts *facts = af_compute(m, NULL);
  json_t *got = au_context_json(m, facts);
  af_free(facts);
  json_error_t err;
  json_t *want = json_load_file(expected, 0, &err);
  CHECK(want != NULL);
  if (want) CHECK(subset(want, got, "$"));
  json_decref(want);
  json_decref(got);
  sm_model_free(m);
}

static void test_fname(void) {
  struct {
    const char *name, *model, *size, *dev, *suf, *mode, *modality;
    long gpus;
  } cases[] = {
      {"run-qwen3-4B-8xgpu.sh", "qwen3", "4B", "gpu", NULL, NULL, NULL, 8},
      {"run-qwen35-35B-A3B-16xgpu-async.sh", "qwen35", "35B-A3B", "gpu", "async", "fully-async",
       NULL, 16},
      {"run_qwen35_9B_mtp_8xnpu_thd.sh", "qwen35", "9B", "npu", "mtp-thd", NULL, NULL, 8},
      {"run-qwen3.5-9B-32xklx.sh", "qwen3.5", "9B", "klx", NULL, NULL, NULL, 32},
      {"run-qwen3-vl-4B-8xgpu-aggressive.sh", "qwen3-vl", "4B", "gpu", "aggressive", NULL, "mm", 8},
      {"run-qwen3-30B-A3B-omni-16xgpu-video.sh", "qwen3", "30B-A3B", "gpu", "omni-video", NULL,
       "video", 16},
      {"run-kimi-k2.6-256xgpu-int4.sh", "kimi-k2.6", NULL, "gpu", "int4", NULL, NULL, 256},
      {"run-qwen3-0.6B-drgrpo.sh", "qwen3", "0.6B", NULL, "drgrpo", NULL, NULL, -1},
      {"run-qwen35-9B-8xP800.sh", "qwen35", "9B", "P800", NULL, NULL, NULL, 8},
      {"run-qwen3-vl-2b-4xgpu-colocate.sh", "qwen3-vl", "2b", "gpu", "colocate", "colocate", "mm",
       4},
      {"run-qwen3-4B-8xgpu-hybrid-image.sh", "qwen3", "4B", "gpu", "hybrid-image", "hybrid", "mm",
       8},
      {"/a/b/run-deepseek-v4-flash-sft-0731-128xgpu-fp4.sh", "deepseek-v4-flash-sft-0731", NULL,
       "gpu", "fp4", NULL, NULL, 128},
      {"weird.sh", "weird", NULL, NULL, NULL, NULL, NULL, -1},
      {"", NULL, NULL, NULL, NULL, NULL, NULL, -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fn_info fi = fn_parse(cases[i].name);
    CHECK_STR(fi.model, cases[i].model);
    CHECK_STR(fi.size, cases[i].size);
    CHECK_STR(fi.device, cases[i].dev);
    CHECK_STR(fi.suffixes, cases[i].suf);
    CHECK_STR(fi.mode_hint, cases[i].mode);
    CHECK_STR(fi.modality_hint, cases[i].modality);
    CHECK_INT(fi.gpus, cases[i].gpus);
    fn_info_free(&fi);
  }
}

static void test_notes(void) {
  const char *s =
      "A_ARGS=(\n"
      "   # NOTE(wuhuan): to avoid algorithm performance degradation\n"
      "   --no-rope-fusion\n"
      "   # a plain comment\n"
      "   --moe-aux-loss-coeff 0.0\n"
      "   # NOTE: separated by a blank line\n"
      "\n"
      "   --attention-dropout 0.0\n"
      "   --hidden-dropout 0.0   # NOTE(x): trailing reason\n"
      "   # NOTE(y): explains\n"
      "   #   over two lines\n"
      "   --recompute-granularity full\n"
      "   --a 1 --b 2 # NOTE(z): last flag of the line\n"
      ")\n"
      "python3 -m relax.entrypoints.train \"${A_ARGS[@]}\"\n";
  sm_model *m = build_text("/tmp/run-x-1B-1xgpu.sh", s, NULL);
  const sm_flag *f = sm_flag_get(m, "--no-rope-fusion");
  CHECK(f && f->note && !strcmp(f->note, "NOTE(wuhuan): to avoid algorithm performance degradation"));
  CHECK(f && f->note_range.start_line == 1 && f->note_range.start_col == 3);
  CHECK(sm_flag_get(m, "--moe-aux-loss-coeff")->note == NULL);
  CHECK(sm_flag_get(m, "--attention-dropout")->note == NULL);
  CHECK_STR(sm_flag_get(m, "--hidden-dropout")->note, "NOTE(x): trailing reason");
  CHECK_STR(sm_flag_get(m, "--recompute-granularity")->note, "NOTE(y): explains over two lines");
  CHECK(sm_flag_get(m, "--a")->note == NULL);
  CHECK_STR(sm_flag_get(m, "--b")->note, "NOTE(z): last flag of the line");
  sm_model_free(m);
}

static void test_half_typed(void) {
  /* unterminated quote inside an array: the flags after it are still recovered */
  const char *s1 =
      "A=(1)\n"
      "PERF_ARGS=(\n"
      "   --tensor-model-parallel-size 2\n"
      "   --x \"abc\n"
      "   --y 3\n"
      ")\n"
      "ray job submit -- python3 -m relax.entrypoints.train \"${PERF_ARGS[@]}\"\n";
  sm_model *m = build_text("/tmp/run-half-1B-8xgpu.sh", s1, NULL);
  CHECK(has_cond(m, "syntax"));
  CHECK_STR(sm_flag_str(m, "--tensor-model-parallel-size"), "2");
  CHECK(sm_flag_get(m, "--x") != NULL);
  CHECK_STR(sm_flag_str(m, "--y"), "3");
  const sm_flag *y = sm_flag_get(m, "--y");
  CHECK(y && y->range.start_line == 4 && y->range.start_col == 3);
  sm_model_free(m);

  /* unclosed array at the end of the file, no train line */
  const char *s2 = "PERF_ARGS=(\n   --tensor-model-parallel-size 4\n   --sequence-parallel\n";
  m = build_text("/tmp/run-half2.sh", s2, NULL);
  CHECK(!m->train_line_found);
  CHECK(has_cond(m, "no-train-line"));
  CHECK(dnum(m, AF_TP) == 4);
  CHECK(sm_flag_on(m, "--sequence-parallel"));
  sm_model_free(m);

  /* train line cut in the middle of a spread */
  const char *s3 = "P_ARGS=(--lr 1e-6)\nray job submit -- python3 -m relax.entrypoints.train "
                   "--colocate \"${P_ARGS[@]";
  m = build_text("/tmp/run-half3.sh", s3, NULL);
  CHECK(sm_flag_on(m, "--colocate") || sm_flag_get(m, "--lr") != NULL);
  sm_model_free(m);

  /* empty text and garbage never fail */
  m = build_text("/tmp/empty.sh", "", NULL);
  CHECK_INT(m->nflags, 0);
  CHECK(!m->train_line_found);
  sm_model_free(m);
  const char garbage[] = "((((\"'`$(${{[[ ]]}}<<EOF\n\x01\x02\xff\xfe --x";
  m = sm_build("/tmp/garbage.sh", garbage, sizeof garbage - 1, NULL, NULL);
  CHECK(m != NULL);
  sm_model_free(m);
}

static void test_no_train_line(void) {
  const char *s = "ROLLOUT_ARGS=(--rollout-batch-size 32)\nMISC=(--not-counted 1)\n"
                  "PERF_ARGS=(--tensor-model-parallel-size 2)\n";
  sm_model *m = build_text("/tmp/run-n.sh", s, NULL);
  CHECK(!m->train_line_found);
  CHECK_INT(m->nflags, 2);
  CHECK_STR(m->flags[0].name, "--rollout-batch-size");
  CHECK(sm_flag_get(m, "--not-counted") == NULL);
  sm_model_free(m);
}

static void test_launch_forms(void) {
  /* the command held in an array, run through a function; a DRY_RUN printf does not count */
  const char *s =
      "CMD=( python3 -m relax.entrypoints.train --lr 2e-6 --resource '{\"actor\": [1, '\"${N:-4}\"']}' )\n"
      "if [ -n \"${DRY_RUN:-}\" ]; then printf '%q ' \"${CMD[@]}\"; fi\n"
      "launch() {\n"
      "  RAY_NO_WAIT=1 ray job submit --no-wait --submission-id=\"x\" -- \"${CMD[@]}\" --seed=7\n"
      "}\n"
      "launch\n";
  sm_model *m = build_text("/tmp/run-l.sh", s, NULL);
  CHECK(m->train_line_found);
  CHECK_INT(m->train_range.start_line, 3);
  CHECK_STR(sm_flag_str(m, "--lr"), "2e-6");
  CHECK_STR(sm_flag_str(m, "--seed"), "7"); /* --flag=value */
  const sm_flag *r = sm_flag_get(m, "--resource");
  CHECK(r && r->json && json_integer_value(json_array_get(json_object_get(r->json, "actor"), 1)) == 4);
  CHECK(sm_flag_get(m, "--no-wait") == NULL); /* ray's own options are not training flags */
  CHECK(!has_cond(m, "train-line-extra"));
  sm_model_free(m);

  /* train.py path form, python without 3, and an invalid JSON */
  const char *s2 = "python ${SCRIPT_DIR}/../../../relax/entrypoints/train.py --resource '{\"actor\": [1, 8],}'\n";
  m = build_text("/tmp/run-p.sh", s2, NULL);
  CHECK(m->train_line_found);
  CHECK(has_cond(m, "json-invalid"));
  sm_model_free(m);
}

static void test_redirected_condition(void) {
  /* `[ -n "${X:-}" ] && cmd >/dev/null 2>&1` parses as the list redirected: the test on a variable
   * nothing sets still decides it (false), so the branch does not run */
  const char *s =
      "V=/from-script\n"
      "if [ -n \"${RAY_ADDRESS:-}\" ] && timeout 5 ray status >/dev/null 2>&1; then\n"
      "  V=/from-branch\n"
      "fi\n"
      "python3 -m relax.entrypoints.train --save \"$V\"\n";
  sm_model *m = build_text("/tmp/run-r.sh", s, NULL);
  CHECK_STR(sm_flag_str(m, "--save"), "/from-script");
  sm_model_free(m);
  /* when the test passes, the redirected command decides: not known, so the branch may run */
  const char *s2 =
      "V=/from-script\nX=1\n"
      "if [ -n \"$X\" ] && timeout 5 ray status >/dev/null 2>&1; then\n"
      "  V=/from-branch\n"
      "fi\n"
      "python3 -m relax.entrypoints.train --save \"$V\"\n";
  m = build_text("/tmp/run-r2.sh", s2, NULL);
  const sm_flag *f = sm_flag_get(m, "--save");
  CHECK(f && f->nvalues == 1 && f->values[0].cert == SM_CERT_BRANCH);
  sm_model_free(m);
}

/* An in-memory file system for sourcing tests. */
typedef struct {
  const char *path, *text;
} vfile;

static char *vread(void *ctx, const char *path, size_t *len) {
  for (const vfile *f = ctx; f->path; f++)
    if (!strcmp(f->path, path)) {
      *len = strlen(f->text);
      return pd_xstrdup(f->text);
    }
  return NULL;
}

static void test_git_fork(void) {
  /* no flag says which fork the script is for: the checkout's git remote does. redai-studio
   * accepts PPO and redai-infra refuses it (at the catalog's commits) */
  vfile studio[] = {{"/co/.git/config", "[remote \"origin\"]\n\turl = https://github.com/redai-studio/Relax.git\n"},
                    {NULL, NULL}};
  vfile infra[] = {{"/co/.git/config", "[remote \"origin\"]\n\turl = git@github.com:redai-infra/Relax.git\n"},
                   {NULL, NULL}};
  vfile both[] = {{"/co/.git/config", "[remote \"a\"]\n url = https://github.com/redai-infra/Relax\n"
                                      "[remote \"b\"]\n url = https://github.com/redai-studio/Relax\n"},
                  {NULL, NULL}};
  const char *s = "python3 -m relax.entrypoints.train --advantage-estimator ppo\n";
  sm_reader rd = {vread, studio};
  sm_options opt = {.reader = &rd, .catalog = test_catalog};
  sm_model *m = sm_build("/co/scripts/training/text/run-p.sh", s, strlen(s), NULL, &opt);
  CHECK(!has_cond(m, "value-refused-fork"));
  sm_model_free(m);
  rd.ctx = infra;
  m = sm_build("/co/scripts/training/text/run-p.sh", s, strlen(s), NULL, &opt);
  const sm_condition *c = find_cond(m, "value-refused-fork");
  CHECK(c && strstr(c->message, "a clone of it: git@github.com:redai-infra/relax.git"));
  sm_model_free(m);
  rd.ctx = both;
  m = sm_build("/co/scripts/training/text/run-p.sh", s, strlen(s), NULL, &opt);
  c = find_cond(m, "value-refused-fork");
  CHECK(c && strstr(c->message, "redai-studio/Relax accepts it"));
  sm_model_free(m);
}

static void test_sources(void) {
  vfile fs[] = {
      {"/ws/scripts/models/m.sh", "MODEL_ARGS=(--num-layers 4)\nsource /ws/scripts/models/m.sh\n"},
      {"/ws/a.sh", "source /ws/b.sh\nA_ARGS=(--from-a 1)\n"},
      {"/ws/b.sh", "source /ws/a.sh\nB_ARGS=(--from-b 1)\n"},
      {NULL, NULL},
  };
  sm_reader rd = {vread, fs};
  sm_options opt = {.reader = &rd, .model_config_dir = "/ws/scripts/models"};
  /* a config that sources itself; two files that source each other: no loop, reported */
  const char *s = "source \"${MODEL_CONFIG_DIR}/m.sh\"\nsource /ws/a.sh\n"
                  "python3 -m relax.entrypoints.train \"${MODEL_ARGS[@]}\" \"${A_ARGS[@]}\" \"${B_ARGS[@]}\"\n";
  sm_model *m = sm_build("/nowhere/run-s.sh", s, strlen(s), NULL, &opt);
  CHECK(has_cond(m, "source-cycle"));
  CHECK_STR(m->ctx.model, "m");
  CHECK_STR(sm_flag_str(m, "--num-layers"), "4");
  CHECK(sm_flag_get(m, "--from-a") && sm_flag_get(m, "--from-b"));
  sm_model_free(m);

  /* missing model config: reported, the model name is still known */
  const char *s2 = "source \"${MODEL_CONFIG_DIR}/qwen3-8B.sh\"\n";
  m = sm_build("/nowhere/run-m.sh", s2, strlen(s2), NULL, &opt);
  CHECK(has_cond(m, "source-missing"));
  CHECK_STR(m->ctx.model, "qwen3-8B");
  sm_model_free(m);

  /* outside the workspace: not followed */
  sm_options opt2 = {.reader = &rd, .workspace_root = "/elsewhere"};
  const char *s3 = "source /ws/a.sh\n";
  m = sm_build("/elsewhere/run-w.sh", s3, strlen(s3), NULL, &opt2);
  CHECK(has_cond(m, "source-outside"));
  CHECK_INT(m->nfiles, 1);
  sm_model_free(m);

  /* no entrypoint: MODEL_CONFIG_DIR found as a sibling scripts/models directory upwards */
  const char *s4 = "source \"${MODEL_CONFIG_DIR}/qwen3-4B.sh\"\n"
                   "python3 -m relax.entrypoints.train \"${MODEL_ARGS[@]}\"\n";
  m = build_text(FIX "/training/sft/run-virtual-8xgpu.sh", s4, NULL);
  CHECK_STR(m->ctx.model, "qwen3-4B");
  CHECK_STR(sm_flag_str(m, "--hidden-size"), "2560");
  CHECK(!has_cond(m, "source-missing"));
  sm_model_free(m);

  /* nothing on disk: the setting is the last resort */
  sm_options opt3 = {.model_config_dir = FIX "/models"};
  m = build_text("/nonexistent/dir/run-v.sh", s4, &opt3);
  CHECK_STR(sm_flag_str(m, "--num-query-groups"), "8");
  sm_model_free(m);
}

/* Every file sources itself under a name that repeats its own folder twice: without a limit on
 * the path's length it doubled at each level (the fuzzer reached 2.7 GB). */
static char *vread_any(void *ctx, const char *path, size_t *len) {
  (void)path;
  *len = strlen(ctx);
  return pd_xstrdup(ctx);
}

static void test_source_path_growth(void) {
  const char *text = "SCRIPT_DIR=\"$(cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")\" &>/dev/null && pwd)\"\n"
                     "source \"${SCRIPT_DIR}/${SCRIPT_DIR}/${SCRIPT_DIR}/a.sh\"\n"
                     "source \"${SCRIPT_DIR}/${SCRIPT_DIR}/b.sh\"\n";
  sm_reader rd = {vread_any, (void *)text};
  sm_options opt = {.reader = &rd};
  sm_model *m = sm_build("/ws/scripts/training/text/run-grow.sh", text, strlen(text), NULL, &opt);
  CHECK(has_cond(m, "source-unresolved"));
  size_t longest = 0;
  for (size_t i = 0; i < m->nconds; i++)
    if (strlen(m->conds[i].message) > longest) longest = strlen(m->conds[i].message);
  CHECK(longest < 3 * PATH_MAX);
  CHECK(m->nfiles <= 64);
  sm_model_free(m);
}

static void test_gpu_choice(void) {
  const char *s = "# perf-doctor: gpu=a100-40gb\nX_ARGS=(--lr 1)\n";
  sm_model *m = build_text("/tmp/run-g.sh", s, NULL);
  CHECK_STR(m->ctx.gpu, "a100-40gb"); /* as the script writes it */
  CHECK(dstr_is(m, AF_GPU, "A100-40G"));
  CHECK(dnum(m, AF_GPU_ASSUMED) == 0);
  sm_model_free(m);
  sm_options opt = {.gpu = "h800"};
  m = build_text("/tmp/run-g.sh", s, &opt);
  CHECK(dstr_is(m, AF_GPU, "H800-80G"));
  sm_model_free(m);
}

static void test_expansions(void) {
  const char *s =
      "EXP_DIR=\"${MODEL_DIR:=/m}/exps\"\n"              /* := assigns another variable */
      "A=\"${A:-${B:-nested}}\"\n"
      "N=$(( (3 + 5) * 2 ** 2 ))\n"
      "unset GONE\n"
      "X_ARGS=(--a ${MODEL_DIR} --b \"$A\" --c $N --d ${N-9} --e \"${GONE:-x y}\" --f ${GONE:-p q})\n"
      "X_ARGS+=(--g \"$(dirname /p/q/r.sh)\" --h $'t\\tu')\n"
      "python3 -m relax.entrypoints.train \"${X_ARGS[@]}\"\n";
  sm_model *m = build_text("/tmp/run-e.sh", s, NULL);
  CHECK_STR(sm_flag_str(m, "--a"), "/m");
  CHECK_STR(sm_flag_str(m, "--b"), "nested");
  CHECK_STR(sm_flag_str(m, "--c"), "32");
  CHECK_STR(sm_flag_str(m, "--d"), "32");
  CHECK_STR(sm_flag_str(m, "--e"), "x y");     /* quoted: one value */
  CHECK_INT(sm_flag_get(m, "--f")->nvalues, 2); /* unquoted: split */
  CHECK_STR(sm_flag_str(m, "--g"), "/p/q");
  CHECK_STR(sm_flag_str(m, "--h"), "t\tu");
  /* final variables, including the := side effect */
  const sm_var *md = sm_var_get(m, "MODEL_DIR");
  CHECK(md && md->known && !strcmp(md->value, "/m") && md->file == -1);
  const sm_var *ed = sm_var_get(m, "EXP_DIR");
  CHECK(ed && !strcmp(ed->value, "/m/exps") && ed->range.start_line == 0 && !ed->exported);
  CHECK(sm_var_get(m, "GONE") == NULL);
  sm_model_free(m);

  /* an array spread into itself (found by the random-edit test): no use after free */
  const char *s2 = "A=(--a 1 --b 2 --c 3 --d 4 --e 5 --f 6 --g 7 --h 8 --i 9)\n"
                   "A+=(\"${A[@]}\")\nA+=(x\"${A[@]}\"y)\n"
                   "python3 -m relax.entrypoints.train \"${A[@]}\"\n";
  m = build_text("/tmp/run-self.sh", s2, NULL);
  CHECK(nth(m, "--i", 1) != NULL && nth(m, "--i", 1)->overridden);
  CHECK_INT(m->nflags, 35); /* 9 + 9, then 18 more of which x--a is a value, not a flag */
  sm_model_free(m);
}

/* A 30,000-line script: arrays of flags and noise; every flag is found. */
static void test_big_script(void) {
  pd_buf b = {0};
  size_t lines = 0, flags = 0;
  pd_buf_puts(&b, "#!/bin/bash\nset -ex\n");
  lines += 2;
  for (int a = 0; lines < 29990; a++) {
    pd_buf_printf(&b, "GROUP%d_ARGS=(\n", a);
    lines++;
    for (int i = 0; i < 20; i++, lines++, flags++)
      pd_buf_printf(&b, "   --flag-%d-%d %d  # comment 注释\n", a, i, i);
    pd_buf_printf(&b, ")\nV%d=\"${V%d:-value}\"\n", a, a);
    lines += 2;
  }
  pd_buf_puts(&b, "python3 -m relax.entrypoints.train");
  size_t groups = 0;
  for (const char *p = b.data; (p = strstr(p, "_ARGS=(")); p++) groups++;
  for (size_t g = 0; g < groups; g++) pd_buf_printf(&b, " \"${GROUP%zu_ARGS[@]}\"", g);
  pd_buf_puts(&b, "\n");
  lines++;
  CHECK(lines >= 29990);
  sm_model *m = sm_build("/tmp/run-big.sh", b.data, b.len, NULL, NULL);
  CHECK_INT(m->nflags, flags);
  CHECK(m->train_line_found);
  const sm_flag *last = &m->flags[m->nflags - 1];
  CHECK(last->range.start_line + 3 >= 29990 - 3 || last->range.start_line > 29000);
  sm_model_free(m);
  pd_buf_free(&b);
}

/* Reading a FIFO would block forever (in an editor, the server): refused before opening. */
static void test_read_fifo(void) {
  char path[] = "/tmp/pd-fifo-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  close(fd);
  unlink(path);
  CHECK(mkfifo(path, 0600) == 0);
  size_t len;
  errno = 0;
  CHECK(pd_read_file(path, 1 << 20, &len) == NULL && errno == EINVAL);
  CHECK(strstr(pd_read_error(errno), "not a regular file") != NULL);
  unlink(path);
  CHECK(pd_read_file("/tmp", 1 << 20, &len) == NULL && errno == EISDIR);
}

/* The sourced-file cache gives the same model as reading and parsing afresh. */
static void test_cache(void) {
  sm_cache *c = sm_cache_new();
  sm_options opt = {.cache = c, .catalog = test_catalog};
  const char *path = FIX "/training/text/run-qwen35-35B-A3B-16xgpu-async.sh";
  sm_model *fresh = build_file(path, NULL);
  json_t *want = sm_to_json(fresh);
  for (int i = 0; i < 3; i++) { /* first fills the cache, the others hit it */
    sm_model *m = build_file(path, &opt);
    json_t *got = sm_to_json(m);
    CHECK(json_equal(want, got));
    json_decref(got);
    sm_model_free(m);
  }
  json_decref(want);
  sm_model_free(fresh);
  sm_cache_free(c);
}

/* A resumable build against a fresh one: same model JSON. `u` is unchanged_before. */
static bool resume_build(const char *text, const sm_options *base, sm_resume *rs, uint32_t u,
                         uint32_t focus) {
  sm_options opt = *base;
  opt.resume = rs;
  rs->unchanged_before = u;
  rs->focus = focus;
  sm_model *m = sm_build("/ws/run-r.sh", text, strlen(text), NULL, &opt);
  sm_model *f = sm_build("/ws/run-r.sh", text, strlen(text), NULL, base);
  json_t *a = sm_to_json(m), *b = sm_to_json(f);
  bool same = json_equal(a, b);
  if (!same) {
    char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);
    fprintf(stderr, "resumed: %s\nfresh:   %s\n", x, y);
    free(x);
    free(y);
  }
  json_decref(a);
  json_decref(b);
  sm_model_free(m);
  sm_model_free(f);
  return same;
}

static void test_resume(void) {
  vfile fs[] = {{"/ws/models/m.sh", "MODEL_ARGS=(--num-layers 4)\nset_tp() { TP=$1; }\n"},
                {NULL, NULL}};
  sm_reader rd = {vread, fs};
  sm_options base = {.reader = &rd, .model_config_dir = "/ws/models", .workspace_root = "/ws"};
  /* a function from the script and one from the sourced file, both called after the edit */
  char text[2048];
  const char *fmt = "source \"${MODEL_CONFIG_DIR}/m.sh\"\n"
                    "pick() { case \"$1\" in a) MB=%d ;; *) MB=1 ;; esac; }\n"
                    "A_ARGS=(--lr 1e-6)\n"
                    "B_ARGS=(--max-tokens-per-gpu %s)\n"
                    "pick a\nset_tp 2\n"
                    "python3 -m relax.entrypoints.train \"${MODEL_ARGS[@]}\" \"${A_ARGS[@]}\" "
                    "\"${B_ARGS[@]}\" --micro-batch-size ${MB} --tensor-model-parallel-size ${TP}\n";
  snprintf(text, sizeof text, fmt, 3, "9216");
  uint32_t b_at = (uint32_t)(strstr(text, "B_ARGS") - text);
  sm_resume rs = {0};
  /* first build: nothing to resume from; a checkpoint is left before B_ARGS */
  CHECK(resume_build(text, &base, &rs, 0, b_at + 30));
  CHECK(!rs.resumed && rs.checkpoint != NULL);
  /* typing inside B_ARGS: resumed, same model, the checkpoint kept */
  sm_checkpoint *first = rs.checkpoint;
  snprintf(text, sizeof text, fmt, 3, "92167");
  CHECK(resume_build(text, &base, &rs, b_at + 30, b_at + 30));
  CHECK(rs.resumed && rs.checkpoint == first);
  /* the same text again (a configuration change): resumed */
  CHECK(resume_build(text, &base, &rs, UINT32_MAX, b_at + 30));
  CHECK(rs.resumed);
  /* the sourced file changed: not resumed, and its new content is seen */
  fs[0].text = "MODEL_ARGS=(--num-layers 8)\nset_tp() { TP=$1; }\n";
  CHECK(resume_build(text, &base, &rs, UINT32_MAX, b_at + 30));
  CHECK(!rs.resumed && rs.checkpoint != NULL);
  /* other options: not resumed */
  sm_options other = base;
  other.model_config_dir = "/ws/other";
  CHECK(resume_build(text, &other, &rs, UINT32_MAX, b_at + 30));
  CHECK(!rs.resumed);
  CHECK(resume_build(text, &base, &rs, UINT32_MAX, b_at + 30)); /* back: a fresh checkpoint */
  /* an edit before the checkpoint (in pick): not resumed */
  snprintf(text, sizeof text, fmt, 5, "92167");
  CHECK(resume_build(text, &base, &rs, (uint32_t)(strstr(text, "MB=5") - text), b_at + 30));
  CHECK(!rs.resumed);
  /* moving forward statement by statement: each build resumes and leaves a later checkpoint
   * (the pinned trees keep the earlier functions' bodies alive; ASan checks that) */
  uint32_t prev = b_at;
  int forward = 0;
  for (const char *at = strstr(text, "pick a"); at; at = strchr(at + 1, '\n')) {
    uint32_t focus = (uint32_t)(at - text) + 1;
    if (focus >= strlen(text)) break;
    CHECK(resume_build(text, &base, &rs, prev, focus));
    forward += rs.resumed;
    prev = focus;
  }
  CHECK(forward >= 2);
  /* `A=3` leaves A's array as it was: replayed only when that array is as before */
  char t2[256];
  sm_resume r2 = {0};
  snprintf(t2, sizeof t2, "A=(--x %d)\nA=3\npython3 -m relax.entrypoints.train \"${A[@]}\"\n", 1);
  CHECK(resume_build(t2, &base, &r2, 0, 5));
  snprintf(t2, sizeof t2, "A=(--x %d)\nA=3\npython3 -m relax.entrypoints.train \"${A[@]}\"\n", 2);
  CHECK(resume_build(t2, &base, &r2, 7, 7));
  CHECK(r2.resumed);
  /* appends replay (only the appended fields are kept) */
  const char *fmt3 = "B=(--a 1)\nC=(--c %d)\nB+=(--b 2)\nB+=(--d 3)\n"
                     "python3 -m relax.entrypoints.train \"${B[@]}\" \"${C[@]}\"\n";
  snprintf(t2, sizeof t2, fmt3, 1);
  CHECK(resume_build(t2, &base, &r2, 0, 14));
  snprintf(t2, sizeof t2, fmt3, 7);
  CHECK(resume_build(t2, &base, &r2, 16, 16));
  CHECK(r2.resumed && r2.replayed == 2);
  sm_checkpoint_free(r2.checkpoint);
  /* a syntax error: no checkpoint, and the model is still the fresh one */
  CHECK(resume_build("A_ARGS=(--lr 1\nB=\"\n", &base, &rs, 0, 10));
  CHECK(rs.checkpoint == NULL);
  sm_checkpoint_free(rs.checkpoint);
}

int main(void) {
  char *cerr = NULL;
  test_catalog = fc_builtin(&cerr);
  CHECK(test_catalog != NULL);
  free(cerr);
  test_resume();
  test_read_fifo();
  test_cache();
  test_dense_colocate();
  test_moe_async();
  test_expected_json(FIX "/training/text/run-qwen3-4B-8xgpu.sh",
                     PD_TESTS_DIR "/script/expected/run-qwen3-4B-8xgpu.json");
  test_expected_json(FIX "/training/text/run-qwen35-35B-A3B-16xgpu-async.sh",
                     PD_TESTS_DIR "/script/expected/run-qwen35-35B-A3B-16xgpu-async.json");
  test_fname();
  test_notes();
  test_half_typed();
  test_no_train_line();
  test_launch_forms();
  test_redirected_condition();
  test_sources();
  test_git_fork();
  test_source_path_growth();
  test_gpu_choice();
  test_expansions();
  test_big_script();
  fc_free(test_catalog);
  return pd_test_exit("test_script");
}
