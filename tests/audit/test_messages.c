/* The message catalog (analyzer/data/messages.json): every message of AU_MESSAGES is there in
 * English and Chinese and compiles (its arguments, facts and functions exist) — what a run
 * relies on, since templates compile on first use — and the checks find a planted fault. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit/messages.h"
#include "tests/harness.h"

static size_t problems(const char *text, size_t len, char **first) {
  char **errs = NULL;
  size_t n = 0, cap = 0;
  au_messages *ms = au_messages_load(text, len, &errs, &n, &cap);
  au_messages_check(ms, &errs, &n, &cap);
  *first = n ? pd_xstrdup(errs[0]) : NULL;
  for (size_t i = 0; i < n; i++) free(errs[i]);
  free(errs);
  au_messages_free(ms);
  return n;
}

/* The real catalog with one message changed: key's text in lang replaced (NULL: removed). */
static char *planted(json_t *doc, const char *key, const char *lang, const char *text) {
  json_t *copy = json_deep_copy(doc);
  json_t *m = json_object_get(json_object_get(copy, "messages"), key);
  if (text) json_object_set_new(m, lang, json_string(text));
  else json_object_del(m, lang);
  char *s = json_dumps(copy, 0);
  json_decref(copy);
  return s;
}

int main(void) {
  json_error_t err;
  json_t *doc = json_load_file(PD_TESTS_DIR "/../analyzer/data/messages.json", 0, &err);
  CHECK(doc != NULL);
  if (!doc) return pd_test_exit("audit_messages");
  char *all = json_dumps(doc, 0), *first = NULL;
  CHECK_INT(problems(all, strlen(all), &first), 0);
  if (first) fprintf(stderr, "first problem: %s\n", first);
  free(first);
  free(all);

  struct { const char *key, *lang, *text, *says; } faults[] = {
      {"md.title", "zh", NULL, "md.title has no \"zh\" text"},
      {"ui.hover.resolved", "en", "{valeu}", "ui.hover.resolved (en)"},
      {"setting.line", "zh", "{nosuchfn(line)}", "setting.line (zh)"},
  };
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
    char *t = planted(doc, faults[i].key, faults[i].lang, faults[i].text);
    CHECK(problems(t, strlen(t), &first) >= 1);
    CHECK(first && strstr(first, faults[i].says));
    if (first && !strstr(first, faults[i].says)) fprintf(stderr, "got: %s\n", first);
    free(first);
    free(t);
  }
  json_decref(doc);
  return pd_test_exit("audit_messages");
}
