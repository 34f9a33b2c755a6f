/* perf-doctor: one binary, three faces (CLI audit, trace summary, language server). */
#include <stdio.h>
#include <string.h>

#include "analyzer/cli.h"

static void usage(FILE *f) {
  fputs("usage: perf-doctor <command> [options]\n"
        "\n"
        "commands:\n"
        "  check SCRIPT|DIR...   audit launch scripts (markdown, --format json|sarif)\n"
        "  context SCRIPT        show what the analyzer understood of a script\n"
        "  trace PATH            summarise PyTorch-profiler traces (file or folder)\n"
        "  lsp                   serve the Language Server Protocol on stdio\n"
        "  version               print the version\n"
        "\n"
        "Run `perf-doctor <command> --help` for a command's options.\n",
        f);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "check")) return pd_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "context")) return pd_cmd_context(argc - 1, argv + 1);
  if (!strcmp(cmd, "trace")) return pd_cmd_trace(argc - 1, argv + 1);
  if (!strcmp(cmd, "lsp")) return pd_cmd_lsp(argc - 1, argv + 1);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("perf-doctor %s\n", PD_VERSION);
    return 0;
  }
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout);
    return 0;
  }
  fprintf(stderr, "perf-doctor: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
