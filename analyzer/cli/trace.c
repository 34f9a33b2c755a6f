/* `perf-doctor trace PATH [--format md|json] [--lang en|zh] [--jobs N] [--include-last-step] [--gpu NAME]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "trace/compare.h"
#include "trace/messages.h"
#include "trace/trace.h"
#include "base/device.h"
#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"

static void trace_usage(FILE *f) {
  fputs("usage: perf-doctor trace PATH [--format md|json] [--lang en|zh] [--jobs N] [--include-last-step] [--gpu NAME]\n"
        "       perf-doctor trace --compare BEFORE AFTER [same options]\n"
        "       perf-doctor trace --partial FILE [--include-last-step] [--gpu NAME] > part.json\n"
        "       perf-doctor trace --merge PART.json... [--format md|json] [--lang en|zh] [--svg FILE]\n"
        "\n"
        "Summarises PyTorch-profiler (Kineto) traces: one .pt.trace.json(.gz) file or a folder\n"
        "of per-rank files (searched recursively), read in parallel.\n"
        "  --format md|json      output format (default md)\n"
        "  --lang en|zh          language of the markdown, the SVG and the messages (default: the\n"
        "                        locale's); JSON is the same in every language\n"
        "  --jobs N              worker threads (default: one per core)\n"
        "  --include-last-step   keep the last ProfilerStep in the HTA figures\n"
        "  --gpu NAME            judge MFU and link bandwidth against this device (default: the\n"
        "                        device the trace's deviceProperties names)\n"
        "  --svg FILE            also draw the summary: per-step stacked bars per rank, memory per\n"
        "                        step, the cross-rank compute spread (plain SVG)\n"
        "  --partial FILE        analyse one rank's file where it lives; print a mergeable partial\n"
        "  --merge PART...       the summary of partials, as if all their files were read here\n"
        "  --compare BEFORE AFTER  what changed between two traces (files or folders): step time,\n"
        "                        shares, MFU, memory, ops, kernels, collectives, against the noise\n"
        "                        (measured with two profiled steps or more on each side)\n"
        "Exit status: 0 all files summarised, 1 some files failed, 2 usage error or nothing readable.\n",
        f);
}

/* "perf-doctor trace[ MODE]: <message>" on stderr; returns 2 (a usage error or nothing readable). */
static int fail(const tr_text *tx, const char *mode, tr_msg_id id, const pd_marg *args, size_t n) {
  char *msg = tr_said(tx, id, args, n);
  fprintf(stderr, "perf-doctor trace%s: %s\n", mode, msg);
  free(msg);
  return 2;
}
#define FAIL(tx, id, ...) fail(tx, "", id, TR_ARGS_(__VA_ARGS__))
#define FAIL0(tx, id) fail(tx, "", id, NULL, 0)

/* An error the trace layer already wrote (err, consumed), or `failed` when it wrote none. */
static int fail_err(const tr_text *tx, const char *mode, char *err) {
  if (err) fprintf(stderr, "perf-doctor trace%s: %s\n", mode, err);
  else fail(tx, mode, TM_CLI_FAILED, NULL, 0);
  free(err);
  return 2;
}

/* Prints a summary (and writes its SVG, linked from the markdown); the exit status. */
static int print_summary(const char *text, const char *svg, const char *svg_path, const tr_options *o, const tr_text *tx,
                         int failed) {
  int status = failed ? 1 : 0;
  if (svg && !pd_write_file(svg_path, svg)) status = FAIL(tx, TM_CLI_CANNOT_WRITE_SVG, PD_MS(svg_path));
  fputs(text, stdout);
  if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
  if (svg && status != 2 && !strcmp(o->format, "md")) {
    char *link = TR_SAID(tx, TM_SVG_LINK, PD_MS(svg_path));
    printf("\n%s\n", link);
    free(link);
  }
  return status;
}

static int do_partial(const char *file, const tr_options *o, const tr_text *tx) {
  bool failed = false;
  char *err = NULL;
  char *text = tr_partial_file(file, o, &failed, &err);
  if (!text) return fail_err(tx, " --partial", err);
  puts(text);
  free(text);
  return failed ? 1 : 0;
}

static int do_merge(char **parts, size_t n, tr_options *o, const char *svg_path, const tr_text *tx) {
  if (!n) return FAIL0(tx, TM_CLI_MERGE_NEEDS_PARTS);
  if (o->gpu || o->include_last) return FAIL0(tx, TM_CLI_MERGE_OPTIONS);
  char *err = NULL, *svg = NULL;
  int failed = 0;
  if (svg_path) o->svg = &svg;
  char *text = tr_merge(parts, n, o, &failed, &err);
  if (!text) return fail_err(tx, " --merge", err);
  int status = print_summary(text, svg, svg_path, o, tx, failed);
  free(text);
  free(svg);
  return status;
}

