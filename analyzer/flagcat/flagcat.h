/* flagcat: the options of the parsers Relax's train entrypoint runs, as data.
 *
 * `python3 -m relax.entrypoints.train ARGS` reads ARGS with three argparse parsers: SGLang's
 * ServerArgs under the `--sglang-` prefix (parse_known_args), then Megatron-LM's parser extended
 * with Relax's own options (parse_args with ignore_unknown_args=True), after Relax pre-parses a
 * few mode switches. The catalog holds every option of the three at the commits Relax pins:
 * every spelling, the parser it belongs to, its action, nargs, type, choices, default, help
 * and deprecation, generated from the parsers' sources (analyzer/data/gen_flags.py writes
 * analyzer/data/flags.json; nothing here is typed by hand). A user's Relax checkout can replace
 * the Relax part at run time (fc_merge with options read from its sources).
 *
 * A catalog is immutable once loaded and may be shared by threads. Strings it returns are
 * borrowed and live as long as the catalog. */
#ifndef PD_FLAGCAT_FLAGCAT_H
#define PD_FLAGCAT_FLAGCAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/alloc.h"

typedef enum { FC_RELAX, FC_MEGATRON, FC_SGLANG, FC_PRE, FC_NPARSERS } fc_parser;

typedef enum {
  FC_STORE, FC_STORE_TRUE, FC_STORE_FALSE, FC_STORE_CONST, FC_APPEND, FC_APPEND_CONST,
  FC_COUNT_ACTION, FC_EXTEND, FC_BOOLEAN_OPTIONAL, FC_HELP, FC_VERSION, FC_ACTION_OTHER
} fc_action;

/* What argparse converts a value with. FC_T_BOOL is Python's bool(): every non-empty string,
 * "False" included, is True. FC_T_OTHER is a callable the catalog cannot run (checked by no
 * one here). */
typedef enum { FC_T_NONE, FC_T_STR, FC_T_INT, FC_T_FLOAT, FC_T_JSON, FC_T_BOOL, FC_T_PATH, FC_T_OTHER } fc_type;

/* nargs: >= 0 is an exact count; the rest are argparse's symbols. */
enum { FC_NARGS_ONE = -1 /* None */, FC_NARGS_OPT = -2 /* '?' */, FC_NARGS_ANY = -3 /* '*' */,
       FC_NARGS_SOME = -4 /* '+' */ };

/* The Relax forks an option of parser FC_RELAX / FC_PRE is defined in (bits). */
enum { FC_IN_INFRA = 1, FC_IN_STUDIO = 2, FC_IN_CHECKOUT = 4 };

/* How an option is deprecated: its help says so (it still works), a validator warns, or a
 * validator refuses it (the job fails at start). */
typedef enum { FC_DEP_NONE, FC_DEP_HELP, FC_DEP_WARNING, FC_DEP_ERROR } fc_deprecation;

/* Which of SGLang's parsers an FC_SGLANG option is in; both accept unique abbreviations. */
typedef enum { FC_SG_NONE, FC_SG_ROLLOUT, FC_SG_TEACHER } fc_sglang_parser;

/* A value a validator warns about or refuses. */
typedef struct {
  const char *value;
  const char *message;
  bool error; /* the job fails at start (else a warning) */
} fc_dep_value;

typedef struct {
  const char *const *names; /* every option string argparse accepts: "--lr", "--no-x" forms */
  size_t nnames;
  const char *dest;
  fc_parser parser;
  unsigned in;              /* FC_IN_* bits; 0 for Megatron / SGLang */
  fc_action action;
  int nargs;                /* FC_NARGS_ONE when the action takes exactly one value */
  fc_type type;
  const char *type_text;    /* the type as the source writes it ("int", "json.loads", ...) */
  const char *const *choices; /* as strings; NULL when any value is allowed */
  size_t nchoices;
  const char *default_text; /* the default as the user reads it ("1", "None", "thd"); for a
                               default computed at run time, the expression ("computed: ...") */
  bool default_computed;
  const char *help;         /* "" when the source gives none */
  const char *deprecated;   /* NULL, or how it is deprecated / removed and what replaces it */
  fc_deprecation dep;       /* FC_DEP_NONE exactly when deprecated is NULL */
  const char *replaced_by;  /* a deprecated alias's replacement as this parser spells it
                               ("--sglang-cuda-graph-bs-decode"), or NULL */
  const fc_dep_value *dep_values; /* values validators warn about or refuse */
  size_t ndep_values;
  fc_sglang_parser sglang;  /* for FC_SGLANG options */
  const char *file;         /* where it is defined in its source, and the line */
  long line;
  bool reset;               /* only changes the default of another parser's option (Relax's
                               reset_arg): fc_merge applies it, fc_find never returns it */
} fc_option;

typedef struct fc_catalog fc_catalog;

