/* Placeholder until the lsp command lands: it refuses clearly rather than pretending. */
#include <stdio.h>

#include "analyzer/cli.h"

int pd_cmd_lsp(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "perf-doctor: 'lsp' is not implemented yet\n");
  return 2;
}
