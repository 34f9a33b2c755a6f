/* `perf-doctor check`: audits launch scripts and prints the report (markdown, JSON or SARIF).
 * Exit status: 0 = nothing at or above --fail-on, 1 = something is, 2 = usage or I/O error. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "base/device.h"
#include "base/limits.h"
#include "base/path.h"
#include "base/str.h"
#include "cli/cli.h"

static void check_usage(FILE *out) {
  fputs("usage: perf-doctor check SCRIPT|DIR... [--format md|json|sarif] [--lang en|zh]\n"
        "                          [--gpu TYPE] [--fail-on critical|warn|info] [--rules FILE]\n"
        "                          [--model-config-dir DIR]\n"
        "  Audits Relax launch scripts (a directory means every *.sh under it, model configs\n"
        "  and entrypoints excepted). GPU defaults to the script's `# perf-doctor: gpu=` comment,\n"
        "  else H20 96GB (assumed). Exit 0: nothing at or above --fail-on (default critical);\n"
        "  1: something is; 2: usage or I/O error.\n",
        out);
}

typedef struct {
  char **items;
  size_t n, cap;
} strv;

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects *.sh under dir (sorted, depth-limited); skips scripts/models and entrypoint dirs:
 * they are sourced by launch scripts, not launched. */
static void collect_scripts(strv *out, const char *dir, int depth) {
  if (depth > 16) return;
  DIR *d = opendir(dir);
  if (!d) return;
  strv names = {0};
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') *PD_PUSH(names.items, names.n, names.cap) = pd_xstrdup(e->d_name);
  closedir(d);
  if (names.n) qsort(names.items, names.n, sizeof *names.items, cmp_str);
  for (size_t i = 0; i < names.n; i++) {
    char *p = pd_xasprintf("%s/%s", dir, names.items[i]);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      if (strcmp(names.items[i], "models") && strcmp(names.items[i], "entrypoint")) collect_scripts(out, p, depth + 1);
      free(p);
    } else if (S_ISREG(st.st_mode) && pd_str_ends(names.items[i], ".sh")) {
      *PD_PUSH(out->items, out->n, out->cap) = p;
    } else {
      free(p);
    }
    free(names.items[i]);
  }
  free(names.items);
}

static const char *default_lang(void) {
  const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return pd_str_starts(v, "zh") ? "zh" : "en";
  }
  return "en";
}

