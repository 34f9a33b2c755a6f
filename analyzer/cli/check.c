/* `perf-doctor check`: audits launch scripts and prints the report (markdown, JSON or SARIF).
 * Exit status: 0 = nothing at or above --fail-on, 1 = something is, 2 = usage or I/O error, a
 * file that is not a launch script named explicitly, or a directory without launch scripts. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "evidence/evidence.h"
#include "trace/trace.h"

static const char usage[] =
    "usage: perf-doctor check SCRIPT|DIR... [options] [-- SCRIPT-ARGS...]\n"
    "  Audits Relax launch scripts (a directory means every *.sh under it, model configs and\n"
    "  entrypoints excepted). Settings come from the nearest .perf-doctor.json above each script,\n"
    "  then from these options:\n"
    "  --format md|json|sarif   report format (default md)\n"
    "  --lang en|zh             report language (default from the locale)\n"
    "  --gpu TYPE               the GPU (default: a `# perf-doctor: gpu=` comment, else H20 96GB, assumed)\n"
    "  --fail-on critical|warn|info   exit 1 when a finding at or above it is found (default critical)\n"
    "  --disable R-X[,R-Y]      turn rules off;   --severity R-X=off|info|warn|critical\n"
    "  --rules FILE             a rule file (new rules, replacements, severity-only entries)\n"
    "  --model-config-dir DIR   where scripts/models/*.sh are, when discovery does not find them\n"
    "  --config FILE | --no-config   use this project config, or none\n"
    "  --env NAME=VALUE         audit the script as launched with that environment (repeatable)\n"
    "  --base-dir DIR           SARIF paths relative to DIR (default: the current directory)\n"
    "  --relax-src DIR          the Relax checkout whose own options the flag checks use (default:\n"
    "                           the checkout the script is in; '' = the built-in flag catalog)\n"
    "  --trace FILE|DIR         a profiler trace of this job: findings get what it measured\n"
    "                           (contradicted ones are lowered a level), plus estimated vs measured\n"
    "  -- ARGS...               the script's own arguments (\"$@\")\n"
    "  Exit 0: nothing at or above --fail-on; 1: something is; 2: usage or input errors.\n";

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

static void strv_free_all(strv *v) {
  for (size_t i = 0; i < v->n; i++) free(v->items[i]);
  free(v->items);
}

/* One file to audit: its path, the input it came from (index into co_opts.inputs), and whether
 * it was named (not found in a directory). */
typedef struct {
  char *path;
  size_t input;
  bool named;
} target;

typedef struct {
  target *v;
  size_t n, cap;
} targets;

/* The files to audit. Sets *status to 2 for an input that does not exist or a directory with no
 * *.sh at all. */
static targets expand_inputs(const co_opts *o, int *status) {
  targets t = {0};
  for (size_t i = 0; i < o->ninputs; i++) {
    struct stat st;
    if (stat(o->inputs[i], &st) != 0) {
      fprintf(stderr, "perf-doctor check: %s: %s\n", o->inputs[i], strerror(errno));
      *status = 2;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      *PD_PUSH(t.v, t.n, t.cap) = (target){pd_xstrdup(o->inputs[i]), i, true};
      continue;
    }
    strv found = {0};
    collect_scripts(&found, o->inputs[i], 0);
    if (!found.n) {
      co_fail1("check", o->msg_lang, AU_MSG_CLI_NO_SH, o->inputs[i]);
      *status = 2;
    }
    for (size_t k = 0; k < found.n; k++) *PD_PUSH(t.v, t.n, t.cap) = (target){found.items[k], i, false};
    free(found.items);
  }
  return t;
}

/* The rule sets of one call: the built-in catalog, and one per user rule file named. */
typedef struct {
  char *file; /* NULL = built-in only */
  au_rules *rules;
} rules_entry;

typedef struct {
  rules_entry *v;
  size_t n, cap;
} rules_cache;

