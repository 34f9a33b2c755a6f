/* script: a Relax launch script -> the script model.
 *
 * The model is what argparse would see at the end of `python3 -m relax.entrypoints.train ...`:
 * every flag occurrence in order, with its values and the exact source range of each, in the
 * file it came from (the script, or a model config it sources). It is built from the
 * tree-sitter-bash syntax tree without executing anything. Bad input never fails the build:
 * what cannot be understood becomes an sm_condition, and every flag that can be recovered is.
 *
 * Positions: lines and columns are 0-based here, columns in bytes of UTF-8 text; output layers
 * convert (JSON and reports use 1-based, LSP uses the negotiated encoding). */
#ifndef PD_SCRIPT_SCRIPT_H
#define PD_SCRIPT_SCRIPT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "base/hash.h"
#include "flagcat/flagcat.h"

typedef struct {
  uint32_t start_byte, end_byte;
  uint32_t start_line, start_col; /* 0-based, column in bytes */
  uint32_t end_line, end_col;
} sm_range;

/* Reads a file the script sources (the model config, the entrypoint). The LSP layer answers from
 * open buffers, the CLI from disk. Returns a malloc'd NUL-terminated copy and its length, or
 * NULL with errno set. */
typedef struct {
  char *(*read)(void *ctx, const char *path, size_t *len);
  void *ctx;
} sm_reader;

/* Sourced files (entrypoint, model configs) read and parsed once and reused by later builds: a
 * CLI run over many scripts sources the same few files each time. Only for files that do not
 * change while it lives (not the LSP server). Not thread-safe. */
typedef struct sm_cache sm_cache;
sm_cache *sm_cache_new(void);
void sm_cache_free(sm_cache *c);

/* Resuming a build: the language server's keystroke path. A build can leave a checkpoint, its
 * state at the start of one top-level statement of the script (the one at `focus`, where the
 * user is typing). A later build starts there instead of at the top when the text and syntax
 * tree before that statement are unchanged, the options are the same, and every file the walk
 * read (or looked for) before it reads the same again; otherwise it builds from the top. Either
 * way the model is the one a fresh build gives. Statements after the edit whose text is
 * unchanged and which find the same variables again are replayed from the last build instead of
 * walked. Checkpoints are taken only of scripts without syntax errors, and not with an
 * sm_cache. */
typedef struct sm_checkpoint sm_checkpoint;
void sm_checkpoint_free(sm_checkpoint *c);

typedef struct {
  sm_checkpoint *checkpoint; /* in/out, owned by the caller: NULL, or the one the last build left;
                                a build may free it and leave another (or none) */
  uint32_t unchanged_before; /* in: text and tree before this byte are as in the checkpoint's
                                build (0 = nothing known; UINT32_MAX = the same text) */
  uint32_t focus;            /* in: byte offset of the last edit */
  bool resumed;              /* out: this build started at the checkpoint */
  size_t replayed;           /* out: statements after the edit replayed instead of walked */
  bool verify;               /* in: also walk afresh and compare the walk states (the invariant
                                that everything a statement changes lives in the walk state, so
                                that a checkpoint or a replayed statement leaves what a walk does);
                                always on in builds without NDEBUG, where a mismatch aborts */
  bool verified_same;        /* out (with verify): the resumed walk state equals the fresh one */
} sm_resume;

typedef struct {
  const char *model_config_dir; /* setting; NULL = discover (entrypoint, then sibling scripts/models) */
  const char *gpu;              /* GPU type the user named (CLI / setting); NULL = script comment or H20 */
  const sm_reader *reader;      /* NULL = read from disk */
  size_t max_file_bytes;        /* refuse larger files; 0 = PD_MAX_FILE_BYTES */
  const char *workspace_root;   /* `source` never follows files outside it; NULL = no limit */
  sm_cache *cache;              /* NULL = read and parse every sourced file */
  sm_resume *resume;            /* NULL = build from the top, leave no checkpoint */
  const char *const *env;       /* "NAME=VALUE": the environment the script is launched with */
  size_t nenv;
  const char *const *args;      /* the script's own arguments ("$@", "$1", ...) */
  size_t nargs;
  const fc_catalog *catalog;    /* the parsers' options: argv is read as argparse reads it and
                                   checked against them (borrowed: must outlive the model);
                                   NULL = no argparse checks, every word after a flag is a value */
} sm_options;

typedef struct {
  char *path;  /* path as resolved (absolute when the script path was) */
  char *text;  /* owned copy of its text */
  size_t len;
  uint32_t *lines; /* byte offset where each line starts (lines[0] = 0) */
  size_t nlines;
  int parent;  /* index of the file that sourced it; -1 for the script itself */
  sm_range source_range; /* the `source` command in the parent */
  char *job_path; /* the absolute path the script wrote, when it names the job's copy of this
                     checkout and `path` is this checkout's file read in its place; else NULL */
} sm_file;

