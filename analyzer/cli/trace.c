/* `perf-doctor trace PATH [--format md|json] [--jobs N] [--include-last-step] [--gpu NAME]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/compare.h"
#include "trace/trace.h"
#include "base/device.h"
#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"

static void trace_usage(FILE *f) {
  fputs("usage: perf-doctor trace PATH [--format md|json] [--jobs N] [--include-last-step] [--gpu NAME]\n"
        "       perf-doctor trace --compare BEFORE AFTER [same options]\n"
        "       perf-doctor trace --partial FILE [--include-last-step] [--gpu NAME] > part.json\n"
        "       perf-doctor trace --merge PART.json... [--format md|json] [--svg FILE]\n"
        "\n"
        "Summarises PyTorch-profiler (Kineto) traces: one .pt.trace.json(.gz) file or a folder\n"
        "of per-rank files (searched recursively), read in parallel.\n"
        "  --format md|json      output format (default md)\n"
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

static bool write_svg(const char *path, const char *svg) {
  bool ok = pd_write_file(path, svg);
  if (!ok) fprintf(stderr, "perf-doctor trace: --svg %s: cannot write\n", path);
  return ok;
}

/* Prints a summary (and writes its SVG, linked from the markdown); the exit status. */
static int print_summary(const char *text, const char *svg, const char *svg_path, const char *format, int failed) {
  int status = failed ? 1 : 0;
  if (svg && !write_svg(svg_path, svg)) status = 2;
  fputs(text, stdout);
  if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
  if (svg && status != 2 && !strcmp(format, "md"))
    printf("\n![per-step breakdown, memory and cross-rank spread](%s)\n", svg_path);
  return status;
}

static int usage_error(const char *why) {
  fprintf(stderr, "perf-doctor trace: %s\n", why);
  return 2;
}

static int do_partial(const char *file, const tr_options *o) {
  bool failed = false;
  char *err = NULL;
  char *text = tr_partial_file(file, o, &failed, &err);
  if (!text) {
    fprintf(stderr, "perf-doctor trace --partial: %s\n", err);
    free(err);
    return 2;
  }
  puts(text);
  free(text);
  return failed ? 1 : 0;
}

static int do_merge(char **parts, size_t n, tr_options *o, const char *svg_path) {
  if (!n) return usage_error("--merge needs the partials (files made by --partial)");
  if (o->gpu || o->include_last) return usage_error("--merge takes --gpu and --include-last-step from the partials");
  char *err = NULL, *svg = NULL;
  int failed = 0;
  if (svg_path) o->svg = &svg;
  char *text = tr_merge(parts, n, o, &failed, &err);
  if (!text) {
    fprintf(stderr, "perf-doctor trace --merge: %s\n", err ? err : "failed");
    free(err);
    return 2;
  }
  int status = print_summary(text, svg, svg_path, o->format, failed);
  free(text);
  free(svg);
  return status;
}

/* Both summaries as JSON, compared; exit as for one summary (1 when files failed on either side). */
static int compare(const char *before, const char *after, const tr_options *o) {
  int failed = 0;
  char *err = NULL;
  json_t *cmp = tr_compare_paths(before, after, o, &failed, &err);
  if (!cmp) {
    fprintf(stderr, "perf-doctor trace --compare: %s\n", err);
    free(err);
    return 2;
  }
  if (!strcmp(o->format, "json")) {
    /* the precision of `trace --format json`, so before/after print as it prints them */
    json_dumpf(cmp, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', stdout);
  } else {
    char *md = tr_compare_md(cmp);
    fputs(md, stdout);
    free(md);
  }
  json_decref(cmp);
  return failed ? 1 : 0;
}

int pd_cmd_trace(int argc, char **argv) {
  tr_options o = {"md", 0, false, NULL, NULL};
  const char *path = NULL, *cmp_before = NULL, *cmp_after = NULL, *svg_path = NULL, *partial = NULL;
  char **merge = NULL;
  size_t nmerge = 0, capmerge = 0;
  bool merging = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      trace_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--compare")) {
      if (i + 2 >= argc) return usage_error("--compare needs BEFORE and AFTER");
      cmp_before = argv[++i];
      cmp_after = argv[++i];
    } else if (!strcmp(a, "--format") && i + 1 < argc) {
      o.format = argv[++i];
    } else if (!strncmp(a, "--format=", 9)) {
      o.format = a + 9;
    } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
      long n;
      if (!pd_parse_long(argv[++i], &n) || n < 1 || n > 1024) {
        fprintf(stderr, "perf-doctor trace: --jobs needs a number from 1 to 1024\n");
        return 2;
      }
      o.jobs = (int)n;
    } else if (!strcmp(a, "--partial") && i + 1 < argc) {
      partial = argv[++i];
    } else if (!strcmp(a, "--merge")) {
      merging = true;
    } else if (!strcmp(a, "--svg") && i + 1 < argc) {
      svg_path = argv[++i];
    } else if (!strcmp(a, "--include-last-step")) {
      o.include_last = true;
    } else if (!strcmp(a, "--gpu") && i + 1 < argc) {
      o.gpu = argv[++i];
      if (!pd_device_find(o.gpu, NULL)) {
        fprintf(stderr, "perf-doctor trace: unknown device '%s' (known:", o.gpu);
        for (size_t k = 0; k < pd_device_count(); k++) fprintf(stderr, "%s %s", k ? "," : "", pd_device_at(k)->id);
        fputs(")\n", stderr);
        return 2;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "perf-doctor trace: unknown option '%s'\n", a);
      trace_usage(stderr);
      return 2;
    } else if (merging) {
      *PD_PUSH(merge, nmerge, capmerge) = (char *)a;
    } else if (!path) {
      path = a;
    } else {
      fprintf(stderr, "perf-doctor trace: only one PATH is accepted\n");
      return 2;
    }
  }
  /* before every mode: --merge and --compare render with it too */
  if (strcmp(o.format, "md") != 0 && strcmp(o.format, "json") != 0) {
    free(merge);
    return usage_error("--format must be md or json");
  }
  if (partial || merging) {
    int st = (path || cmp_before || (partial && merging)) ? usage_error("--partial and --merge stand alone")
             : partial ? do_partial(partial, &o) : do_merge(merge, nmerge, &o, svg_path);
    free(merge);
    return st;
  }
  if (!path && !cmp_before) {
    trace_usage(stderr);
    return 2;
  }
  if (cmp_before) {
    if (path) {
      fprintf(stderr, "perf-doctor trace: --compare takes BEFORE and AFTER, not also '%s'\n", path);
      return 2;
    }
    return compare(cmp_before, cmp_after, &o);
  }
  int failed = 0;
  char *err = NULL, *svg = NULL;
  if (svg_path) o.svg = &svg;
  char *text = tr_summarize_opts(path, &o, &failed, &err);
  if (!text) {
    fprintf(stderr, "perf-doctor trace: %s\n", err ? err : "failed");
    free(err);
    return 2;
  }
  int status = print_summary(text, svg, svg_path, o.format, failed);
  free(text);
  free(svg);
  return status;
}
