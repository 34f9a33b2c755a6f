/* perf-doctor: one binary, three faces (CLI audit, trace summary, language server). The entry
 * point is a layer of its own above the CLI and the server, so that neither depends on the
 * other. */
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>

#include "cli/cli.h"
#include "lsp/server.h"

static void main_usage(FILE *f) {
  fputs("usage: perf-doctor <command> [options]\n"
        "\n"
        "commands:\n"
        "  check SCRIPT|DIR...   audit launch scripts (markdown, --format json|sarif)\n"
        "  context SCRIPT        show what the analyzer understood of a script\n"
        "  trace PATH            summarise PyTorch-profiler traces (file or folder)\n"
        "  profile SCRIPT        how to profile this script's training (flags, where traces go)\n"
        "  rules                 list the rules (--format md|json, --pages DIR for their pages)\n"
        "  explain RULE          one rule: why, when it fires, fix, skip-if, sources, example\n"
        "  flags [NAME...]       the options of Relax's parsers (type, default, help, source)\n"
        "  lsp                   serve the Language Server Protocol on stdio\n"
        "  version               print the version and the commit it was built from\n"
        "\n"
        "Run `perf-doctor <command> --help` for a command's options.\n",
        f);
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Process-wide allocator policy, set once here by the process owner: large arrays (the GPU
   * rows of a GB trace) come from mmap so that their memory goes back to the system between
   * files. glibc otherwise raises its mmap threshold after the first big free and serves the
   * next file from a heap it never shrinks (two 1 GB traces in a row peaked 50 % higher). */
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
  if (argc < 2) {
    main_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "check")) return pd_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "context")) return pd_cmd_context(argc - 1, argv + 1);
  if (!strcmp(cmd, "trace")) return pd_cmd_trace(argc - 1, argv + 1);
  if (!strcmp(cmd, "profile")) return pd_cmd_profile(argc - 1, argv + 1);
  if (!strcmp(cmd, "lsp")) return pd_cmd_lsp(argc - 1, argv + 1);
  if (!strcmp(cmd, "rules")) return pd_cmd_rules(argc - 1, argv + 1);
  if (!strcmp(cmd, "explain")) return pd_cmd_explain(argc - 1, argv + 1);
  if (!strcmp(cmd, "flags")) return pd_cmd_flags(argc - 1, argv + 1);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) return pd_cmd_version();
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    main_usage(stdout);
    return 0;
  }
  fprintf(stderr, "perf-doctor: unknown command '%s'\n", cmd);
  main_usage(stderr);
  return 2;
}
