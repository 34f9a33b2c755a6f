/* options: the command-line options `check` and `context` share, and how they combine with a
 * project's `.perf-doctor.json` (audit/settings.h): defaults, then the config file that governs the
 * script (found by walking up from it, or --config FILE; none with --no-config), then what the
 * command line says. A bad value is an error that names itself and the values allowed. */
#ifndef PD_CLI_OPTIONS_H
#define PD_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "audit/messages.h"
#include "audit/settings.h"
#include "pysrc/pysrc.h"

typedef struct {
  const char *format;           /* NULL = the subcommand's default */
  const char *lang, *gpu, *model_config_dir, *rules_file, *fail_on, *config, *base_dir;
  const char *trace; /* check --trace: a trace file or folder whose measures become evidence */
  const char *relax_src; /* --relax-src DIR: the Relax checkout whose own options are checked */
  bool no_config;
  const char **env;             /* --env NAME=VALUE, in order */
  size_t nenv, env_cap;
  const char **args;            /* after `--`: the script's own arguments */
  size_t nargs;
  const char **inputs;          /* scripts and directories */
  size_t ninputs, inputs_cap;
  au_override *overrides;       /* --disable R-X[,R-Y] (-1) and --severity R-X=info */
  const char *msg_lang;         /* what errors are said in: --lang's value, else the locale's */
  size_t noverrides, overrides_cap;
} co_opts;

/* Parses argv (argv[0] = the subcommand) into *o; strings are borrowed from argv except the
 * overrides' rule ids (owned). formats: the allowed --format values, NULL-terminated. Returns -1
 * to go on, 0 after printing `usage` for --help, 2 after an error message on stderr. */
int co_parse(const char *cmd, const char *usage, const char *const *formats, int argc, char **argv,
             co_opts *o);
void co_free(co_opts *o);

/* The settings for one script (see above), into *s (initialised here; caller frees). Returns 0,
 * or 2 after printing why the config file or a value is unusable. */
int co_settings(const char *cmd, const co_opts *o, const char *script, au_settings *s);

/* The au_config for a script's settings and the command line's environment and arguments;
 * pointers borrow from s and o. */
au_config co_config(const co_opts *o, const au_settings *s);

/* The model of one script read from disk (for `context` and `profile`); NULL after printing
 * "perf-doctor CMD: SCRIPT: why" when it cannot be read. Caller frees with sm_model_free. */
sm_model *co_read_model(const char *cmd, const char *script, const sm_options *opt);

/* The flag catalog for a script (ps_catalog_for over `builtin`); a checkout that cannot be read
 * is reported on stderr ("perf-doctor CMD: ...") once. Borrowed from cc or builtin. */
const fc_catalog *co_catalog(ps_catalogs *cc, const fc_catalog *builtin, const char *cmd,
                             const char *relax_src, const char *script);

/* en, or zh when the locale says Chinese. */
const char *co_default_lang(void);
/* --lang's value in argv (the last one, before any `--`) when it is en or zh, else the locale's:
 * the language of the errors a command says before (or instead of) parsing its options. */
const char *co_lang_of(int argc, char **argv);

/* Says message id (audit/messages.h; args as its entry names them) on stderr as
 * "perf-doctor CMD: ..." in lang. Returns 2, the usage-error status. */
int co_fail(const char *cmd, const char *lang, au_msg_id id, const ax_value *args);
/* co_fail with the one string argument id takes. */
int co_fail1(const char *cmd, const char *lang, au_msg_id id, const char *arg);
/* "unknown <what> 'v' (a, b, c)": message id with v and the allowed values (NULL-terminated). */
int co_bad_value(const char *cmd, const char *lang, au_msg_id id, const char *v, const char *const *allowed);

#endif
