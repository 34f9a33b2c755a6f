/* shell: the part of bash the script model needs, evaluated without executing anything.
 *
 * A variable store (scalars and indexed arrays) and word expansion over tree-sitter-bash nodes:
 * quotes, ${VAR}, ${VAR:-x}, ${VAR:=x}, ${VAR:+x}, ${VAR-x}, nested defaults, "${ARR[@]}" spreads,
 * $(( arithmetic )), $(seq ...), the SCRIPT_DIR idiom `$(cd "$(dirname "${BASH_SOURCE[0]}")" &&
 * pwd)`, and word splitting of unquoted expansions. Anything else (other command substitutions,
 * ${VAR:?msg} with VAR unset) yields an unresolved field that keeps its source text.
 *
 * Variables a script never assigns are treated as unset: the model reports the configuration the
 * script describes by itself, with its own defaults. */
#ifndef PD_SCRIPT_SHELL_H
#define PD_SCRIPT_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "script/script.h"

/* One argv element with where it came from. Its strings live in the env's arena (see
 * sh_intern), so a field is copied by plain assignment and lives as long as the env. */
typedef struct {
  const char *text; /* expanded text, or the source word when !resolved */
  bool resolved;
  sm_cert cert;     /* how it was known (see script.h) */
  const char *cert_var; /* the variable through which it became less than literal, or NULL */
  bool vanished;    /* placeholder for an unquoted plain ${VAR} that expanded to nothing, or
                       (with undefined_array) a spread of an array never defined */
  bool undefined_array;
  const char *unset_var; /* a variable the script never sets that expanded to nothing inside
                            this word (`${DUMP}/details` -> "/details"), NULL if none */
  int file;
  sm_range range;   /* the source word */
  const char *group; /* array the element was written in, NULL elsewhere */
  bool conditional;
  const char *note; /* attached NOTE comment text, NULL if none */
  int note_file;
  sm_range note_range;
} sh_field;

typedef struct {
  sh_field *v;
  size_t n, cap;
} sh_fields;

void sh_fields_push(sh_fields *fs, const sh_field *f);
void sh_fields_free(sh_fields *fs); /* the vector only; strings belong to the env */

typedef struct sh_env sh_env;

/* Copies s[0..n) into the env's arena; valid until sh_env_free. */
const char *sh_intern(sh_env *e, const char *s, size_t n);

/* Joins fields[at] and fields[at + 1], written with nothing between them, into one: bash reads
 * one word where tree-sitter-bash splits some (`[0]*$N+[1]*2` becomes two concatenations). A
 * join that cuts an expansion (`...$` + `N...`) leaves the word unresolved. */
void sh_fields_glue(sh_env *e, sh_fields *fs, size_t at);

/* A source file being evaluated: its text and index in the model (for ranges). */
typedef struct {
  const char *src;
  size_t len;
  int file;
  const char *path; /* for BASH_SOURCE / the SCRIPT_DIR idiom */
} sh_file;

/* The source text of a node of f (clamped to the file; *len bytes, not NUL-terminated), and a
 * node's text as a NUL-terminated name in buf (cut at cap - 1 bytes). */
const char *sh_node_src(const sh_file *f, TSNode n, size_t *len);
const char *sh_var_name(const sh_file *f, TSNode n, char *buf, size_t cap);

sh_env *sh_env_new(void);
void sh_env_free(sh_env *e);
/* An independent copy: later changes to either do not show in the other. Fields' strings are
 * shared (they never change), so a copy costs the table, not the text. Caller frees. */
sh_env *sh_env_clone(const sh_env *e);

/* Scalars, with how their value was known: below SM_CERT_BRANCH the value is unknown (e.g. from
 * an unevaluated $(...)); cert_var names the variable the uncertainty came through (NULL: this
 * one). */
void sh_var_set(sh_env *e, const char *name, const char *value, sm_cert cert,
                const char *cert_var);
void sh_var_unset(sh_env *e, const char *name);
/* Where a scalar was last assigned, and whether it is exported (for the model's variable list). */
void sh_var_mark(sh_env *e, const char *name, int file, sm_range range, bool exported);
/* Calls fn for every set scalar (in the order they were first set). */
void sh_var_foreach(const sh_env *e,
                    void (*fn)(void *ctx, const char *name, const char *value, sm_cert cert,
                               bool exported, int file, sm_range range),
                    void *ctx);
/* Returns true when set; *value (borrowed, valid until the next change) and *cert filled;
 * cert_var (may be NULL) receives the variable the uncertainty came through (borrowed). */
bool sh_var_get(sh_env *e, const char *name, const char **value, sm_cert *cert,
                const char **cert_var);

