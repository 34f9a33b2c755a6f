/* Bad input never crashes the audit: every corpus script cut at many points, empty and binary
 * text, and a hostile user rule file all produce a result and all three renderings. Also checks
 * the hover helpers on real results. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/str.h"
#include "tests/audit/fixture.h"
#include "tests/harness.h"

static void render_all(au_result *r) {
  char *md = au_report_markdown(r, "en");
  char *zh = au_report_markdown(r, "zh");
  json_t *j = au_report_json(r);
  json_t *s = au_report_sarif(&r, 1, NULL);
  CHECK(md && zh && j && s);
  /* a launch script gets the whole report; anything else one sentence saying it is not one */
  CHECK(strstr(md, r->model->launch_script ? "## Summary" : "Not a Relax launch script") != NULL);
  CHECK(json_is_boolean(json_object_get(j, "launch_script")));
  free(md);
  free(zh);
  json_decref(j);
  json_decref(s);
}

static void cuts(const char *dir, const char *rel) {
  char *path = pd_xasprintf("%s/%s", dir, rel);
  size_t len = 0;
  char *text = pd_read_file(path, 1 << 24, &len);
  CHECK(text != NULL);
  for (size_t k = 0; text && k <= 16; k++) {
    size_t n = len * k / 16;
    au_result *r = au_run(path, text, n, NULL, NULL);
    CHECK(r != NULL && r->model != NULL);
    if (r) render_all(r);
    au_result_free(r);
  }
  free(text);
  free(path);
}

