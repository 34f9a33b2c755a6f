/* Per-rule fixtures (tests/audit/cases.txt): each line audits a fixture script, possibly edited,
 * and asserts on the JSON report that the rule fires (optionally with a severity or verdict)
 * or stays quiet. `fixed` also applies the finding's edits and asserts the rule is then quiet,
 * which checks that the mechanical fix is real. `| says TEXT` (any number, at the end) asserts
 * that the finding's text (setting, cost, fix) contains TEXT. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/audit/fixture.h"
#include "tests/harness.h"

typedef struct {
  size_t n;
  char **texts;
  const char **paths;
} edited;

static char *read_edited(void *ctx, const char *path, size_t *len) {
  const edited *ed = ctx;
  for (size_t i = 0; i < ed->n; i++)
    if (ed->paths[i] && !strcmp(ed->paths[i], path)) {
      *len = strlen(ed->texts[i]);
      return pd_xstrdup(ed->texts[i]);
    }
  return pd_read_file(path, 1 << 24, len);
}

static json_t *finding_of(json_t *report, const char *rule) {
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(report, "findings"), i, f) {
    if (!strcmp(json_string_value(json_object_get(f, "rule")), rule)) return f;
  }
  return NULL;
}

/* The finding's user-visible text, for `says`. */
static char *finding_text(json_t *f) {
  static const char *const keys[] = {"title", "setting", "cost", "fix", "fix_title"};
  pd_buf b = {0};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    const char *v = json_string_value(json_object_get(f, keys[i]));
    if (v) pd_buf_printf(&b, "%s\n", v);
  }
  return b.data ? pd_buf_take(&b) : pd_xstrdup("");
}

/* Splits the trailing `| says TEXT` clauses off ops (in place); returns how many. */
static size_t take_says(char *ops, char *says[], size_t max) {
  size_t n = 0;
  char *at;
  while (n < max && (at = strstr(ops, "| says ")) != NULL) {
    *at = '\0';
    says[n++] = at + strlen("| says ");
    ops = says[n - 1];
  }
  for (size_t i = 0; i + 1 < n; i++) { /* each text ends where the next clause began */
    char *e = says[i] + strlen(says[i]);
    while (e > says[i] && e[-1] == ' ') *--e = '\0';
  }
  return n;
}