static au_rules *rules_for(rules_cache *c, const char *file, int *status) {
  for (size_t i = 0; i < c->n; i++)
    if ((!file && !c->v[i].file) || (file && c->v[i].file && !strcmp(file, c->v[i].file)))
      return c->v[i].rules;
  char **errs = NULL;
  size_t nerrs = 0;
  au_rules *r = au_rules_load(file, &errs, &nerrs);
  for (size_t k = 0; k < nerrs; k++) {
    fprintf(stderr, "perf-doctor check: %s\n", errs[k]);
    free(errs[k]);
    *status = 2;
  }
  free(errs);
  *PD_PUSH(c->v, c->n, c->cap) = (rules_entry){file ? pd_xstrdup(file) : NULL, r};
  return r;
}

/* Rule ids the settings name that no rule has: a typo that would silently do nothing. */
static void check_rule_ids(const au_settings *s, const au_rules *rules, int *status) {
  for (size_t i = 0; i < s->noverrides; i++) {
    bool known = false;
    for (size_t k = 0; k < au_rules_count(rules) && !known; k++)
      known = !strcmp(au_rule_id(rules, k), s->overrides[i].rule);
    if (!known) {
      co_fail1("check", s->lang, AU_MSG_CLI_UNKNOWN_RULE, s->overrides[i].rule);
      *status = 2;
    }
  }
}

typedef struct {
  au_result **v;
  size_t n;
  char **trace_dir;   /* per report: --trace, else the project config's traceDir, else NULL */
  const evd_trace **trace; /* per report: its measures (borrowed from `traces`), or NULL */
  evd_trace **traces; /* the traces summarised, one per distinct path (owned) */
  size_t ntraces;
  strv skipped;       /* found in a directory, not launch scripts */
  const char *lang;   /* of the reports */
  const au_rules *rules;
} run_out;

/* Audits one file with its own settings. Raises *status for errors (2) and findings at the fail
 * level (1). */
/* Whether a finding of r, not suppressed, is at or above --fail-on. */
static bool reaches_fail_level(const au_result *r, int fail_level) {
  for (size_t k = 0; k < r->nfindings; k++)
    if (!r->findings[k].suppressed && (int)r->findings[k].severity >= fail_level) return true;
  return false;
}

static bool audit_one(const co_opts *o, const target *t, int fail_level, rules_cache *rc,
                      sm_cache *cache, ps_catalogs *cats, run_out *out, int *status) {
  au_settings s;
  if (co_settings("check", o, t->path, &s) == 2) *status = 2;
  size_t len = 0;
  char *text = pd_read_file(t->path, PD_MAX_FILE_BYTES, &len);
  if (!text) {
    fprintf(stderr, "perf-doctor check: %s: %s\n", t->path, pd_read_error(errno));
    *status = 2;
    au_settings_free(&s);
    return false;
  }
  out->trace_dir[out->n] = o->trace ? pd_xstrdup(o->trace) : s.trace_dir ? pd_xstrdup(s.trace_dir) : NULL;
  au_config cfg = co_config(o, &s);
  cfg.rules = rules_for(rc, s.extra_rules, status);
  cfg.cache = cache;
  cfg.catalog = co_catalog(cats, au_rules_flags(cfg.rules), "check",
                           o->relax_src ? o->relax_src : s.relax_src, t->path);
  check_rule_ids(&s, cfg.rules, status);
  au_result *r = au_run(t->path, text, len, NULL, &cfg);
  free(text);
  if (!out->lang) out->lang = pd_xstrdup(s.lang);
  out->rules = cfg.rules;
  au_settings_free(&s);
  if (!r->model->launch_script && !t->named) {
    *PD_PUSH(out->skipped.items, out->skipped.n, out->skipped.cap) = pd_xstrdup(t->path);
    au_result_free(r);
    free(out->trace_dir[out->n]);
    out->trace_dir[out->n] = NULL;
    return false;
  }
  bool launch = r->model->launch_script;
  if (!launch) *status = 2; /* named: there is nothing to audit in it */
  for (size_t k = 0; k < r->nerrors; k++) {
    fprintf(stderr, "perf-doctor check: %s\n", r->errors[k]);
    *status = 2;
  }
  if (*status != 2 && reaches_fail_level(r, fail_level)) *status = 1;
  out->v[out->n++] = r;
  return launch;
}

