/* cli: the command-line subcommands of the perf-doctor binary (`lsp` is the language server's,
 * lsp/server.h). Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit status. */
#ifndef PD_CLI_CLI_H
#define PD_CLI_CLI_H

int pd_cmd_context(int argc, char **argv);
int pd_cmd_check(int argc, char **argv);
int pd_cmd_trace(int argc, char **argv);
int pd_cmd_profile(int argc, char **argv);
int pd_cmd_rules(int argc, char **argv);
int pd_cmd_explain(int argc, char **argv);
int pd_cmd_flags(int argc, char **argv);
/* `perf-doctor version`: the version and the commit it was built from. */
int pd_cmd_version(void);

#endif
