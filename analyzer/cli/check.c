/* `perf-doctor check`: audits launch scripts and prints the report (markdown, JSON or SARIF).
 * Exit status: 0 = nothing at or above --fail-on, 1 = something is, 2 = usage or I/O error. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
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

/* The note after a directory's reports: the files skipped as not launch scripts. */
static void print_skipped(const strv *skipped, const au_rules *rules, bool after, const char *lang) {
  pd_buf list = {0};
  for (size_t i = 0; i < skipped->n; i++)
    pd_buf_printf(&list, "%s%s", i ? ", " : "", skipped->items[i]);
  char *note = au_skipped_note(rules, list.data, lang);
  fputs(after ? "\n" : "", stdout);
  fputs(note, stdout);
  free(note);
  pd_buf_free(&list);
}

typedef struct {
  const char *format, *lang;
  int fail_level;
  au_config cfg;
  strv inputs; /* borrowed from argv */
} check_opts;

/* Parses argv into o. Returns -1 to go on, else the exit status (0 for --help). */
static int parse_args(int argc, char **argv, check_opts *o) {
  static const char *const opts[] = {"--format", "--lang", "--gpu", "--fail-on", "--rules",
                                     "--model-config-dir"};
  const char *fail_on = "critical";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = NULL;
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
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return check_usage(stdout), 0;
    if (which < 0 && a[0] == '-' && a[1]) {
      fprintf(stderr, "perf-doctor check: unknown option %s\n", a);
      return check_usage(stderr), 2;
    }
    if (which >= 0 && !val) return fprintf(stderr, "perf-doctor check: %s needs a value\n", a), 2;
    switch (which) {
    case 0: o->format = val; break;
    case 1: o->lang = val; break;
    case 2: o->cfg.gpu = val; break;
    case 3: fail_on = val; break;
    case 4: o->cfg.extra_rules = val; break;
    case 5: o->cfg.model_config_dir = val; break;
    default: *PD_PUSH(o->inputs.items, o->inputs.n, o->inputs.cap) = (char *)a;
    }
  }
  o->fail_level = !strcmp(fail_on, "critical") ? AU_CRITICAL : !strcmp(fail_on, "warn") ? AU_WARN
                  : !strcmp(fail_on, "info") ? AU_INFO : -1;
  if (!o->lang) o->lang = default_lang();
  if (o->fail_level < 0 || (strcmp(o->format, "md") && strcmp(o->format, "json") &&
                            strcmp(o->format, "sarif")) ||
      (strcmp(o->lang, "en") && strcmp(o->lang, "zh")) || !o->inputs.n)
    return check_usage(stderr), 2;
  o->cfg.lang = o->lang;
  pd_device custom;
  if (o->cfg.gpu && !pd_device_find(o->cfg.gpu, &custom)) {
    fprintf(stderr, "perf-doctor check: unknown GPU '%s' (known:", o->cfg.gpu);
    for (size_t i = 0; i < pd_device_count(); i++)
      fprintf(stderr, "%s %s", i ? "," : "", pd_device_at(i)->id);
    fputs(")\n", stderr);
    return 2;
  }
  return -1;
}

/* The files to audit: each input file, and the scripts under each input directory. named[i]
 * (caller frees) says files[i] was given by name. Sets *status to 2 for an input not found. */
static strv expand_inputs(const strv *inputs, bool **named, int *status) {
  strv files = {0};
  size_t named_cap = 0, nnamed = 0;
  *named = NULL;
  for (size_t i = 0; i < inputs->n; i++) {
    struct stat st;
    bool dir = false;
    if (stat(inputs->items[i], &st) != 0) {
      fprintf(stderr, "perf-doctor check: %s: %s\n", inputs->items[i], strerror(errno));
      *status = 2;
    } else if ((dir = S_ISDIR(st.st_mode))) {
      size_t before = files.n;
      collect_scripts(&files, inputs->items[i], 0);
      if (files.n == before) fprintf(stderr, "perf-doctor check: %s: no *.sh scripts\n", inputs->items[i]);
    } else {
      *PD_PUSH(files.items, files.n, files.cap) = pd_xstrdup(inputs->items[i]);
    }
    while (nnamed < files.n) *PD_PUSH(*named, nnamed, named_cap) = !dir;
  }
  return files;
}

