/* `perf-doctor rules` (every rule: id, severity, category, modes, title) and `perf-doctor explain
 * RULE` (one rule's page), from the catalog and an optional user rule file. `rules --pages DIR`
 * writes the pages of docs/rules/ (en, and zh under zh/) with their index. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "base/path.h"
#include "cli/cli.h"
#include "cli/options.h"

static const char rules_usage[] =
    "usage: perf-doctor rules [--format md|json] [--lang en|zh] [--rules FILE] [--pages DIR]\n"
    "  Lists every rule: id, severity, category, the jobs it applies to, title.\n"
    "  --pages DIR writes one markdown page per rule (DIR/R-X.md, DIR/zh/R-X.md) and the index.\n";
static const char explain_usage[] =
    "usage: perf-doctor explain RULE [--format md|json] [--lang en|zh] [--rules FILE]\n"
    "  Why the rule exists, when it fires, its fix, when to ignore it, what it was checked\n"
    "  against, an example and how to turn it off.\n";

typedef struct {
  const char *format, *lang, *rules_file, *pages, *id;
} rules_opts;

static int parse(const char *cmd, const char *usage, int argc, char **argv, rules_opts *o, bool want_id) {
  memset(o, 0, sizeof *o);
  static const char *const formats[] = {"md", "json", NULL}, *const langs[] = {"en", "zh", NULL};
  const char *say = co_lang_of(argc, argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(usage, stdout), 0;
    const char **slot = !strcmp(a, "--format") ? &o->format : !strcmp(a, "--lang") ? &o->lang
                        : !strcmp(a, "--rules") ? &o->rules_file : !strcmp(a, "--pages") && !want_id ? &o->pages
                        : NULL;
    if (slot && i + 1 < argc) {
      *slot = argv[++i];
    } else if (slot || a[0] == '-') {
      co_fail1(cmd, say, slot ? AU_MSG_CLI_NEEDS_VALUE : AU_MSG_CLI_UNKNOWN_OPTION, a);
      return fputs(usage, stderr), 2;
    } else if (want_id && !o->id) {
      o->id = a;
    } else {
      co_fail1(cmd, say, AU_MSG_CLI_UNEXPECTED_ARG, a);
      return fputs(usage, stderr), 2;
    }
  }
  if (want_id && !o->id) return co_fail(cmd, say, AU_MSG_CLI_WHICH_RULE, NULL), fputs(usage, stderr), 2;
  if (o->format && strcmp(o->format, "md") && strcmp(o->format, "json"))
    return co_bad_value(cmd, say, AU_MSG_CLI_UNKNOWN_FORMAT, o->format, formats);
  if (o->lang && strcmp(o->lang, "en") && strcmp(o->lang, "zh"))
    return co_bad_value(cmd, say, AU_MSG_CLI_UNKNOWN_LANG, o->lang, langs);
  if (!o->lang) o->lang = co_default_lang();
  return -1;
}

static au_rules *load(const char *cmd, const char *file, int *status) {
  char **errs = NULL;
  size_t n = 0;
  au_rules *r = au_rules_load(file, &errs, &n);
  for (size_t i = 0; i < n; i++) {
    fprintf(stderr, "perf-doctor %s: %s\n", cmd, errs[i]);
    free(errs[i]);
    *status = 2;
  }
  free(errs);
  return r;
}

static int write_file(const char *path, const char *text) {
  if (pd_write_file(path, text)) return 0;
  fprintf(stderr, "perf-doctor rules: %s: %s\n", path, strerror(errno));
  return 2;
}

/* DIR/README.md + DIR/R-X.md (en), DIR/zh/README.md + DIR/zh/R-X.md. */
static int write_pages(const au_rules *rules, const char *dir) {
  static const char *const langs[] = {"en", "zh"};
  for (int l = 0; l < 2; l++) {
    char *d = l ? pd_xasprintf("%s/zh", dir) : pd_xstrdup(dir);
    if (pd_mkdirs(d) != 0) {
      fprintf(stderr, "perf-doctor rules: %s: %s\n", d, strerror(errno));
      free(d);
      return 2;
    }
    char *index = au_rules_index(rules, langs[l], "%s.md");
    char *ip = pd_xasprintf("%s/README.md", d);
    int st = write_file(ip, index);
    free(ip);
    free(index);
    for (size_t i = 0; !st && i < au_rules_count(rules); i++) {
      char *page = au_rule_page(rules, au_rule_id(rules, i), langs[l]);
      char *pp = pd_xasprintf("%s/%s.md", d, au_rule_id(rules, i));
      st = write_file(pp, page);
      free(pp);
      free(page);
    }
    free(d);
    if (st) return st;
  }
  return 0;
}

static void print_json(json_t *j) {
  json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  fputc('\n', stdout);
  json_decref(j);
}

int pd_cmd_rules(int argc, char **argv) {
  rules_opts o;
  int status = parse("rules", rules_usage, argc, argv, &o, false);
  if (status >= 0) return status;
  status = 0;
  au_rules *rules = load("rules", o.rules_file, &status);
  if (o.pages) {
    if (write_pages(rules, o.pages)) status = 2;
  } else if (o.format && !strcmp(o.format, "json")) {
    json_t *all = json_array();
    for (size_t i = 0; i < au_rules_count(rules); i++) json_array_append_new(all, au_rule_json(rules, i));
    print_json(json_pack("{s:o}", "rules", all));
  } else {
    char *index = au_rules_index(rules, o.lang, "docs/rules/%s.md");
    fputs(index, stdout);
    free(index);
  }
  au_rules_free(rules);
  return status;
}

int pd_cmd_explain(int argc, char **argv) {
  rules_opts o;
  int status = parse("explain", explain_usage, argc, argv, &o, true);
  if (status >= 0) return status;
  status = 0;
  au_rules *rules = load("explain", o.rules_file, &status);
  char *page = au_rule_page(rules, o.id, o.lang);
  if (!page) {
    co_fail1("explain", o.lang, AU_MSG_CLI_UNKNOWN_RULE, o.id);
    au_rules_free(rules);
    return 2;
  }
  if (o.format && !strcmp(o.format, "json")) {
    for (size_t i = 0; i < au_rules_count(rules); i++)
      if (!strcmp(au_rule_id(rules, i), o.id)) print_json(au_rule_json(rules, i));
  } else {
    fputs(page, stdout);
  }
  free(page);
  au_rules_free(rules);
  return status;
}

#ifndef PD_COMMIT
#define PD_COMMIT "not built from a git checkout"
#endif

int pd_cmd_version(void) {
  printf("perf-doctor %s (%s)\n", PD_VERSION, PD_COMMIT);
  return 0;
}