/* How a value was known, from least to most certain. A finding is only as sure as the least
 * certain value it rests on (the audit caps its severity by it). */
typedef enum {
  SM_CERT_UNRESOLVED = 0, /* an expansion that could not be resolved */
  SM_CERT_COMMAND = 1,    /* the output of a command substitution that was not evaluated */
  SM_CERT_BRANCH = 2,     /* set inside a branch whose condition is not known */
  SM_CERT_DEFAULT = 3,    /* a default the script sets (${X:-d}): the environment may override it */
  SM_CERT_LITERAL = 4     /* written in the script (or computed from what is) */
} sm_cert;

/* "unresolved" | "command" | "branch" | "default" | "literal" */
const char *sm_cert_name(sm_cert c);
/* The value itself is known (it may still be conditional or a default). */
static inline bool sm_cert_known(sm_cert c) { return c >= SM_CERT_BRANCH; }

typedef struct {
  char *text;    /* what argparse receives: quotes removed, expansions substituted */
  bool resolved; /* false: an expansion could not be resolved; text then holds the source word */
  sm_cert cert;  /* how it was known */
  char *cert_var; /* the variable through which it became less than literal, or NULL */
  char *unset_var; /* a variable never set that expanded to nothing inside the word, or NULL */
  int file;
  sm_range range;  /* the source word */
} sm_value;

/* What argparse makes of one flag occurrence (with a catalog; SM_ARGP_UNCHECKED without). */
typedef enum {
  SM_ARGP_UNCHECKED = 0, /* no catalog, or a value that could not be resolved (not checked) */
  SM_ARGP_OK,
  SM_ARGP_UNKNOWN,       /* no parser has it: ignored without a message, with its words */
  SM_ARGP_DROPPED,       /* a --sglang- option Relax removes: ignored */
  SM_ARGP_LEFTOVER,      /* more words than it takes: argparse leaves the rest, Relax ignores them */
  SM_ARGP_MISSING,       /* fewer values than it takes: argparse exits at start */
  SM_ARGP_BAD_VALUE,     /* a value its type or choices refuse: argparse exits at start */
  SM_ARGP_EXPLICIT       /* `--switch=value`: argparse exits ("ignored explicit argument") */
} sm_argp;

/* argparse exits at start because of it (the job never starts). */
static inline bool sm_argp_fails(sm_argp a) {
  return a == SM_ARGP_MISSING || a == SM_ARGP_BAD_VALUE || a == SM_ARGP_EXPLICIT;
}
/* Relax drops it without a message. */
static inline bool sm_argp_ignored(sm_argp a) { return a == SM_ARGP_UNKNOWN || a == SM_ARGP_DROPPED; }
/* "ok", "unknown", ... as the JSON model writes it */
const char *sm_argp_name(sm_argp a);

typedef struct {
  char *name;            /* "--tensor-model-parallel-size" (as written; `--x=v` split) */
  sm_value *values;
  size_t nvalues;
  int file;              /* index into sm_model.files */
  sm_range range;        /* the flag word */
  sm_range full;         /* flag and its values */
  char *group;           /* array it came from ("PERF_ARGS"), NULL on the launch line */
  bool conditional;      /* set only in an if/case branch or through ${X:+...} */
  sm_cert cert;          /* the least certain of its values (BRANCH at most when conditional) */
  const char *cert_var;  /* the variable that made it so (borrowed from a value), or NULL */
  bool overridden;       /* a later occurrence wins (argparse: last one wins) */
  size_t final_index;    /* index of the winning occurrence (itself when not overridden) */
  char *note;            /* text of an attached `# NOTE(...)` comment, or NULL */
  int note_file;
  sm_range note_range;
  json_t *json;          /* parsed JSON of a single '{...}' / '[...]' value, or NULL; owned */
  bool inline_value;     /* written `--flag=value` */
  bool value_vanished;   /* its value expanded to nothing (condition value-vanished) */
  const fc_option *opt;  /* its catalog entry; NULL when no parser has it or without catalog */
  sm_argp argp;          /* what argparse makes of this occurrence */
  const char *intended;  /* SM_ARGP_UNKNOWN: the nearest known spelling (the catalog's), or NULL */
  size_t nused;          /* values argparse gives it (the rest, if any, are left over) */
} sm_flag;

typedef enum { SM_INFO, SM_WARN, SM_ERROR } sm_level;

/* A condition the model reports instead of failing: a missing source, a syntax error that hid
 * flags, no train command, a spread of an undefined array, a value that swallowed a flag. */