int pd_cmd_check(int argc, char **argv) {
  const char *format = "md", *lang = NULL, *fail_on = "critical";
  au_config cfg = {0};
  strv inputs = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    const char *opts[] = {"--format", "--lang", "--gpu", "--fail-on", "--rules", "--model-config-dir"};
    int which = -1;
    for (int k = 0; k < 6; k++) {
      size_t n = strlen(opts[k]);
      if (!strncmp(a, opts[k], n) && (a[n] == '\0' || a[n] == '=')) {
        which = k;
        if (a[n] == '=') val = a + n + 1;
        else if (i + 1 < argc) val = argv[++i];
        break;
      }
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      check_usage(stdout);
      free(inputs.items);
      return 0;
    }
    if (which < 0 && a[0] == '-' && a[1]) {
      fprintf(stderr, "perf-doctor check: unknown option %s\n", a);
      check_usage(stderr);
      free(inputs.items);
      return 2;
    }
    if (which >= 0 && !val) {
      fprintf(stderr, "perf-doctor check: %s needs a value\n", a);
      free(inputs.items);
      return 2;
    }
    switch (which) {
    case 0: format = val; break;
    case 1: lang = val; break;
    case 2: cfg.gpu = val; break;
    case 3: fail_on = val; break;
    case 4: cfg.extra_rules = val; break;
    case 5: cfg.model_config_dir = val; break;
    default: *PD_PUSH(inputs.items, inputs.n, inputs.cap) = (char *)a;
    }
  }
  int fail_level = !strcmp(fail_on, "critical") ? AU_CRITICAL : !strcmp(fail_on, "warn") ? AU_WARN
                   : !strcmp(fail_on, "info") ? AU_INFO : -1;
  if (!lang) lang = default_lang();
  if (fail_level < 0 || (strcmp(format, "md") && strcmp(format, "json") && strcmp(format, "sarif")) ||
      (strcmp(lang, "en") && strcmp(lang, "zh")) || !inputs.n) {
    check_usage(stderr);
    free(inputs.items);
    return 2;
  }
  cfg.lang = lang;
  pd_device custom;
  if (cfg.gpu && !pd_device_find(cfg.gpu, &custom)) {
    fprintf(stderr, "perf-doctor check: unknown GPU '%s' (known:", cfg.gpu);
    for (size_t i = 0; i < pd_device_count(); i++)
      fprintf(stderr, "%s %s", i ? "," : "", pd_device_at(i)->id);
    fputs(")\n", stderr);
    free(inputs.items);
    return 2;
  }

  strv files = {0};
  int status = 0;
  for (size_t i = 0; i < inputs.n; i++) {
    struct stat st;
    if (stat(inputs.items[i], &st) != 0) {
      fprintf(stderr, "perf-doctor check: %s: %s\n", inputs.items[i], strerror(errno));
      status = 2;
    } else if (S_ISDIR(st.st_mode)) {
      size_t before = files.n;
      collect_scripts(&files, inputs.items[i], 0);
      if (files.n == before) fprintf(stderr, "perf-doctor check: %s: no *.sh scripts\n", inputs.items[i]);
    } else {
      *PD_PUSH(files.items, files.n, files.cap) = pd_xstrdup(inputs.items[i]);
    }
  }
  free(inputs.items);

  /* The catalog is compiled once for all the scripts of this call. */
  char **rule_errors = NULL;
  size_t nrule_errors = 0;
  au_rules *rules = au_rules_load(cfg.extra_rules, &rule_errors, &nrule_errors);
  for (size_t k = 0; k < nrule_errors; k++) {
    fprintf(stderr, "perf-doctor check: %s\n", rule_errors[k]);
    free(rule_errors[k]);
    status = 2;
  }
  free(rule_errors);
  cfg.rules = rules;
  /* the scripts of one call source the same entrypoint and model configs: parse those once */
  cfg.cache = sm_cache_new();

  au_result **results = pd_xcalloc(files.n ? files.n : 1, sizeof *results);
  size_t nres = 0;
  for (size_t i = 0; i < files.n; i++) {
    size_t len = 0;
    char *text = pd_read_file(files.items[i], PD_MAX_FILE_BYTES, &len);
    if (!text) {
      fprintf(stderr, "perf-doctor check: %s: %s\n", files.items[i], pd_read_error(errno));
      status = 2;
      continue;
    }
    au_result *r = au_run(files.items[i], text, len, NULL, &cfg);
    free(text);
    for (size_t k = 0; k < r->nerrors; k++) {
      fprintf(stderr, "perf-doctor check: %s\n", r->errors[k]);
      status = 2;
    }
    for (size_t k = 0; k < r->nfindings && status != 2; k++)
      if ((int)r->findings[k].severity >= fail_level) status = 1;
    results[nres++] = r;
  }

  if (!strcmp(format, "md")) {
    for (size_t i = 0; i < nres; i++) {
      char *md = au_report_markdown(results[i], lang);
      fputs(md, stdout);
      if (i + 1 < nres) fputs("\n", stdout);
      free(md);
    }
  } else {
    json_t *doc;
    if (!strcmp(format, "sarif")) {
      doc = au_report_sarif(results, nres);
    } else if (nres == 1) {
      doc = au_report_json(results[0]);
    } else {
      doc = json_array();
      for (size_t i = 0; i < nres; i++) json_array_append_new(doc, au_report_json(results[i]));
    }
    char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
      fputs(s, stdout);
      fputc('\n', stdout);
      free(s);
    }
    json_decref(doc);
  }
  for (size_t i = 0; i < nres; i++) au_result_free(results[i]);
  au_rules_free(rules);
  sm_cache_free(cfg.cache);
  free(results);
  for (size_t i = 0; i < files.n; i++) free(files.items[i]);
  free(files.items);
  if (fflush(stdout) != 0) status = 2;
  return status;
}
