/* `perf-doctor context SCRIPT [--format json|text] [--gpu TYPE] [--model-config-dir DIR]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/facts.h"
#include "cli/cli.h"
#include "cli/options.h"

static int context_usage(FILE *f) {
  fputs("usage: perf-doctor context SCRIPT [--format json|text] [--gpu TYPE]\n"
        "                           [--model-config-dir DIR] [--relax-src DIR] [--lang en|zh]\n"
        "Prints what the analyzer understood of a launch script: the flags argparse would see\n"
        "(last occurrence wins), what argparse makes of each (with the flag catalog: the built-in\n"
        "one, or Relax's options read from the checkout the script is in or --relax-src), where\n"
        "each comes from, and the derived context. --lang: the language of its errors.\n",
        f);
  return f == stdout ? 0 : 2;
}

int pd_cmd_context(int argc, char **argv) {
  const char *script = NULL, *format = "text", *relax_src = NULL;
  sm_options opt = {0};
  const char *say = co_lang_of(argc, argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return context_usage(stdout);
    if ((!strcmp(a, "--format") || !strcmp(a, "--gpu") || !strcmp(a, "--model-config-dir") ||
         !strcmp(a, "--relax-src") || !strcmp(a, "--lang")) && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(a, "--format")) format = v;
      else if (!strcmp(a, "--gpu")) opt.gpu = v;
      else if (!strcmp(a, "--relax-src")) relax_src = v;
      else if (!strcmp(a, "--lang")) continue; /* co_lang_of read it: the language of errors */
      else opt.model_config_dir = v;
    } else if (a[0] == '-' && a[1]) {
      co_fail1("context", say, AU_MSG_CLI_UNKNOWN_OPTION, a);
      return context_usage(stderr);
    } else if (!script) {
      script = a;
    } else {
      co_fail("context", say, AU_MSG_CLI_ONE_SCRIPT, NULL);
      return context_usage(stderr);
    }
  }
  if (!script) return context_usage(stderr);
  if (strcmp(format, "json") != 0 && strcmp(format, "text") != 0) {
    static const char *const formats[] = {"json", "text", NULL};
    return co_bad_value("context", say, AU_MSG_CLI_UNKNOWN_FORMAT, format, formats);
  }
  char *err = NULL;
  fc_catalog *builtin = fc_builtin(&err);
  if (err) fprintf(stderr, "perf-doctor context: %s\n", err);
  free(err);
  ps_catalogs *cats = ps_catalogs_new();
  opt.catalog = co_catalog(cats, builtin, "context", relax_src, script);
  sm_model *m = co_read_model("context", script, &opt);
  if (!m) {
    ps_catalogs_free(cats);
    fc_free(builtin);
    return 2;
  }
  au_facts *facts = af_compute(m, NULL);
  if (!strcmp(format, "json")) {
    json_t *j = au_context_json(m, facts);
    json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(j);
  } else {
    char *s = au_context_text(m, facts);
    fputs(s, stdout);
    free(s);
  }
  af_free(facts);
  sm_model_free(m);
  ps_catalogs_free(cats);
  fc_free(builtin);
  return 0;
}
