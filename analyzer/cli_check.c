/* Placeholder until the check command lands: it refuses clearly rather than pretending. */
#include <stdio.h>

#include "analyzer/cli.h"

int pd_cmd_check(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "perf-doctor: 'check' is not implemented yet\n");
  return 2;
}