static int run_case(const char *file, int lineno, char *line, int *seen_rules, char rules[][8], int *nrules) {
  char rule[16], expect[32], fixture[256];
  int used = 0;
  if (sscanf(line, "%15s %31s %255s%n", rule, expect, fixture, &used) != 3) {
    fprintf(stderr, "%s:%d: malformed case\n", file, lineno);
    return 1;
  }
  char *ops = line + used;
  char *says[8];
  size_t nsays = take_says(ops, says, 8);
  while (*ops == ' ' || *ops == '|') ops++;
  au_config cfg = {0};
  char gpu[64] = "";
  if (!strncmp(ops, "@gpu=", 5)) {
    sscanf(ops + 5, "%63s", gpu);
    cfg.gpu = gpu;
    ops += 5 + strlen(gpu);
    while (*ops == ' ' || *ops == '|') ops++;
  }
  char as[128] = "";
  if (!strncmp(ops, "@as=", 4)) { /* audit under another file name (what the name states) */
    sscanf(ops + 4, "%127s", as);
    ops += 4 + strlen(as);
    while (*ops == ' ' || *ops == '|') ops++;
  }
  char *text = NULL;
  au_result *r = fx_run_as(fixture, *as ? as : NULL, ops, &cfg, &text);
  if (!r) {
    fprintf(stderr, "%s:%d: fixture %s could not be audited\n", file, lineno, fixture);
    free(text);
    return 1;
  }
  int failures = 0;
  json_t *report = au_report_json(r);
  json_t *f = finding_of(report, rule);
  if (r->nerrors) {
    fprintf(stderr, "%s:%d: rule errors: %s\n", file, lineno, r->errors[0]);
    failures++;
  }
  if (!strcmp(expect, "suppressed")) {
    if (!f || !json_is_true(json_object_get(f, "suppressed"))) {
      fprintf(stderr, "%s:%d: %s is %s, want it found and suppressed\n", file, lineno, rule,
              f ? "not suppressed" : "not found");
      failures++;
    }
  } else if (!strcmp(expect, "quiet")) {
    if (f && !json_is_true(json_object_get(f, "suppressed"))) {
      fprintf(stderr, "%s:%d: %s fired but must not: %s\n", file, lineno, rule,
              json_string_value(json_object_get(f, "cost")));
      failures++;
    }
  } else if (!strncmp(expect, "fire", 4) || !strcmp(expect, "fixed")) {
    if (!f) {
      fprintf(stderr, "%s:%d: %s did not fire on %s [%s]\n", file, lineno, rule, fixture, ops);
      failures++;
    } else if (expect[4] == ':') {
      const char *want = expect + 5;
      const char *sev = json_string_value(json_object_get(f, "severity"));
      const char *verdict = json_string_value(json_object_get(f, "verdict"));
      if (strcmp(want, sev) != 0 && strcmp(want, verdict) != 0) {
        fprintf(stderr, "%s:%d: %s is %s/%s, want %s\n", file, lineno, rule, sev, verdict, want);
        failures++;
      }
    }
    char *all = f ? finding_text(f) : NULL;
    for (size_t i = 0; f && i < nsays; i++)
      if (!strstr(all, says[i])) {
        fprintf(stderr, "%s:%d: %s does not say \"%s\":\n%s", file, lineno, rule, says[i], all);
        failures++;
      }
    free(all);
    if (f && !strcmp(expect, "fixed")) {
      const au_finding *af = fx_find(r, rule);
      if (!af || !af->nedits) {
        fprintf(stderr, "%s:%d: %s has no edits to apply\n", file, lineno, rule);
        failures++;
      } else {
        /* edits may live in the sourced model config: serve edited copies of every file */
        edited ed = {r->model->nfiles, pd_xcalloc(r->model->nfiles, sizeof(char *)),
                     pd_xcalloc(r->model->nfiles, sizeof(char *))};
        for (size_t i = 0; i < ed.n; i++) {
          ed.paths[i] = r->model->files[i].path;
          ed.texts[i] = fx_apply_edits(i ? r->model->files[i].text : text, af, (int)i);
        }
        char *fixed = ed.texts[0];
        char *path = fx_path(fixture);
        if (*as) {
          char *dir = pd_path_dirname(path);
          free(path);
          path = pd_xasprintf("%s/%s", dir, as);
          free(dir);
        }
        sm_reader reader = {read_edited, &ed};
        au_config cfg2 = cfg;
        cfg2.reader = &reader;
        au_result *r2 = au_run(path, fixed, strlen(fixed), NULL, &cfg2);
        if (fx_find(r2, rule)) {
          fprintf(stderr, "%s:%d: %s still fires after its edits:\n%s\n", file, lineno, rule, fixed);
          failures++;
        }
        au_result_free(r2);
        free(path);
        for (size_t i = 0; i < ed.n; i++) free(ed.texts[i]);
        free(ed.texts);
        free(ed.paths);
      }
    }
  } else {
    fprintf(stderr, "%s:%d: unknown expectation %s\n", file, lineno, expect);
    failures++;
  }
  /* remember which rules have a firing and a quiet case */
  int k;
  for (k = 0; k < *nrules; k++)
    if (!strcmp(rules[k], rule)) break;
  if (k == *nrules && *nrules < 128) strcpy(rules[(*nrules)++], rule);
  if (k < 128) seen_rules[k] |= !strcmp(expect, "quiet") ? 2 : !strcmp(expect, "suppressed") ? 0 : 1;
  json_decref(report);
  au_result_free(r);
  free(text);
  return failures;
}

int main(void) {
  const char *file = PD_TESTS_DIR "/audit/cases.txt";
  size_t len = 0;
  char *all = pd_read_file(file, 1 << 20, &len);
  CHECK(all != NULL);
  if (!all) return pd_test_exit("audit_rules");
  int seen[128] = {0};
  char rules[128][8];
  int nrules = 0, ncases = 0;
  int lineno = 0;
  for (char *save = NULL, *line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    lineno++;
    /* strtok_r skips empty lines, so count them via the text between tokens */
    if (line[0] == '#' || !line[0]) continue;
    ncases++;
    pd_test_checks++;
    int fails = run_case(file, lineno, line, seen, rules, &nrules);
    if (fails) pd_test_failures++;
  }
  /* every rule of the built-in catalog has at least one firing case and one quiet case */
  char **errs = NULL;
  size_t nerrs = 0;
  au_rules *cat = au_rules_load(NULL, &errs, &nerrs);
  CHECK_INT(nerrs, 0);
  for (size_t i = 0; i < nerrs; i++) free(errs[i]);
  free(errs);
  for (size_t i = 0; i < au_rules_count(cat); i++) {
    const char *id = au_rule_id(cat, i);
    int k;
    for (k = 0; k < nrules; k++)
      if (!strcmp(rules[k], id)) break;
    int s = k < nrules ? seen[k] : 0;
    pd_test_checks++;
    if (s != 3) {
      pd_test_failures++;
      fprintf(stderr, "%s lacks a %s case\n", id, (s & 1) ? "quiet" : (s & 2) ? "firing" : "firing and a quiet");
    }
  }
  au_rules_free(cat);
  printf("%d cases\n", ncases);
  free(all);
  return pd_test_exit("audit_rules");
}
