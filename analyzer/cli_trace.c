/* Placeholder until the trace command lands: it refuses clearly rather than pretending. */
#include <stdio.h>

#include "analyzer/cli.h"

int pd_cmd_trace(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "perf-doctor: 'trace' is not implemented yet\n");
  return 2;
}