/* A directory given on the command line that held *.sh files but no launch script. */
static void check_dirs_had_scripts(const co_opts *o, const targets *t, const bool *launch, int *status) {
  for (size_t i = 0; i < o->ninputs; i++) {
    size_t files = 0, found = 0;
    for (size_t k = 0; k < t->n; k++) {
      if (t->v[k].input != i || t->v[k].named) continue;
      files++;
      found += launch[k];
    }
    if (files && !found) {
      co_fail1("check", o->msg_lang, AU_MSG_CLI_NO_LAUNCH, o->inputs[i]);
      *status = 2;
    }
  }
}

static void print_md(const run_out *out) {
  for (size_t i = 0; i < out->n; i++) {
    char *md = au_report_markdown(out->v[i], out->lang);
    fputs(md, stdout);
    const evd_trace *tr = out->trace[i];
    if (tr && out->v[i]->model->launch_script) {
      char *ev = evd_markdown(tr, out->v[i], out->lang);
      printf("\n%s", ev);
      free(ev);
    }
    if (i + 1 < out->n) fputs("\n", stdout);
    free(md);
  }
  if (!out->skipped.n) return;
  pd_buf list = {0};
  for (size_t i = 0; i < out->skipped.n; i++)
    pd_buf_printf(&list, "%s%s", i ? ", " : "", out->skipped.items[i]);
  char *note = au_skipped_note(out->rules, list.data, out->lang);
  if (out->n) fputs("\n", stdout);
  fputs(note, stdout);
  free(note);
  pd_buf_free(&list);
}

static void print_json(const co_opts *o, const run_out *out, int status) {
  json_t *doc;
  if (o->format && !strcmp(o->format, "sarif")) {
    doc = au_report_sarif(out->v, out->n, o->base_dir);
  } else {
    json_t *skipped = json_array();
    for (size_t i = 0; i < out->skipped.n; i++) json_array_append_new(skipped, json_string(out->skipped.items[i]));
    doc = au_report_json_all(out->v, out->n, skipped, status);
    json_t *reps = json_object_get(doc, "reports");
    for (size_t i = 0; i < out->n && i < json_array_size(reps); i++)
      if (out->trace[i] && out->v[i]->model->launch_script)
        json_object_set_new(json_array_get(reps, i), "trace", evd_trace_json(out->trace[i], out->v[i]));
  }
  char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (s) {
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
  }
  json_decref(doc);
}

/* The measures of the trace at path, summarised once per distinct path; NULL (and *status 2)
 * when it cannot be read. */
static const evd_trace *trace_at(const co_opts *o, run_out *out, const char *path, int *status) {
  for (size_t i = 0; i < out->ntraces; i++)
    if (!strcmp(evd_path(out->traces[i]), path)) return out->traces[i];
  tr_options topt = {.format = "json", .gpu = o->gpu, .lang = o->msg_lang};
  int failed = 0;
  char *err = NULL;
  json_t *summary = tr_summarize_value(path, &topt, &failed, &err);
  if (!summary) {
    fprintf(stderr, "perf-doctor check: --trace %s\n", err ? err : path);
    free(err);
    *status = 2;
    return NULL;
  }
  if (failed) {
    ax_value a[2] = {ax_str(path), ax_num(failed)};
    co_fail("check", o->msg_lang, AU_MSG_CLI_TRACE_UNREAD, a);
  }
  evd_trace *tr = evd_trace_from(summary, path);
  json_decref(summary);
  out->traces = pd_xrealloc(out->traces, (out->ntraces + 1) * sizeof *out->traces);
  out->traces[out->ntraces++] = tr;
  return tr;
}

