/* The flag catalog (flagcat) and the Python reader (pysrc): loading and look-ups on a small
 * fixture catalog, argparse's conversions as Python does them, suggestions for typos, and the
 * options a fixture Relax checkout defines, merged over a catalog; bad input (a catalog that is
 * not one, a checkout whose Python does not parse) gives a message naming the file and line. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "flagcat/flagcat.h"
#include "harness.h"
#include "pysrc/pysrc.h"

#define FIX PD_TESTS_DIR "/flagcat/fixtures"

static fc_catalog *mini(void) {
  size_t n;
  char *text = pd_read_file(FIX "/mini.json", 1 << 20, &n);
  char *err = NULL;
  fc_catalog *c = text ? fc_load(text, n, "mini.json", &err) : NULL;
  CHECK(c && !err);
  free(err);
  free(text);
  return c;
}

static void check_value(const fc_catalog *c, const char *flag, const char *v, fc_value_check want,
                        const char *why_has) {
  const fc_option *o = fc_find(c, flag);
  CHECK(o != NULL);
  if (!o) return;
  char *why = NULL;
  fc_value_check r = fc_check_value(o, v, &why);
  CHECK_INT(r, want);
  if (why_has) CHECK(why && strstr(why, why_has));
  else CHECK(why == NULL);
  free(why);
}

static void test_load_and_lookup(void) {
  fc_catalog *c = mini();
  if (!c) return;
  CHECK_INT(fc_count(c), 15);
  const fc_option *tp = fc_find(c, "--tensor-model-parallel-size");
  CHECK(tp && tp->parser == FC_MEGATRON && tp->type == FC_T_INT);
  CHECK_STR(tp ? tp->default_text : NULL, "1");
  CHECK(fc_find(c, "--no-offload-train") == fc_find(c, "--offload-train"));
  CHECK(fc_find(c, "--nope") == NULL && fc_find(c, NULL) == NULL);
  CHECK_STR(fc_dropped(c, "--sglang-tp-size"), "--sglang-tp-size");
  CHECK(fc_dropped(c, "--sglang-mem-fraction-static") == NULL);
  CHECK_STR(fc_origin(c, FC_MEGATRON), "NVIDIA/Megatron-LM @ 222222222222");
  const fc_option *d = fc_find(c, "--distributed-backend");
  CHECK(d && d->default_computed && strstr(d->default_text, "get_dist_backend"));
  CHECK_STR(fc_type_name(fc_find(c, "--sequence-parallel")), "switch");
  CHECK_STR(fc_type_name(fc_find(c, "--resource")), "JSON");
  int min, max;
  fc_arity(fc_find(c, "--eval-prompt-data"), &min, &max);
  CHECK(min == 1 && max == -1);
  fc_arity(fc_find(c, "--use-kl-loss"), &min, &max);
  CHECK(min == 0 && max == 0);
  json_t *j = fc_option_json(c, tp);
  CHECK_STR(json_string_value(json_object_get(j, "type")), "int");
  CHECK_STR(json_string_value(json_object_get(j, "source")), "NVIDIA/Megatron-LM @ 222222222222");
  json_decref(j);
  fc_free(c);
}

static void test_values(void) {
  fc_catalog *c = mini();
  if (!c) return;
  check_value(c, "--tensor-model-parallel-size", "2", FC_VALUE_OK, NULL);
  check_value(c, "--tensor-model-parallel-size", " +1_0 ", FC_VALUE_OK, NULL); /* int(" +1_0 ") */
  check_value(c, "--tensor-model-parallel-size", "two", FC_VALUE_BAD_TYPE, "invalid int value: 'two'");
  check_value(c, "--tensor-model-parallel-size", "1.0", FC_VALUE_BAD_TYPE, "invalid int value");
  check_value(c, "--tensor-model-parallel-size", "1__0", FC_VALUE_BAD_TYPE, "invalid int value");
  check_value(c, "--lr", "1e-6", FC_VALUE_OK, NULL);
  check_value(c, "--lr", ".5", FC_VALUE_OK, NULL);
  check_value(c, "--lr", "5.", FC_VALUE_OK, NULL);
  check_value(c, "--lr", "-Infinity", FC_VALUE_OK, NULL);
  check_value(c, "--lr", "1e-6x", FC_VALUE_BAD_TYPE, "invalid float value: '1e-6x'");
  check_value(c, "--lr", "1e", FC_VALUE_BAD_TYPE, "invalid float value");
  check_value(c, "--lr", "", FC_VALUE_BAD_TYPE, "invalid float value");
  check_value(c, "--resource", "{\"actor\": [1, 8]}", FC_VALUE_OK, NULL);
  check_value(c, "--resource", "NaN", FC_VALUE_OK, NULL); /* json.loads takes it */
  check_value(c, "--resource", "actor", FC_VALUE_BAD_TYPE, "invalid loads value");
  check_value(c, "--recompute-granularity", "full", FC_VALUE_OK, NULL);
  check_value(c, "--recompute-granularity", "ful", FC_VALUE_BAD_CHOICE, "choose from 'full', 'selective'");
  check_value(c, "--polling-mode", "False", FC_VALUE_OK, NULL); /* bool("False") is True */
  const fc_option *rg = fc_find(c, "--recompute-granularity"), *ae = fc_find(c, "--advantage-estimator");
  CHECK_STR(fc_nearest_choice(rg, "ful"), "full");
  CHECK_STR(fc_nearest_choice(ae, "grpoo"), "grpo");
  CHECK_STR(fc_nearest_choice(ae, "GSPO"), "gspo");
  CHECK(fc_nearest_choice(ae, "zzzzzzz") == NULL);
  fc_free(c);
}

