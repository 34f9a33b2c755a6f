/* Placeholder until the context command lands: it refuses clearly rather than pretending. */
#include <stdio.h>

#include "analyzer/cli.h"

int pd_cmd_context(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "perf-doctor: 'context' is not implemented yet\n");
  return 2;
}