/* check --trace (or a project's traceDir): attaches each report's trace evidence and works the
 * exit status out again (a contradicted finding may no longer reach --fail-on). */
static void link_traces(const co_opts *o, run_out *out, int fail_level, int *status) {
  bool any = false;
  for (size_t i = 0; i < out->n; i++) {
    if (!out->trace_dir[i] || !out->v[i]->model->launch_script) continue;
    out->trace[i] = trace_at(o, out, out->trace_dir[i], status);
    if (out->trace[i]) {
      char *other = evd_mismatch(out->trace[i], out->v[i], out->lang);
      if (other) fprintf(stderr, "perf-doctor check: --trace %s: %s\n", out->trace_dir[i], other);
      free(other);
      evd_apply(out->v[i], out->trace[i]);
    }
    any = true;
  }
  if (!any || *status == 2) return;
  *status = 0;
  for (size_t i = 0; i < out->n; i++)
    if (reaches_fail_level(out->v[i], fail_level)) *status = 1;
}

int pd_cmd_check(int argc, char **argv) {
  static const char *const formats[] = {"md", "json", "sarif", NULL};
  co_opts o;
  int status = co_parse("check", usage, formats, argc, argv, &o);
  if (status >= 0) {
    co_free(&o);
    return status;
  }
  status = 0;
  int fail_level = !o.fail_on || !strcmp(o.fail_on, "critical") ? AU_CRITICAL
                   : !strcmp(o.fail_on, "warn")                 ? AU_WARN
                                                                : AU_INFO;
  targets t = expand_inputs(&o, &status);
  rules_cache rc = {0};
  sm_cache *cache = sm_cache_new(); /* the scripts of one call source the same files */
  ps_catalogs *cats = ps_catalogs_new(); /* and live in the same checkout */
  size_t slots = t.n ? t.n : 1;
  run_out out = {pd_xcalloc(slots, sizeof(au_result *)), 0, pd_xcalloc(slots, sizeof(char *)),
                 pd_xcalloc(slots, sizeof(evd_trace *)), NULL, 0, {0}, NULL, NULL};
  bool *launch = pd_xcalloc(t.n ? t.n : 1, sizeof *launch);
  for (size_t i = 0; i < t.n; i++) launch[i] = audit_one(&o, &t.v[i], fail_level, &rc, cache, cats, &out, &status);
  check_dirs_had_scripts(&o, &t, launch, &status);
  free(launch);
  if (!out.rules) out.rules = rules_for(&rc, NULL, &status);
  if (!out.lang) out.lang = pd_xstrdup(o.lang ? o.lang : co_default_lang());
  if (status != 2) link_traces(&o, &out, fail_level, &status);
  if (!o.format || !strcmp(o.format, "md")) print_md(&out);
  else print_json(&o, &out, status);
  for (size_t i = 0; i < out.ntraces; i++) evd_trace_free(out.traces[i]);
  free(out.traces);
  for (size_t i = 0; i < slots; i++) free(out.trace_dir[i]);
  free(out.trace_dir);
  free(out.trace);
  for (size_t i = 0; i < out.n; i++) au_result_free(out.v[i]);
  free(out.v);
  strv_free_all(&out.skipped);
  free((char *)out.lang);
  for (size_t i = 0; i < rc.n; i++) {
    au_rules_free(rc.v[i].rules);
    free(rc.v[i].file);
  }
  free(rc.v);
  sm_cache_free(cache);
  ps_catalogs_free(cats);
  for (size_t i = 0; i < t.n; i++) free(t.v[i].path);
  free(t.v);
  co_free(&o);
  if (fflush(stdout) != 0) status = 2;
  return status;
}