static void test_suggest(void) {
  fc_catalog *c = mini();
  if (!c) return;
  const char *near[3];
  CHECK_INT(fc_suggest(c, "--tensor-model-paralel-size", near, 3), 1);
  CHECK_STR(near[0], "--tensor-model-parallel-size");
  CHECK_INT(fc_suggest(c, "--tensor_model_parallel_size", near, 3), 1); /* underscores */
  CHECK_STR(near[0], "--tensor-model-parallel-size");
  CHECK_INT(fc_suggest(c, "--sglang-mem-fraction-statc", near, 3), 1);
  CHECK_STR(near[0], "--sglang-mem-fraction-static");
  CHECK_INT(fc_suggest(c, "--mem-fraction-static", near, 3), 0); /* not across the --sglang- prefix */
  CHECK_INT(fc_suggest(c, "--completely-different", near, 3), 0);
  CHECK_INT(fc_suggest(c, "--l", near, 3), 0); /* too short to guess */
  /* the opposite of an option is not a misspelling of it */
  CHECK_INT(fc_suggest(c, "--enable-weights-backuper", near, 3), 0);
  CHECK_INT(fc_suggest(c, "--enable-weights-backupr", near, 3), 0);
  CHECK_INT(fc_suggest(c, "--no-sequence-parallel", near, 3), 0);
  CHECK_INT(fc_suggest(c, "--no-kl-loss", near, 3), 0);
  CHECK_INT(fc_suggest(c, "--disable-weights-backupr", near, 3), 1);
  CHECK_STR(near[0], "--disable-weights-backuper");
  /* a two-letter word swapped for another names another thing (kl, pg; cp, tp), a longer word's
     slip is a typo */
  CHECK_INT(fc_suggest(c, "--use-pg-loss", near, 3), 0);
  CHECK_INT(fc_suggest(c, "--use-kl-los", near, 3), 1);
  CHECK_STR(near[0], "--use-kl-loss");
  fc_free(c);
}

static void test_bad_catalogs(void) {
  char *err = NULL;
  CHECK(fc_load("{", 1, "x.json", &err) == NULL && err && strstr(err, "x.json:1:"));
  free(err);
  const char *not = "{\"options\": []}";
  CHECK(fc_load(not, strlen(not), "y.json", &err) == NULL && err && strstr(err, "not a flag catalog"));
  free(err);
  const char *bad = "{\"perf_doctor_flags\": 1, \"options\": [{\"names\": []}]}";
  CHECK(fc_load(bad, strlen(bad), "z.json", &err) == NULL && err && strstr(err, "option 0"));
  free(err);
  fc_catalog *b = fc_builtin(&err);
  CHECK(b && !err && fc_count(b) > 0);
  fc_free(b);
  free(err);
}