/* Both summaries as JSON, compared; exit as for one summary (1 when files failed on either side). */
static int compare(const char *before, const char *after, const tr_options *o, const tr_text *tx) {
  int failed = 0;
  char *err = NULL;
  json_t *cmp = tr_compare_paths(before, after, o, &failed, &err);
  if (!cmp) return fail_err(tx, " --compare", err);
  if (!strcmp(o->format, "json")) {
    /* the precision of `trace --format json`, so before/after print as it prints them */
    json_dumpf(cmp, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', stdout);
  } else {
    char *md = tr_compare_md(cmp, tx);
    fputs(md, stdout);
    free(md);
  }
  json_decref(cmp);
  return failed ? 1 : 0;
}

/* The options after the subcommand; -1 to go on, else the exit status. The paths and the partials
 * are borrowed from argv (*merge: caller frees the array). */
typedef struct {
  const char *path, *cmp_before, *cmp_after, *svg_path, *partial;
  char **merge;
  size_t nmerge, capmerge;
  bool merging;
} trace_args;

static int parse(int argc, char **argv, tr_options *o, trace_args *t, const tr_text *tx) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    long n;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      trace_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--compare")) {
      if (i + 2 >= argc) return FAIL0(tx, TM_CLI_COMPARE_NEEDS_TWO);
      t->cmp_before = argv[++i];
      t->cmp_after = argv[++i];
    } else if (!strcmp(a, "--format") && i + 1 < argc) {
      o->format = argv[++i];
    } else if (!strncmp(a, "--format=", 9)) {
      o->format = a + 9;
    } else if ((!strcmp(a, "--lang") && i + 1 < argc) || !strncmp(a, "--lang=", 7)) {
      i += a[6] == '=' ? 0 : 1; /* read before the loop: the messages below are already in it */
    } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
      if (!pd_parse_long(argv[++i], &n) || n < 1 || n > 1024) return FAIL0(tx, TM_CLI_JOBS);
      o->jobs = (int)n;
    } else if (!strcmp(a, "--partial") && i + 1 < argc) {
      t->partial = argv[++i];
    } else if (!strcmp(a, "--merge")) {
      t->merging = true;
    } else if (!strcmp(a, "--svg") && i + 1 < argc) {
      t->svg_path = argv[++i];
    } else if (!strcmp(a, "--include-last-step")) {
      o->include_last = true;
    } else if (!strcmp(a, "--gpu") && i + 1 < argc) {
      o->gpu = argv[++i];
      if (!pd_device_find(o->gpu, NULL)) {
        pd_buf known = {0};
        for (size_t k = 0; k < pd_device_count(); k++) pd_buf_printf(&known, "%s%s", k ? ", " : "", pd_device_at(k)->id);
        int st = FAIL(tx, TM_CLI_UNKNOWN_DEVICE, PD_MS(o->gpu), PD_MS(known.data ? known.data : ""));
        pd_buf_free(&known);
        return st;
      }
    } else if (a[0] == '-' && a[1]) {
      FAIL(tx, TM_CLI_UNKNOWN_OPTION, PD_MS(a));
      trace_usage(stderr);
      return 2;
    } else if (t->merging) {
      *PD_PUSH(t->merge, t->nmerge, t->capmerge) = (char *)a;
    } else if (!t->path) {
      t->path = a;
    } else {
      return FAIL0(tx, TM_CLI_ONE_PATH);
    }
  }
  /* before every mode: --merge and --compare render with it too */
  if (strcmp(o->format, "md") != 0 && strcmp(o->format, "json") != 0) return FAIL0(tx, TM_CLI_FORMAT);
  return -1;
}

/* --lang's value (the last one given), else the locale's language; NULL after an error. */
static const char *lang_of(int argc, char **argv) {
  const char *lang = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--lang") && i + 1 < argc) lang = argv[++i];
    else if (!strncmp(argv[i], "--lang=", 7)) lang = argv[i] + 7;
  }
  return lang ? lang : co_default_lang();
}

/* The mode the options chose. */
static int run(trace_args *t, tr_options *o, const tr_text *tx) {
  if (t->partial || t->merging) {
    if (t->path || t->cmp_before || (t->partial && t->merging)) return FAIL0(tx, TM_CLI_STAND_ALONE);
    return t->partial ? do_partial(t->partial, o, tx) : do_merge(t->merge, t->nmerge, o, t->svg_path, tx);
  }
  if (!t->path && !t->cmp_before) {
    trace_usage(stderr);
    return 2;
  }
  if (t->cmp_before) {
    if (t->path) return FAIL(tx, TM_CLI_COMPARE_EXTRA, PD_MS(t->path));
    return compare(t->cmp_before, t->cmp_after, o, tx);
  }
  int failed = 0;
  char *err = NULL, *svg = NULL;
  if (t->svg_path) o->svg = &svg;
  char *text = tr_summarize_opts(t->path, o, &failed, &err);
  if (!text) return fail_err(tx, "", err);
  int status = print_summary(text, svg, t->svg_path, o, tx, failed);
  free(text);
  free(svg);
  return status;
}

int pd_cmd_trace(int argc, char **argv) {
  const char *lang = lang_of(argc, argv);
  tr_msgs *msgs = tr_msgs_builtin(NULL, NULL);
  tr_text tx = {msgs, tr_lang_of(lang)};
  tr_options o = {.format = "md", .lang = lang, .msgs = msgs};
  trace_args t = {0};
  int st = strcmp(lang, "en") != 0 && strcmp(lang, "zh") != 0 ? FAIL(&tx, TM_CLI_LANG, PD_MS(lang)) : parse(argc, argv, &o, &t, &tx);
  if (st < 0) st = run(&t, &o, &tx);
  free(t.merge);
  tr_msgs_free(msgs);
  return st;
}