typedef struct {
  sm_level level;
  char *code;    /* stable short id: "syntax", "source-missing", "no-train-line", ... */
  char *message;
  char *subject; /* what it is about, or NULL: the variable that vanished, the array never
                    defined, the file not read, the token a syntax error misses */
  char *flag;    /* the flag it affects, or NULL */
  bool missing;  /* syntax: the parser had to supply a token (a closing quote, `fi`, `)`) that
                    bash would miss too; otherwise it could not parse the text at all */
  char *suggest; /* what the text most likely meant (a known flag, a listed choice), or NULL */
  sm_cert cert;  /* how surely it holds (a condition about a flag set in a branch: BRANCH) */
  long flag_index; /* the flag occurrence it is about (index into flags), or -1 */
  int file;
  sm_range range;
  /* syntax: what bash itself makes of the file (script/bashcheck.h). bash names `range`; a
   * construct left open at the end of the file is `opener` at `opened`, closed by `closer`. */
  const char *bash;      /* "eof-quote" | "eof" | "token" (static), or NULL: bash accepts the
                            file, only this parser could not read it */
  char *opener, *closer; /* or NULL */
  sm_range opened;
  /* train-line-extra, train-line-skipped (in a branch the walk did not take): the words of that
     train command after its entrypoint, as the shell passes them (arrays spread); NULL where a
     word's value is not known */
  char **words;
  size_t nwords;
} sm_condition;

/* What the script states about the job besides its flags: the model config it sources, what its
 * file name says, and the GPU it names. Everything derived from these and the flags (mode,
 * parallel layout, GPU totals) is worked out once, by the audit's facts. */
typedef struct {
  char *model;           /* sourced model config's base name without .sh ("qwen3-4B"), or NULL */
  char *gpu;             /* the GPU named by the options, else by a `# perf-doctor: gpu=` comment,
                            as written; NULL when nobody names one */
  /* From the file name run-<model>-<size>-<N>x<dev>(-suffix)*.sh; -1 / NULL when absent. */
  long name_gpus;
  char *name_device;     /* "gpu" | "npu" | "klx" | "P800" | ... */
  char *name_model;      /* "qwen3" */
  char *name_size;       /* "4B", "35B-A3B" */
  char *name_suffixes;   /* "async-image" */
  const char *name_mode;     /* mode the name hints at: "fully-async" | "colocate" | "hybrid" | NULL */
  const char *name_modality; /* "mm" | "video" | NULL */
} sm_context;

typedef struct {
  char *name;
  int file;
  sm_range range;        /* the whole NAME=( ... ) */
  bool append;           /* NAME+=( ... ) */
  bool conditional;
} sm_array;

/* Where the script names a variable, an array or a function, for navigation (definition,
 * references, rename, outline). Recorded as the walk goes, so a use knows the definitions that
 * reach it: the last one that certainly ran before it, and every conditional one after that
 * (`X=1; if ...; then X=2; fi; echo $X` reaches both). An array's `+=` appends are definitions
 * too; a use of the array reaches its `NAME=( ... )` and every append since. */
typedef enum { SM_SYM_VAR, SM_SYM_ARRAY, SM_SYM_FUNC } sm_sym_kind;
typedef enum {
  SM_REF_DEF,     /* NAME=..., NAME=( ... ), for NAME in, printf -v NAME, f() { ... } */
  SM_REF_APPEND,  /* NAME+=... / NAME+=( ... ) */
  SM_REF_USE,     /* $NAME, ${NAME...}, "${NAME[@]}", NAME in $(( )), a call of a function */
  SM_REF_MENTION  /* export NAME, unset NAME, local NAME: names it without setting or reading */
} sm_ref_role;

typedef struct {
  const char *name;      /* borrowed from the model */
  sm_sym_kind kind;      /* SM_SYM_VAR for a use that may be either (`$X` of an array is X[0]) */
  sm_ref_role role;
  bool conditional;      /* a definition in a branch or loop that may not run */
  int file;
  sm_range range;        /* the name as written */
  sm_range whole;        /* definitions: the whole statement; uses: the expansion */
  size_t reach, nreach;  /* uses: sm_model.reach[reach .. reach + nreach) are the indices into
                            refs of the definitions that reach it (none: set outside the script) */
} sm_ref;

/* A scalar variable's final value after the whole script (and what it sources) ran. */
typedef struct {
  char *name;
  char *value;           /* "" when unknown */
  bool known;            /* false: set from something we cannot evaluate ($(...), read) */
  sm_cert cert;          /* how its value was known */
  bool exported;
  int file;              /* where it was last assigned; -1 for a ${X:=d} side effect */
  sm_range range;
} sm_var;