int main(void) {
  const char *subdirs[] = {"text", "multimodal", "sft", "cpt", "dpo", "reward_modeling", "genrm",
                           "diffusion"};
  for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
    char *dir = pd_xasprintf("%s%s", FX_DIR, subdirs[i]);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (pd_str_ends(e->d_name, ".sh")) cuts(dir, e->d_name);
    if (d) closedir(d);
    free(dir);
  }
  /* empty, junk, and a script that is only flags */
  const char *junk[] = {"", "\x01\x02\xff\xfe{{{((((", "--tensor-model-parallel-size 0 --resource '{\"actor\": [1, 0]}'",
                        "python3 -m relax.entrypoints.train --resource '{\"actor\": [1, 8]}' --tensor-model-parallel-size 0 --num-experts 0 --expert-model-parallel-size 0"};
  for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
    au_result *r = au_run("/tmp/run-x-8xgpu.sh", junk[i], strlen(junk[i]), NULL, NULL);
    CHECK(r != NULL);
    if (r) render_all(r);
    au_result_free(r);
  }
  /* a user rule file with errors is reported, not fatal */
  char tmp[] = "/tmp/pd-rules-XXXXXX";
  int fd = mkstemp(tmp);
  CHECK(fd >= 0);
  if (fd >= 0) {
    const char *bad = "{\"rules\": [{\"id\": \"U-1\", \"severity\": \"loud\", \"title\": \"x\", \"cases\": [{\"when\": \"((((\"}]},"
                      " {\"id\": \"U-2\", \"severity\": \"warn\", \"title\": \"ok\", \"cases\": [{\"when\": \"tp >= 1\"}]}]}";
    CHECK(write(fd, bad, strlen(bad)) == (ssize_t)strlen(bad));
    close(fd);
    au_config cfg = {0};
    cfg.extra_rules = tmp;
    au_result *r = fx_run("text/run-qwen3-4B-8xgpu.sh", "", &cfg, NULL);
    CHECK(r && r->nerrors >= 2);  /* bad severity and bad expression of U-1 */
    CHECK(fx_find(r, "U-1") == NULL);
    CHECK(fx_find(r, "U-2") != NULL);  /* the valid rule of the same file still runs */
    au_result_free(r);
    unlink(tmp);
  }
  /* names are bound when the file loads: an unknown fact in a Cost template, a function that
   * does not exist or takes other arguments are refused with the rule and the field */
  char tmp2[] = "/tmp/pd-rules-XXXXXX";
  fd = mkstemp(tmp2);
  CHECK(fd >= 0);
  if (fd >= 0) {
    const char *bad =
        "{\"rules\": ["
        "{\"id\": \"U-3\", \"severity\": \"warn\", \"title\": \"t\", \"cases\": [{\"when\": \"tp >= 1\", \"cost\": {\"en\": \"{no_such_fact} GiB\"}}]},"
        "{\"id\": \"U-4\", \"severity\": \"warn\", \"title\": \"t\", \"cases\": [{\"when\": \"json_keys('--resource') == 1\"}]},"
        "{\"id\": \"U-5\", \"severity\": \"warn\", \"title\": \"t\", \"cases\": [{\"when\": \"has('--a', '--b')\"}]},"
        "{\"id\": \"U-6\", \"severity\": \"warn\", \"title\": \"t\", \"cases\": [{\"when\": \"tp >= 1\", \"cost\": {\"en\": \"{fixed(static_gb, 1)} GB and {{braces}}\"}}]}]}";
    CHECK(write(fd, bad, strlen(bad)) == (ssize_t)strlen(bad));
    close(fd);
    au_config cfg = {0};
    cfg.extra_rules = tmp2;
    au_result *r = fx_run("text/run-qwen3-4B-8xgpu.sh", "", &cfg, NULL);
    bool fact = false, fn = false, arity = false;
    for (size_t i = 0; r && i < r->nerrors; i++) {
      const char *e = r->errors[i];
      fact |= strstr(e, "U-3") && strstr(e, "cases[0].cost (en)") && strstr(e, "unknown fact 'no_such_fact'");
      fn |= strstr(e, "U-4") && strstr(e, "cases[0].when") && strstr(e, "unknown function 'json_keys'");
      arity |= strstr(e, "U-5") && strstr(e, "has() takes 1 argument, not 2");
    }
    CHECK(fact);
    CHECK(fn);
    CHECK(arity);
    CHECK(r && !fx_find(r, "U-3") && !fx_find(r, "U-4") && !fx_find(r, "U-5"));
    const au_finding *u6 = fx_find(r, "U-6");
    CHECK(u6 && strstr(u6->cost, " GB and {braces}") && !strstr(u6->cost, "?"));
    au_result_free(r);
    unlink(tmp2);
  }
  /* an environment finding points at the variable's assignment */
  au_result *ev = fx_run("text/run-qwen3-4B-8xgpu.sh", "sub set -ex => set -ex\nexport CUDA_DEVICE_MAX_CONNECTIONS=8", NULL, NULL);
  if (ev) {
    const au_finding *f = fx_find(ev, "R-C17");
    CHECK(f && f->file == 0 && f->range.start_line == 3);
    CHECK(f && strstr(f->setting, "CUDA_DEVICE_MAX_CONNECTIONS=8"));
    au_result_free(ev);
  }
  /* an "each" rule reports every case that holds: two no-op flags, two findings */
  ev = fx_run("text/run-qwen3-4B-8xgpu.sh", "add --moe-token-dispatcher-type allgather | add --moe-flex-dispatcher-backend hybridep", NULL, NULL);
  if (ev) {
    int n = 0;
    for (size_t i = 0; i < ev->nfindings; i++) n += !strcmp(ev->findings[i].rule, "R-P20");
    CHECK_INT(n, 2);
    au_result_free(ev);
  }
  /* hovers and flag docs */
  au_result *r = fx_run("text/run-qwen35-35B-A3B-4xgpu-colocate.sh", "", NULL, NULL);
  if (r) {
    char *h = au_hover_facts(r, "--resource", "en");
    CHECK(h && strstr(h, "actor 4 GPUs"));
    free(h);
    h = au_hover_facts(r, "model", "en");
    CHECK(h && strstr(h, "MoE") && strstr(h, "256 experts"));
    free(h);
    h = au_hover_facts(r, "--tensor-model-parallel-size", "en");
    CHECK(h && strstr(h, "baseline"));  /* Qwen3.5-35B-A3B baselines exist */
    CHECK(h && strstr(h, "expert-DP 1") && strstr(h, "48.4 GiB static") != NULL);
    free(h);
    h = au_hover_facts(r, "--max-tokens-per-gpu", "zh");
    CHECK(h && strstr(h, "估算") && strstr(h, "H20 96GB"));
    free(h);
    h = au_hover_facts(r, "--rollout-num-gpus-per-engine", "en");
    CHECK(h && strstr(h, "1 engine(s) × 4 GPU(s)"));
    free(h);
    au_result_free(r);
  }
  {
    char **errs = NULL;
    size_t nerr = 0;
    au_rules *rs = au_rules_load(NULL, &errs, &nerr);
    char *d = au_flag_markdown(rs, NULL, "--max-staleness", NULL, "en");
    CHECK(d && strstr(d, "default `0`") && strstr(d, "Relax option"));
    free(d);
    d = au_flag_markdown(rs, NULL, "--max-stalenes", NULL, "en");
    CHECK(d && strstr(d, "not an option") && strstr(d, "--max-staleness"));
    free(d);
    CHECK(au_flag_markdown(rs, NULL, NULL, NULL, "zh") == NULL);
    for (size_t i = 0; i < nerr; i++) free(errs[i]);
    free(errs);
    au_rules_free(rs);
  }
  return pd_test_exit("audit_robust");
}