static const fc_option *opt(const fc_catalog *c, const char *name) {
  const fc_option *o = fc_find(c, name);
  if (!o) fprintf(stderr, "missing option %s\n", name);
  CHECK(o != NULL);
  return o;
}

static void test_checkout(void) {
  CHECK(ps_is_relax_checkout(FIX "/checkout"));
  char *root = ps_find_checkout(FIX "/checkout/relax/backends/extra");
  CHECK(root && strstr(root, "/flagcat/fixtures/checkout") && !strstr(root, "relax/"));
  free(root);
  CHECK(ps_find_checkout("/") == NULL);
  char *err = NULL;
  fc_catalog *own = ps_relax_catalog(FIX "/checkout", &err);
  CHECK(own && !err);
  if (!own) {
    free(err);
    return;
  }
  const fc_option *o = opt(own, "--actor-num-nodes");
  CHECK(o && o->type == FC_T_INT && !strcmp(o->default_text, "1") && o->parser == FC_RELAX);
  o = opt(own, "--offload-train");
  CHECK(o && o->action == FC_BOOLEAN_OPTIONAL && fc_find(own, "--no-offload-train") == o);
  CHECK(o && !strcmp(o->help, "Whether to offload the training actor to CPU during training. "
                              "This will always be true when --colocate is set."));
  o = opt(own, "--resource");
  CHECK(o && o->type == FC_T_JSON);
  o = opt(own, "--train-memory-margin-bytes");
  CHECK(o && !strcmp(o->default_text, "1073741824") && !strcmp(o->help, "Margin, 1 \"GB\" by default.\tTab"));
  o = opt(own, "--lr-scale");
  CHECK(o && !strcmp(o->default_text, "-0.15"));
  o = opt(own, "--checkpoint-engine-backend");
  CHECK(o && o->default_computed && !strcmp(o->default_text, "computed: device_backend()"));
  o = opt(own, "--polling-mode");
  CHECK(o && o->type == FC_T_BOOL);
  o = opt(own, "--eval-datasets");
  CHECK(o && o->nargs == FC_NARGS_SOME && !strcmp(o->default_text, "[]"));
  o = opt(own, "--advantage-estimator");
  CHECK(o && o->nchoices == 3 && !strcmp(o->choices[1], "gspo"));
  o = opt(own, "--mode");
  CHECK(o && o->nchoices == 0); /* list(Modes): not known without running it, not checked */
  o = opt(own, "--old-knob");
  CHECK(o && o->deprecated && strstr(o->deprecated, "--new-knob"));
  o = opt(own, "--disable-weights-backuper");
  CHECK(o && o->action == FC_STORE_FALSE && !strcmp(o->dest, "enable_weights_backuper") &&
        !strcmp(o->default_text, "True"));
  o = opt(own, "--raw-name");
  CHECK(o && !strcmp(o->help, "a \\n stays"));
  o = opt(own, "--train-backend");
  CHECK(o && o->parser == FC_PRE);
  o = opt(own, "--extra-knob");
  CHECK(o && !strcmp(o->file, "relax/backends/extra/opts.py") && o->line == 3);
  opt(own, "--extra-more"); /* in a function the imported one calls */
  CHECK(fc_find(own, "--not-imported-as-options") == NULL);
  CHECK(fc_find(own, "--unrelated-parser-option") == NULL);
  CHECK(fc_find(own, "--distributed-timeout-minutes") == NULL); /* a reset, not an option */

  /* merged over a catalog: the checkout's Relax options replace the built-in ones, the resets
     change Megatron's defaults, the rest stays */
  fc_catalog *base = mini();
  fc_catalog *m = fc_merge(base, own, FC_RELAX, fc_origin(own, FC_RELAX));
  CHECK(fc_find(m, "--extra-knob") != NULL);
  CHECK(fc_find(m, "--use-kl-loss") == NULL);           /* a Relax option this checkout lacks */
  CHECK(fc_find(m, "--tensor-model-parallel-size") != NULL); /* Megatron's stay */
  CHECK(strstr(fc_origin(m, FC_RELAX), "(checkout)") != NULL);
  CHECK_STR(fc_origin(m, FC_MEGATRON), "NVIDIA/Megatron-LM @ 222222222222");
  fc_free(m);
  fc_free(base);
  fc_free(own);
}

