/* `perf-doctor trace PATH [--format md|json] [--jobs N] [--include-last-step] [--gpu NAME]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/trace.h"
#include "base/device.h"
#include "base/str.h"

static void trace_usage(FILE *f) {
  fputs("usage: perf-doctor trace PATH [--format md|json] [--jobs N] [--include-last-step] [--gpu NAME]\n"
        "\n"
        "Summarises PyTorch-profiler (Kineto) traces: one .pt.trace.json(.gz) file or a folder\n"
        "of per-rank files (searched recursively), read in parallel.\n"
        "  --format md|json      output format (default md)\n"
        "  --jobs N              worker threads (default: one per core)\n"
        "  --include-last-step   keep the last ProfilerStep in the HTA figures\n"
        "  --gpu NAME            judge MFU and link bandwidth against this device (default: the\n"
        "                        device the trace's deviceProperties names)\n"
        "Exit status: 0 all files summarised, 1 some files failed, 2 usage error or nothing readable.\n",
        f);
}

int pd_cmd_trace(int argc, char **argv) {
  tr_options o = {"md", 0, false, NULL};
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      trace_usage(stdout);
      return 0;
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
    } else if (!path) {
      path = a;
    } else {
      fprintf(stderr, "perf-doctor trace: only one PATH is accepted\n");
      return 2;
    }
  }
  if (!path) {
    trace_usage(stderr);
    return 2;
  }
  if (strcmp(o.format, "md") != 0 && strcmp(o.format, "json") != 0) {
    fprintf(stderr, "perf-doctor trace: --format must be md or json\n");
    return 2;
  }
  int failed = 0;
  char *err = NULL;
  char *text = tr_summarize_opts(path, &o, &failed, &err);
  if (!text) {
    fprintf(stderr, "perf-doctor trace: %s\n", err ? err : "failed");
    free(err);
    return 2;
  }
  fputs(text, stdout);
  if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
  free(text);
  return failed ? 1 : 0;
}
