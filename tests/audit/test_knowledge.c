/* The audit's knowledge as data (analyzer/data/knowledge.json): families by the longest name
 * prefix, bad documents refused with where, job kinds from their triggers, and a model family
 * added in a data file (no C) changing the parameter count as it should: a Gemma 4 26B config
 * (whose recipe leaves the gated GeLU MLP to the family) under a name no family covers loses a
 * third of its MLP parameters, and gets them back from a new family entry that says what Gemma
 * 4's says. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts.h"
#include "audit/knowledge.h"
#include "base/alloc.h"
#include "base/data.h"
#include "base/path.h"
#include "tests/harness.h"

#define PARAMS PD_TESTS_DIR "/fixtures/params/models"

static void test_lookup(const ak_knowledge *k) {
  const ak_family *f = ak_family_of(k, "qwen35-35B-A3B");
  CHECK(f && !strcmp(f->id, "qwen35") && f->gdn && f->gdn->freq == 4 && f->hf_multimodal);
  f = ak_family_of(k, "Qwen3-Omni-30B-A3B"); /* the longer prefix wins over qwen3 */
  CHECK(f && !strcmp(f->id, "qwen3-omni"));
  f = ak_family_of(k, "qwen3-4B");
  CHECK(f && !strcmp(f->id, "qwen3") && f->vocab == 151936 && !f->gdn);
  CHECK(ak_family_of(k, "mystery-7B") == NULL);
  CHECK(ak_family_of(k, NULL) == NULL);
  const char *fam;
  CHECK(ak_default_vocab(k, &fam) == 151936 && !strcmp(fam, "Qwen"));
  CHECK(ak_is_rl(k, "genrm") && !ak_is_rl(k, "sft"));
  const ax_expr *when;
  CHECK(ak_njobs(k) >= 5 && !strcmp(ak_job(k, ak_njobs(k) - 1, &when), "rl"));
}

static void refused(const char *doc, const char *says) {
  char *err = NULL;
  ak_knowledge *k = ak_load(doc, strlen(doc), "bad.json", &err);
  CHECK(k == NULL && err && strstr(err, says));
  if (!err || !strstr(err, says)) fprintf(stderr, "  got: %s\n", err ? err : "(loaded)");
  free(err);
  ak_free(k);
}

static void test_refused(void) {
  refused("{", "bad.json:1:");
  refused("{\"families\": 3}", "families: needs a list");
  refused("{\"families\": [{\"id\": \"x\"}]}", "x: needs a list of strings");
  refused("{\"families\": [{\"id\": \"x\", \"names\": [\"x\"], \"attention\": \"weird\"}]}", "shared_kv or kda");
  refused("{\"families\": [{\"id\": \"x\", \"names\": [\"x\"], \"gated_delta_net\": {\"freq\": 4}}]}",
          "gated_delta_net needs");
}

/* The parameter count (billions) of the 27B config copied to dir/<name>-27B.sh, with k. */
static double params_as(const char *dir, const char *name, const ak_knowledge *k) {
  size_t n;
  char *cfg = pd_read_file(PARAMS "/gemma4-26B.sh", 1 << 20, &n);
  char *copy = pd_xasprintf("%s/%s-26B.sh", dir, name);
  CHECK(cfg && pd_write_file(copy, cfg));
  char *script = pd_xasprintf("source %s\npython3 -m relax.entrypoints.train --resource '{\"actor\": [1, 8]}' "
                              "\"${MODEL_ARGS[@]}\"\n", copy);
  char *err = NULL;
  fc_catalog *cat = fc_builtin(&err);
  free(err);
  sm_options opt = {.catalog = cat};
  char *path = pd_xasprintf("%s/run-x-8xgpu.sh", dir);
  sm_model *m = sm_build(path, script, strlen(script), NULL, &opt);
  au_facts *f = af_compute(m, k);
  double p = af_num(f, AF_P_B, NAN);
  af_free(f);
  sm_model_free(m);
  fc_free(cat);
  free(path), free(script), free(copy), free(cfg);
  return p;
}

static void test_new_family(const ak_knowledge *builtin) {
  char dir[] = "/tmp/pd-knowledge-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  double known = params_as(dir, "gemma4", builtin), unknown = params_as(dir, "newfam", builtin);
  CHECK(known > 24 && known < 28); /* Gemma 4 26B-A4B: 25.2 B (tests/fixtures/params/published.tsv) */
  CHECK(unknown < known - 1); /* without the family, a two-matrix MLP */
  /* the same data under the new name */
  size_t len;
  char *text = pd_data_text("knowledge.json", &len);
  json_t *doc = json_loads(text, 0, NULL);
  json_t *fams = json_object_get(doc, "families"), *q = NULL;
  for (size_t i = 0; i < json_array_size(fams) && !q; i++)
    if (!strcmp(json_string_value(json_object_get(json_array_get(fams, i), "id")), "gemma4"))
      q = json_deep_copy(json_array_get(fams, i));
  CHECK(q != NULL);
  json_object_set_new(q, "id", json_string("newfam"));
  json_object_set_new(q, "names", json_pack("[s]", "newfam"));
  json_array_append_new(fams, q);
  char *dumped = json_dumps(doc, 0), *err = NULL;
  ak_knowledge *k = ak_load(dumped, strlen(dumped), "fixture knowledge", &err);
  CHECK(k && !err);
  double added = k ? params_as(dir, "newfam", k) : NAN;
  CHECK(fabs(added - known) < 1e-9);
  printf("gemma4 %.3f B, newfam unknown %.3f B, newfam as data %.3f B\n", known, unknown, added);
  ak_free(k);
  free(err), free(dumped), free(text);
  json_decref(doc);
  char *rm = pd_xasprintf("rm -rf '%s'", dir);
  CHECK(system(rm) == 0);
  free(rm);
}

int main(void) {
  char *err = NULL;
  ak_knowledge *k = ak_builtin(&err);
  CHECK(k && !err);
  free(err);
  if (k) {
    test_lookup(k);
    test_new_family(k);
  }
  test_refused();
  ak_free(k);
  return pd_test_exit("audit_knowledge");
}
