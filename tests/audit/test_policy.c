/* The catalog's severity policy (analyzer/data/README.md), checked on rules.json itself:
 *   - a performance rule is never critical, at the rule or in a case (a slow job still runs);
 *   - every case that can be critical says its consequence: the job fails (at start, when the
 *     model is built...), is refused or rejected, stops, hangs, or runs out of memory;
 *   - every rule records what it was checked against ("verified"). */
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "tests/harness.h"

static const char *const consequences[] = {"fails", "hang", "refused", "rejected", "stops the job",
                                           "out of memory", "cannot load", "cannot start"};

static bool says_consequence(const char *cost) {
  for (size_t i = 0; cost && i < sizeof consequences / sizeof *consequences; i++)
    if (strstr(cost, consequences[i])) return true;
  return false;
}

static const char *en(json_t *text) { return json_string_value(json_object_get(text, "en")); }

static void check_rule(json_t *r) {
  const char *id = json_string_value(json_object_get(r, "id"));
  const char *category = json_string_value(json_object_get(r, "category"));
  const char *sev = json_string_value(json_object_get(r, "severity"));
  bool perf = (category && !strcmp(category, "performance")) || (id && !strncmp(id, "R-P", 3));
  const char *verified = json_string_value(json_object_get(r, "verified"));
  pd_test_checks++;
  if (!verified || !*verified) {
    pd_test_failures++;
    fprintf(stderr, "%s: no \"verified\" (what the rule was checked against, or \"doc only\")\n", id);
  }
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(r, "cases"), i, c) {
    const char *cs = json_string_value(json_object_get(c, "severity"));
    bool critical = cs ? !strcmp(cs, "critical") : (sev && !strcmp(sev, "critical"));
    pd_test_checks++;
    if (perf && critical) {
      pd_test_failures++;
      fprintf(stderr, "%s case %zu: a performance rule is critical\n", id, i);
    }
    const char *cost = en(json_object_get(c, "cost"));
    pd_test_checks++;
    if (critical && !says_consequence(cost)) {
      pd_test_failures++;
      fprintf(stderr, "%s case %zu: critical without its consequence: \"%s\"\n", id, i, cost ? cost : "");
    }
  }
}

int main(void) {
  json_error_t err;
  json_t *doc = json_load_file(PD_TESTS_DIR "/../analyzer/data/rules.json", 0, &err);
  CHECK(doc != NULL);
  size_t i, n = 0;
  json_t *r;
  json_array_foreach(json_object_get(doc, "rules"), i, r) {
    check_rule(r);
    n++;
  }
  CHECK(n >= 60);
  json_decref(doc);
  return pd_test_exit("audit_policy");
}