/* Loads a catalog from JSON text (the format of analyzer/data/flags.json). `origin` names the
 * text in messages. On error returns NULL and *err (caller frees) says what and where. */
fc_catalog *fc_load(const char *text, size_t len, const char *origin, char **err);
/* The same from a parsed JSON document (not consumed). */
fc_catalog *fc_from_json(const json_t *root, const char *origin, char **err);
/* The compact binary form the build embeds (flagc compiles flags.json into it; flagbin.c):
 * fc_to_binary appends it to out; fc_from_binary reads it back without parsing (strings are
 * borrowed from data, which must outlive the catalog), NULL with *err when it is not one. */
void fc_to_binary(const fc_catalog *c, pd_buf *out);
fc_catalog *fc_from_binary(const unsigned char *data, size_t len, const char *origin, char **err);
/* The catalog compiled into the binary; NULL with *err only if that data is broken. */
fc_catalog *fc_builtin(char **err);
void fc_free(fc_catalog *c);

/* A catalog with every option of `base` except those of parser `which`, which come from
 * `over` instead (a checkout's own Relax options replace the built-in ones; the pre-parsed
 * ones too when which is FC_RELAX). `over_origin` is how `fc_origin` will describe them.
 * Neither argument is consumed. */
fc_catalog *fc_merge(const fc_catalog *base, const fc_catalog *over, fc_parser which,
                     const char *over_origin);

/* Options by exact spelling ("--lr"), NULL when no parser has it. */
const fc_option *fc_find(const fc_catalog *c, const char *name);
/* The next definition of o's spelling, when the Relax forks define it differently (other
 * choices, another default): NULL when o is the last. Start from fc_find. */
const fc_option *fc_variant(const fc_catalog *c, const fc_option *o);

/* What SGLang's parsers (which accept unique abbreviations, unlike Megatron's) make of a
 * spelling no parser has: the one option it abbreviates (*n = 1), or NULL with *n the number it
 * could match (0: none; 2 and more: argparse's "ambiguous option", the job fails at start). */
const fc_option *fc_abbreviation(const fc_catalog *c, const char *name, size_t *n);

/* Whether the catalog leaves `name` out on purpose: options whose source was not read (a
 * partial SGLang, the sglang_router options), which must not be called unknown. */
bool fc_uncovered(const fc_catalog *c, const char *name);

/* A flag that is no option at all but which Relax refuses before parsing (in a fork): its
 * replacement, and the forks (FC_IN_* bits) in *in; NULL when name is not one. */
const char *fc_rejected(const fc_catalog *c, const char *name, unsigned *in);
size_t fc_count(const fc_catalog *c);
const fc_option *fc_at(const fc_catalog *c, size_t i);

/* The spelling a `--sglang-` option of SGLang that Relax removes (framework-owned, e.g.
 * `--sglang-tp-size`) and why; NULL when `name` is not one of them. */
const char *fc_dropped(const fc_catalog *c, const char *name);

/* Up to max known spellings closest to `name` (a typo's likely intent), nearest first: one
 * with `_` for `-` or a different case, then by edit distance (at most 2, or 3 for names of 20
 * characters and more). Returns how many were written to out. */
size_t fc_suggest(const fc_catalog *c, const char *name, const char **out, size_t max);

/* Where the options of parser p come from: repository and commit ("NVIDIA/Megatron-LM @
 * 0123456789ab"), or the checkout's path after fc_merge. Never NULL. */
const char *fc_origin(const fc_catalog *c, fc_parser p);
const char *fc_parser_name(fc_parser p); /* "relax", "megatron", "sglang", "pre" */

/* How many values the option takes at least and at most (max -1: no limit). */
void fc_arity(const fc_option *o, int *min, int *max);

/* Whether argparse accepts `text` as a value of option o: its type converts it and it is one
 * of the choices. Returns FC_VALUE_OK, or a failure with *why (caller frees) in argparse's
 * words ("invalid int value: 'two'", "invalid choice: 'ful' (choose from 'full',
 * 'selective')"). */
typedef enum { FC_VALUE_OK, FC_VALUE_BAD_TYPE, FC_VALUE_BAD_CHOICE } fc_value_check;
fc_value_check fc_check_value(const fc_option *o, const char *text, char **why);

/* The nearest choice to a rejected value, or NULL. */
const char *fc_nearest_choice(const fc_option *o, const char *text);

/* "int", "float", "str", "JSON", "bool (any non-empty value is True)", "switch", ... */
const char *fc_type_name(const fc_option *o);

/* The option as JSON (names, parser, source, action, values {min, max}, type, choices,
 * default, help, deprecated, file, line), as `perf-doctor flags --format json` prints it. New
 * reference. */
json_t *fc_option_json(const fc_catalog *c, const fc_option *o);

#endif