/* A scalar's value was assigned from a word in which unset_var (not set then) gave nothing:
 * words that expand the scalar carry it on (SAVE=${DIR}/x; --save ${SAVE}). Set after
 * sh_var_set, which clears it; the getter returns NULL for an unset name (borrowed). */
void sh_var_set_unset_from(sh_env *e, const char *name, const char *unset_var);
const char *sh_var_unset_from(const sh_env *e, const char *name);

/* Arrays: the returned list is owned by the env; NULL when never defined. */
sh_fields *sh_array_get(sh_env *e, const char *name);
/* The array that holds the script's own arguments ("$@"): a name no script can assign. */
#define SH_POSITIONAL "@"
/* Creates (or empties, unless append) the array and returns it for filling. */
sh_fields *sh_array_define(sh_env *e, const char *name, bool append);
/* Names of all arrays in first-definition order (borrowed). */
size_t sh_array_names(const sh_env *e, const char ***names);

/* Functions: a later definition replaces an earlier one, as in bash. `body` is a node of file
 * `file`'s tree, which must outlive its use. */
void sh_func_define(sh_env *e, const char *name, int file, TSNode body);
bool sh_func_get(sh_env *e, const char *name, int *file, TSNode *body);

/* Dependency tracking, for memoizing a statement's effect (script.c). Between begin and end,
 * every name looked up before the statement changed it is recorded with a hash of the state it
 * found, and every name the statement changes. Lookups count also for names never set. */
typedef struct {
  char *name;
  uint64_t hash;
  bool shape_only; /* only whether it is a scalar or an array mattered (NAME+=(...)) */
  bool hashed;     /* private */
} sh_dep;
typedef struct {
  char *name;
  bool append;     /* only fields appended to an array that existed, from index `from` */
  size_t from;
} sh_write;
void sh_track_begin(sh_env *e);
/* Ends tracking and hands over both lists (free each name, then the arrays). keep=false: the
 * caller drops them, so the hashes are not computed. Returns false when the statement's
 * dependencies could not all be recorded (then it must not be replayed). */
bool sh_track_end(sh_env *e, bool keep, sh_dep **reads, size_t *nreads, sh_write **writes,
                  size_t *nwrites);
/* Whether the env still holds what the dependency found. */
bool sh_dep_holds(const sh_env *e, const sh_dep *d);
/* Hash of everything the env holds for a name: scalar, marks, array fields, function. */
uint64_t sh_state_hash(const sh_env *e, const char *name);
/* Hash of everything the env holds (every name's sh_state_hash, whatever the order the names
 * came in): two envs that hold the same have the same digest. */
uint64_t sh_env_digest(const sh_env *e);
/* Hash of what an append depends on: scalar or array, and the scalar when no array. */
uint64_t sh_shape_hash(const sh_env *e, const char *name);

/* What a statement left in a written name (its scalar and array state, not its function; only
 * the appended fields for an append), copied out of the env, and put back. `map` (may be NULL)
 * rewrites each range on the way: script.c stores a statement's own ranges relative to it.
 * Caller frees with sh_saved_free. */
typedef struct sh_saved sh_saved;
typedef void (*sh_range_map)(void *ctx, int file, sm_range *r);
sh_saved *sh_save(const sh_env *e, const sh_write *w, sh_range_map map, void *ctx);
void sh_restore(sh_env *e, const sh_saved *s, sh_range_map map, void *ctx);
void sh_saved_free(sh_saved *s);

/* Expands one word-like node (word, number, string, raw_string, concatenation, expansion,
 * simple_expansion, command_substitution, arithmetic_expansion, ...) into fields appended to out.
 * `conditional` and `group` are copied into each produced field that was written here. */
void sh_expand(sh_env *e, const sh_file *f, TSNode node, const char *group, bool conditional,
               sh_fields *out);

/* Expands a node to a single string (no splitting), as on the right of NAME=. Returns a fresh
 * string (caller frees) and how it was known (below SM_CERT_BRANCH: part of it could not be
 * resolved); cert_var (may be NULL) as for fields. */
char *sh_expand_scalar(sh_env *e, const sh_file *f, TSNode node, sm_cert *cert,
                       const char **cert_var);
/* The same, and *unset_var (borrowed from the env) the first variable that was not set and
 * expanded to nothing in it, or NULL. */
char *sh_expand_scalar_unset(sh_env *e, const sh_file *f, TSNode node, sm_cert *cert,
                             const char **cert_var, const char **unset_var);

/* Evaluates an arithmetic expression node (the inside of $(( )) or (( )), a c-style for's
 * parts), assignments and increments included (they write their variable). False when its value
 * is not known; *cert is what it rests on. */
bool sh_arith_eval(sh_env *e, const sh_file *f, TSNode n, long long *out, sm_cert *cert,
                   const char **cert_var);

/* Range of a node in file f. */
sm_range sh_node_range(TSNode n);

#endif