/* Audits file i; NULL when it cannot be read or is a directory's non-launch file (then added to
 * skipped). Raises *status for errors (2) and findings at the fail level (1). */
static au_result *audit_one(const check_opts *o, const char *file, bool named, strv *skipped,
                            int *status) {
  size_t len = 0;
  char *text = pd_read_file(file, PD_MAX_FILE_BYTES, &len);
  if (!text) {
    fprintf(stderr, "perf-doctor check: %s: %s\n", file, pd_read_error(errno));
    *status = 2;
    return NULL;
  }
  au_result *r = au_run(file, text, len, NULL, &o->cfg);
  free(text);
  if (!r->model->launch_script && !named) { /* found in a directory: skipped, with a note */
    *PD_PUSH(skipped->items, skipped->n, skipped->cap) = pd_xstrdup(file);
    au_result_free(r);
    return NULL;
  }
  if (!r->model->launch_script) *status = 2; /* named: there is nothing to audit in it */
  for (size_t k = 0; k < r->nerrors; k++) {
    fprintf(stderr, "perf-doctor check: %s\n", r->errors[k]);
    *status = 2;
  }
  for (size_t k = 0; k < r->nfindings && *status != 2; k++)
    if ((int)r->findings[k].severity >= o->fail_level) *status = 1;
  return r;
}

static void print_json(const check_opts *o, au_result **results, size_t nres, const strv *skipped) {
  json_t *doc;
  if (!strcmp(o->format, "sarif")) {
    doc = au_report_sarif(results, nres);
  } else if (nres == 1 && !skipped->n) {
    doc = au_report_json(results[0]);
  } else {
    doc = json_array();
    for (size_t i = 0; i < nres; i++) json_array_append_new(doc, au_report_json(results[i]));
    for (size_t i = 0; i < skipped->n; i++)
      json_array_append_new(doc, json_pack("{s:s, s:b, s:b}", "file", skipped->items[i],
                                           "launch_script", 0, "skipped", 1));
  }
  char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (s) {
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
  }
  json_decref(doc);
}

static void strv_free_all(strv *v) {
  for (size_t i = 0; i < v->n; i++) free(v->items[i]);
  free(v->items);
}

int pd_cmd_check(int argc, char **argv) {
  check_opts o = {.format = "md"};
  int status = parse_args(argc, argv, &o);
  if (status >= 0) {
    free(o.inputs.items);
    return status;
  }
  status = 0;
  bool *named;
  strv files = expand_inputs(&o.inputs, &named, &status);
  free(o.inputs.items);

  /* The catalog is compiled once for all the scripts of this call. */
  char **rule_errors = NULL;
  size_t nrule_errors = 0;
  au_rules *rules = au_rules_load(o.cfg.extra_rules, &rule_errors, &nrule_errors);
  for (size_t k = 0; k < nrule_errors; k++) {
    fprintf(stderr, "perf-doctor check: %s\n", rule_errors[k]);
    free(rule_errors[k]);
    status = 2;
  }
  free(rule_errors);
  o.cfg.rules = rules;
  /* the scripts of one call source the same entrypoint and model configs: parse those once */
  o.cfg.cache = sm_cache_new();

  au_result **results = pd_xcalloc(files.n ? files.n : 1, sizeof *results);
  strv skipped = {0};
  size_t nres = 0;
  for (size_t i = 0; i < files.n; i++) {
    au_result *r = audit_one(&o, files.items[i], named[i], &skipped, &status);
    if (r) results[nres++] = r;
  }
  if (!strcmp(o.format, "md")) {
    for (size_t i = 0; i < nres; i++) {
      char *md = au_report_markdown(results[i], o.lang);
      fputs(md, stdout);
      if (i + 1 < nres) fputs("\n", stdout);
      free(md);
    }
    if (skipped.n) print_skipped(&skipped, rules, nres > 0, o.lang);
  } else {
    print_json(&o, results, nres, &skipped);
  }
  for (size_t i = 0; i < nres; i++) au_result_free(results[i]);
  au_rules_free(rules);
  sm_cache_free(o.cfg.cache);
  free(results);
  strv_free_all(&files);
  strv_free_all(&skipped);
  free(named);
  if (fflush(stdout) != 0) status = 2;
  return status;
}
