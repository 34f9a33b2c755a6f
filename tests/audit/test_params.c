/* The parameter-count table (tests/fixtures/params): for every model config there (our own, for
 * the public families Relax's recipes train), the total and activated counts the facts compute
 * are within 5 % of the model's published sizes (published.tsv says what each number counts).
 * Each config is read the way a launch script reads it: sourced, its MODEL_ARGS spread into the
 * train command. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts.h"
#include "tests/audit/fixture.h"
#include "tests/harness.h"

#define PARAMS_DIR PD_TESTS_DIR "/fixtures/params"

static void check_row(const char *file, const char *model, double total, double active) {
  char *text = pd_xasprintf("source %s/models/%s\n"
                            "python3 -m relax.entrypoints.train --resource '{\"actor\": [1, 8]}' "
                            "\"${MODEL_ARGS[@]}\"\n",
                            PARAMS_DIR, file);
  char *path = pd_xasprintf("%s/run-params-8xgpu.sh", PARAMS_DIR);
  au_result *r = au_run(path, text, strlen(text), NULL, NULL);
  double p = af_num(r->facts, AF_P_B, NAN), a = af_num(r->facts, AF_P_ACTIVE_B, NAN);
  pd_test_checks += 2;
  if (!(fabs(p - total) <= 0.05 * total)) {
    pd_test_failures++;
    fprintf(stderr, "%s (%s): total %.2f B, published %.2f B\n", file, model, p, total);
  }
  if (!(fabs(a - active) <= 0.05 * active)) {
    pd_test_failures++;
    fprintf(stderr, "%s (%s): activated %.2f B, published %.2f B\n", file, model, a, active);
  }
  au_result_free(r);
  free(path);
  free(text);
}

int main(void) {
  size_t len = 0;
  char *tsv = pd_read_file(PARAMS_DIR "/published.tsv", 1 << 20, &len);
  CHECK(tsv != NULL);
  int rows = 0;
  char *save = NULL;
  for (char *line = tsv ? strtok_r(tsv, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
    if (!strncmp(line, "file\t", 5)) continue; /* the header */
    char *cols[5] = {0}, *s2 = NULL;
    size_t n = 0;
    for (char *c = strtok_r(line, "\t", &s2); c && n < 5; c = strtok_r(NULL, "\t", &s2)) cols[n++] = c;
    CHECK(n == 5);
    if (n < 4) continue;
    check_row(cols[0], cols[1], atof(cols[2]), atof(cols[3]));
    rows++;
  }
  CHECK(rows >= 25);
  printf("%d models\n", rows);
  free(tsv);
  return pd_test_exit("audit_params");
}