static void test_broken_checkout(void) {
  char *err = NULL;
  fc_catalog *c = ps_relax_catalog(FIX "/broken", &err);
  CHECK(c == NULL && err && strstr(err, "relax/utils/arguments.py:6:") && strstr(err, "does not parse"));
  free(err);
  c = ps_relax_catalog(FIX "/no-such-dir", &err);
  CHECK(c == NULL && err && strstr(err, "cannot read"));
  free(err);
  /* the session falls back to the built-in catalog and says so once */
  fc_catalog *base = mini();
  ps_catalogs *cc = ps_catalogs_new();
  char *warning = NULL;
  CHECK(ps_catalog_for(cc, base, FIX "/broken", NULL, &warning) == base && warning &&
        strstr(warning, "using the built-in flag catalog"));
  free(warning);
  CHECK(ps_catalog_for(cc, base, FIX "/broken", NULL, &warning) == base && warning == NULL);
  const fc_catalog *m = ps_catalog_for(cc, base, NULL, FIX "/checkout/scripts/run.sh", &warning);
  CHECK(m != base && fc_find(m, "--extra-knob") && warning == NULL);
  CHECK(ps_catalog_for(cc, base, "", FIX "/checkout/scripts/run.sh", &warning) == base);
  ps_catalogs_free(cc);
  fc_free(base);
}

/* The binary form the build embeds reads back the same, and a damaged one is refused. */
static void test_binary(void) {
  fc_catalog *c = mini();
  if (!c) return;
  pd_buf b = {0};
  fc_to_binary(c, &b);
  char *err = NULL;
  fc_catalog *r = fc_from_binary((const unsigned char *)b.data, b.len, "mini.bin", &err);
  CHECK(r && !err);
  if (r) {
    CHECK_INT(fc_count(r), fc_count(c));
    const fc_option *o = fc_find(r, "--no-offload-train");
    CHECK(o && o == fc_find(r, "--offload-train") && o->action == FC_BOOLEAN_OPTIONAL);
    o = fc_find(r, "--recompute-granularity");
    CHECK(o && o->nchoices == 2 && !strcmp(o->choices[1], "selective"));
    CHECK_STR(fc_dropped(r, "--sglang-tp-size"), "--sglang-tp-size");
    CHECK_STR(fc_origin(r, FC_MEGATRON), fc_origin(c, FC_MEGATRON));
    fc_free(r);
  }
  for (size_t cut = 0; cut < b.len; cut += b.len / 7 + 1) { /* truncated anywhere */
    CHECK(fc_from_binary((const unsigned char *)b.data, cut, "cut.bin", &err) == NULL && err);
    free(err);
  }
  b.data[sizeof(unsigned) * 2] ^= 0x7f; /* a count that no longer fits the size */
  CHECK(fc_from_binary((const unsigned char *)b.data, b.len, "bad.bin", &err) == NULL && err &&
        strstr(err, "bad.bin"));
  free(err);
  pd_buf_free(&b);
  /* the embedded one is the generated catalog itself */
  fc_catalog *builtin = fc_builtin(&err);
  CHECK(builtin && fc_find(builtin, "--tensor-model-parallel-size") && fc_count(builtin) > 1000);
  fc_free(builtin);
  free(err);
  fc_free(c);
}

int main(void) {
  test_binary();
  test_load_and_lookup();
  test_values();
  test_suggest();
  test_bad_catalogs();
  test_checkout();
  test_broken_checkout();
  return pd_test_exit("flagcat_units");
}