typedef struct {
  sm_file *files;        /* files[0] is the script */
  size_t nfiles;
  sm_flag *flags;        /* every occurrence, argparse order */
  size_t nflags;
  sm_array *arrays;      /* every array definition, in source order */
  size_t narrays;
  sm_condition *conds;
  size_t nconds;
  sm_var *vars;          /* every scalar set at the end, sorted by name */
  size_t nvars;
  sm_ref *refs;          /* every name a statement that ran defines or reads, sorted by file
                            and position, each place once (a loop body's first pass counts) */
  size_t nrefs;
  size_t *reach;         /* see sm_ref.reach */
  bool train_line_found; /* false: every *_ARGS array counted as passed */
  bool launch_script;    /* a Relax launch script or a fragment of one: it has the train command
                            or an *_ARGS array, or (when bash cannot parse it, so its structure is
                            not seen) its text names either. Otherwise nothing is said of it. */
  int train_file;
  sm_range train_range;  /* the train command (whole ray job submit ... pipeline element) */
  int source_file;       /* the `source <model config>` command: file index, -1 if none */
  sm_range source_range;
  sm_context ctx;
  const fc_catalog *catalog; /* the options argv was checked against (borrowed), or NULL */
  pd_map flag_index;     /* private: flag name -> index of its winning occurrence */
  pd_map broken;         /* private: a spelling -> the occurrence that keeps it from being set as
                            written (sm_flag_broken) */
  char *ref_names;       /* private: the names refs point into */
  void *refs_pending;    /* private: the walk's refs until sm_refs_ready sorts them */
} sm_model;

/* Builds the model of the script at `path` whose text is text[0..len) (copied). `tree` may be an
 * up-to-date syntax tree of exactly that text (the LSP server keeps one incrementally); NULL
 * parses afresh. Never returns NULL. Caller frees with sm_model_free. */
sm_model *sm_build(const char *path, const char *text, size_t len, const TSTree *tree,
                   const sm_options *opt);
void sm_model_free(sm_model *m);

/* A parser set to bash; NULL if the runtime rejects the grammar's ABI. Caller deletes. */
TSParser *sm_parser_new(void);

/* Lookups on the final (winning) occurrence. */
const sm_flag *sm_flag_get(const sm_model *m, const char *name);
/* Text of the first value; "" for a switch given without value; NULL when the flag is absent. */
const char *sm_flag_str(const sm_model *m, const char *name);
bool sm_flag_long(const sm_model *m, const char *name, long *out);
bool sm_flag_double(const sm_model *m, const char *name, double *out);
/* True when the switch is on as argparse sets it: present and not negated by a later
 * --no-<name>; a store_true switch given a word is still on (argparse leaves the word over); a
 * type=bool option is on for any non-empty value ("False" included). Without a catalog entry, a
 * value "false" / "False" / "0" reads as off. */
bool sm_flag_on(const sm_model *m, const char *name);
/* The occurrence that keeps `name` from being set as written: an unknown flag meant to be it
 * (when `name` itself is absent), or `name`'s own occurrence that argparse refuses. NULL when
 * there is none. Facts resting on `name` are then unknown: the job never starts, or `name` keeps
 * a default the script did not choose. */
const sm_flag *sm_flag_broken(const sm_model *m, const char *name);

/* The reference whose name holds byte `at` of file `file` (or ends at it), or NULL. */
const sm_ref *sm_ref_at(const sm_model *m, int file, uint32_t at);
/* refs, nrefs and reach are made on first use: call this before reading them (sm_ref_at and
 * sm_refs_to_json do). */
void sm_refs_ready(const sm_model *m);
/* The references as JSON (tests compare incremental and fresh builds with it). New reference. */
json_t *sm_refs_to_json(const sm_model *m);

/* The final value of a scalar the script sets (assignment, export, ${X:=d}), or NULL. */
const sm_var *sm_var_get(const sm_model *m, const char *name);

/* 1-based column in characters (Unicode code points) of a position given as a byte offset and its
 * 0-based byte column, as editors and reports show it. */
long sm_char_col(const sm_model *m, int file, uint32_t byte, uint32_t byte_col);

/* Convert a byte offset within file `file` to a range (for callers that compute offsets). */
sm_range sm_range_at(const sm_model *m, int file, uint32_t start_byte, uint32_t end_byte);

/* What the model holds as JSON (files, flags, conditions, variables, what the file name says);
 * `perf-doctor context` adds the derived context to it. New reference. */
json_t *sm_to_json(const sm_model *m);
/* The flags, sourced files and conditions as text lines (the text format's body); caller
 * frees. */
char *sm_to_text(const sm_model *m);
/* Path of file `file` relative to the script's directory (stable across checkouts); caller
 * frees. */
char *sm_rel_path(const sm_model *m, int file);

#endif
