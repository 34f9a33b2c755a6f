/* Golden markdown reports in English and Chinese (the files in tests/audit/golden). With
 * PD_UPDATE_GOLDEN=1 the files are rewritten instead of compared. */
#include <stdlib.h>

#include "tests/audit/fixture.h"
#include "tests/harness.h"

static void golden(const char *fixture, const char *ops, const char *name, const char *lang) {
  au_config cfg = {0};
  cfg.lang = lang;
  au_result *r = fx_run(fixture, ops, &cfg, NULL);
  CHECK(r != NULL);
  if (!r) return;
  char *md = au_report_markdown(r, lang);
  char *path = pd_xasprintf("%s/audit/golden/%s.%s.md", PD_TESTS_DIR, name, lang);
  if (getenv("PD_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
      fputs(md, f);
      fclose(f);
    }
  } else {
    size_t len = 0;
    char *want = pd_read_file(path, 1 << 20, &len);
    CHECK(want != NULL);
    if (want && strcmp(want, md) != 0) {
      pd_test_checks++;
      pd_test_failures++;
      fprintf(stderr, "%s differs; got:\n%s\n", path, md);
    }
    free(want);
  }
  free(path);
  free(md);
  au_result_free(r);
}

int main(void) {
  const char *langs[] = {"en", "zh"};
  for (int i = 0; i < 2; i++) {
    golden("text/run-qwen35-35B-A3B-16xgpu-issues.sh", "", "moe-issues", langs[i]);
    golden("text/run-qwen3-4B-8xgpu.sh", "", "clean", langs[i]);
    golden("text/run-qwen3-4B-8xgpu-async-issues.sh", "", "async-issues", langs[i]);
  }
  return pd_test_exit("audit_golden");
}
