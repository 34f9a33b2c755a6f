/* server: the language server's protocol side: lifecycle, the message queue, dispatch and the
 * request and notification handlers. The work on documents is the workspace's (workspace.h).
 *
 * One thread. Messages are read into a queue; before any analysis (and before a result is
 * published) every message already waiting is read, so a $/cancelRequest reaches the request it
 * cancels and a newer edit supersedes the analysis of an older version: superseded diagnostics
 * are never published. Diagnostics are published after each change, with the version. */
#ifndef PD_LSP_SERVER_H
#define PD_LSP_SERVER_H

#include <stddef.h>

typedef struct {
  size_t max_message_bytes; /* larger bodies are refused; 0 = 64 MiB */
} srv_options;

/* Serves LSP on in_fd / out_fd until `exit` or end of input. Returns the process exit status:
 * 0 after shutdown + exit, 1 otherwise (LSP 3.17 "exit"). Logs go to stderr. */
int srv_serve(int in_fd, int out_fd, const srv_options *opt);

/* `perf-doctor lsp [--stdio]`: serves on stdin/stdout; argv[0] is the subcommand. Returns the
 * process exit status. */
int pd_cmd_lsp(int argc, char **argv);

#endif
