/* `perf-doctor flags [NAME...] [--format md|json] [--lang en|zh] [--parser P] [--relax-src DIR]`:
 * the flag catalog, as `rules` lists the rules. Without names, every option (one line each, or
 * the JSON list); with names, each option's whole entry, and for a name no parser has the
 * nearest known spellings (exit 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "cli/cli.h"
#include "cli/options.h"

static const char flags_usage[] =
    "usage: perf-doctor flags [NAME...] [--format md|json] [--lang en|zh] [--parser P]\n"
    "                         [--relax-src DIR]\n"
    "  Lists the options of the parsers Relax's train entrypoint runs (Relax, Megatron-LM,\n"
    "  SGLang's ServerArgs as --sglang-*), from the flag catalog: type, default, help, where\n"
    "  each is defined and at which commit. With NAMEs, each option's whole entry.\n"
    "  --parser relax|megatron|sglang|pre   only that parser's options\n"
    "  --relax-src DIR   read Relax's own options from that checkout instead of the built-in ones\n"
    "  Exit 0; 1 when a NAME is not an option; 2 on usage errors.\n";

typedef struct {
  const char *format, *lang, *parser, *relax_src;
  const char **names;
  size_t nnames, cap;
} flags_opts;

static int parse(int argc, char **argv, flags_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(flags_usage, stdout), 0;
    const char **slot = !strcmp(a, "--format") ? &o->format : !strcmp(a, "--lang") ? &o->lang
                        : !strcmp(a, "--parser") ? &o->parser : !strcmp(a, "--relax-src") ? &o->relax_src
                        : NULL;
    if (slot && i + 1 < argc) *slot = argv[++i];
    else if (slot || (a[0] == '-' && a[1] != '-'))
      return co_fail1("flags", co_lang_of(argc, argv), slot ? AU_MSG_CLI_NEEDS_VALUE : AU_MSG_CLI_UNKNOWN_OPTION, a),
             fputs(flags_usage, stderr), 2;
    else *PD_PUSH(o->names, o->nnames, o->cap) = a; /* --names are what we look up */
  }
  static const char *const formats[] = {"md", "json", NULL}, *const langs[] = {"en", "zh", NULL},
                           *const parsers[] = {"relax", "megatron", "sglang", "pre", NULL};
  const char *say = co_lang_of(argc, argv);
  if (o->format && strcmp(o->format, "md") && strcmp(o->format, "json"))
    return co_bad_value("flags", say, AU_MSG_CLI_UNKNOWN_FORMAT, o->format, formats);
  if (o->lang && strcmp(o->lang, "en") && strcmp(o->lang, "zh"))
    return co_bad_value("flags", say, AU_MSG_CLI_UNKNOWN_LANG, o->lang, langs);
  if (o->parser && strcmp(o->parser, "relax") && strcmp(o->parser, "megatron") &&
      strcmp(o->parser, "sglang") && strcmp(o->parser, "pre"))
    return co_bad_value("flags", say, AU_MSG_CLI_UNKNOWN_PARSER, o->parser, parsers);
  if (!o->lang) o->lang = co_default_lang();
  if (!o->format) o->format = "md";
  return -1;
}

/* The first sentence of a help text, at most 100 characters, on one line. */
static void first_sentence(pd_buf *b, const char *help) {
  size_t n = 0;
  while (help[n] && n < 100 && !(help[n] == '.' && (help[n + 1] == ' ' || !help[n + 1]))) n++;
  for (size_t i = 0; i < n; i++) pd_buf_putc(b, help[i] == '\n' || help[i] == '|' ? ' ' : help[i]);
  if (help[n] && help[n] != '.') pd_buf_puts(b, "…");
}

static bool wanted(const fc_option *op, const flags_opts *o) {
  return !o->parser || !strcmp(o->parser, fc_parser_name(op->parser));
}

static void list_all(const fc_catalog *cat, const flags_opts *o) {
  if (!strcmp(o->format, "json")) {
    json_t *arr = json_array();
    for (size_t i = 0; i < fc_count(cat); i++)
      if (wanted(fc_at(cat, i), o)) json_array_append_new(arr, fc_option_json(cat, fc_at(cat, i)));
    json_dumpf(arr, stdout, JSON_INDENT(1));
    fputc('\n', stdout);
    json_decref(arr);
    return;
  }
  for (int p = 0; p < FC_NPARSERS; p++)
    if (!o->parser || !strcmp(o->parser, fc_parser_name((fc_parser)p)))
      printf("<!-- %s: %s -->\n", fc_parser_name((fc_parser)p), fc_origin(cat, (fc_parser)p));
  puts("\n| option | parser | type | default | help |\n|---|---|---|---|---|");
  pd_buf b = {0};
  for (size_t i = 0; i < fc_count(cat); i++) {
    const fc_option *op = fc_at(cat, i);
    if (!wanted(op, o)) continue;
    b.len = 0;
    first_sentence(&b, op->help);
    printf("| `%s` | %s | %s | `%s` | %s |\n", op->names[0], fc_parser_name(op->parser),
           fc_type_name(op), op->default_text, b.data ? b.data : "");
  }
  pd_buf_free(&b);
}

static int show(const au_rules *rules, const fc_catalog *cat, const flags_opts *o) {
  int status = 0;
  bool json = !strcmp(o->format, "json");
  json_t *arr = json ? json_array() : NULL;
  for (size_t i = 0; i < o->nnames; i++) {
    const fc_option *op = fc_find(cat, o->names[i]);
    if (!op) status = 1;
    if (json) {
      json_t *e = op ? fc_option_json(cat, op) : json_pack("{s:s,s:b}", "name", o->names[i], "known", 0);
      if (!op) {
        const char *near[3];
        size_t n = fc_suggest(cat, o->names[i], near, 3);
        json_t *s = json_array();
        for (size_t k = 0; k < n; k++) json_array_append_new(s, json_string(near[k]));
        json_object_set_new(e, "suggestions", s);
      }
      json_array_append_new(arr, e);
      continue;
    }
    char *md = au_flag_markdown(rules, cat, o->names[i], NULL, o->lang);
    printf("%s%s\n", i ? "\n---\n\n" : "", md ? md : o->names[i]);
    free(md);
  }
  if (json) {
    json_dumpf(arr, stdout, JSON_INDENT(1));
    fputc('\n', stdout);
    json_decref(arr);
  }
  return status;
}

int pd_cmd_flags(int argc, char **argv) {
  flags_opts o = {0};
  int st = parse(argc, argv, &o);
  if (st >= 0) {
    free(o.names);
    return st;
  }
  char **errs = NULL;
  size_t nerr = 0;
  au_rules *rules = au_rules_load(NULL, &errs, &nerr);
  for (size_t i = 0; i < nerr; i++) fprintf(stderr, "perf-doctor flags: %s\n", errs[i]), free(errs[i]);
  free(errs);
  ps_catalogs *cc = ps_catalogs_new();
  const fc_catalog *cat = co_catalog(cc, au_rules_flags(rules), "flags", o.relax_src ? o.relax_src : "", NULL);
  if (!cat) {
    co_fail("flags", o.lang, AU_MSG_CLI_NO_CATALOG, NULL);
    st = 2;
  } else if (o.nnames) {
    st = show(rules, cat, &o);
  } else {
    list_all(cat, &o);
    st = 0;
  }
  ps_catalogs_free(cc);
  au_rules_free(rules);
  free(o.names);
  return st;
}
