/* `perf-doctor profile SCRIPT [--format md|json] [--lang en|zh]`: how to profile the training of
 * this script.
 *
 * Prints the plan of audit/profile.h (the flags to add, a step window inside the script's run
 * length, where Relax will write the traces and what to run on them; the facts about Relax's
 * profiler it rests on are listed there). It reads the script like `check` does and never edits
 * it; the editor inserts the same flags (lsp/codeaction.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/facts.h"
#include "audit/messages.h"
#include "audit/profile.h"
#include "base/alloc.h"
#include "cli/cli.h"
#include "cli/options.h"

static const char usage[] =
    "usage: perf-doctor profile SCRIPT [--format md|json] [--lang en|zh] [--gpu TYPE] [--model-config-dir DIR]\n"
    "  How to profile this script's training with Relax's PyTorch profiler: the flags to add,\n"
    "  where the traces will be written and the commands to read them. Prints only; the script\n"
    "  is not changed. --lang: the language of the markdown (default: the locale's).\n";

typedef struct {
  const char *script, *format, *lang;
  sm_options opt;
} profile_args;

/* "perf-doctor profile: <message>" on stderr (and the usage when asked); returns 2. */
static int fail(const au_messages *ms, const char *lang, au_msg_id id, const char *arg, bool with_usage) {
  ax_value a[1] = {ax_str(arg)};
  char *msg = au_msg(ms, id, lang, NULL, a);
  fprintf(stderr, "perf-doctor profile: %s\n%s", msg, with_usage ? usage : "");
  free(msg);
  return 2;
}

/* -1 to go on, else the exit status. */
static int parse(int argc, char **argv, profile_args *pa, const au_messages *ms) {
  const char *lang = pa->lang;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(usage, stdout), 0;
    const char *lv = !strncmp(a, "--lang=", 7) ? a + 7 : !strcmp(a, "--lang") && i + 1 < argc ? argv[i + 1] : NULL;
    if (lv && strcmp(lv, "en") != 0 && strcmp(lv, "zh") != 0) return fail(ms, lang, AU_MSG_PROF_ERR_LANG, lv, false);
    if (!strncmp(a, "--lang=", 7)) continue;
    if ((!strcmp(a, "--format") || !strcmp(a, "--gpu") || !strcmp(a, "--model-config-dir") || !strcmp(a, "--lang")) &&
        i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(a, "--format")) pa->format = v;
      else if (!strcmp(a, "--gpu")) pa->opt.gpu = v;
      else if (!strcmp(a, "--model-config-dir")) pa->opt.model_config_dir = v;
    } else if ((a[0] == '-' && a[1]) || pa->script) {
      return fail(ms, lang, pa->script ? AU_MSG_PROF_ERR_ONE_SCRIPT : AU_MSG_PROF_ERR_OPTION, a, true);
    } else {
      pa->script = a;
    }
  }
  if (!pa->script) return fputs(usage, stderr), 2;
  if (strcmp(pa->format, "md") != 0 && strcmp(pa->format, "json") != 0)
    return fail(ms, lang, AU_MSG_PROF_ERR_FORMAT, pa->format, false);
  return -1;
}

static int run(const profile_args *pa, const au_rules *rules, const au_messages *ms) {
  sm_model *m = co_read_model("profile", pa->script, &pa->opt);
  if (!m) return 2;
  if (!m->train_line_found) {
    sm_model_free(m);
    return fail(ms, pa->lang, AU_MSG_PROF_ERR_NO_TRAIN, pa->script, false);
  }
  au_facts *f = af_compute(m, NULL);
  au_profile *p = au_profile_plan(m, f);
  if (!strcmp(pa->format, "json")) {
    json_t *j = au_profile_json(p, rules, pa->script);
    json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(j);
  } else {
    char *md = au_profile_markdown(p, rules, pa->script, pa->lang);
    fputs(md, stdout);
    free(md);
  }
  au_profile_free(p);
  af_free(f);
  sm_model_free(m);
  return 0;
}

int pd_cmd_profile(int argc, char **argv) {
  char **errs = NULL;
  size_t nerrs = 0;
  au_rules *rules = au_rules_load(NULL, &errs, &nerrs);
  for (size_t i = 0; i < nerrs; i++) {
    fprintf(stderr, "perf-doctor profile: %s\n", errs[i]);
    free(errs[i]);
  }
  free(errs);
  const au_messages *ms = au_rules_messages(rules);
  profile_args pa = {.format = "md", .lang = co_lang_of(argc, argv)};
  int st = parse(argc, argv, &pa, ms);
  if (st < 0) st = run(&pa, rules, ms);
  au_rules_free(rules);
  return st;
}
