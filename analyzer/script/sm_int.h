/* sm_int: the script model's private parts, shared by its files and by nothing else:
 *   build.c    sm_build and the model's lifetime
 *   walk.c     the statement walker (assignments, commands, arrays, NOTEs, control flow)
 *   source.c   following `source`: reading, the sourced-file cache, the filesystem log
 *   flags.c    the train command's argv as flags; flag lookups
 *   context.c  what the script states about itself (file name, model config, GPU comment)
 *   resume.c   checkpoints and statement memos (the editor's keystroke path)
 *   out.c      the model as JSON and text */
#ifndef PD_SCRIPT_SM_INT_H
#define PD_SCRIPT_SM_INT_H

#include "script/script.h"
#include "script/shell.h"

#define SM_MAX_SOURCE_DEPTH 8
#define SM_MAX_SOURCED_FILES 64 /* a file sourcing another ten times, eight deep, is 10^8 reads */
#define SM_MAX_CALL_DEPTH 8
#define SM_MAX_LOOP_ITER 4096
#define SM_MAX_SYNTAX_CONDS 20

/* A syntax tree shared by a build and the checkpoints taken from it: function bodies are nodes,
 * which point at their TSTree object, so the object itself (not a ts_tree_copy) must live on. */
typedef struct {
  TSTree *tree;
  size_t refs;
} sm_tree_ref;

sm_tree_ref *sm_tree_ref_new(TSTree *t /* consumed */);
sm_tree_ref *sm_tree_ref_take(sm_tree_ref *r); /* one more reference; NULL stays NULL */
void sm_tree_ref_drop(sm_tree_ref *r);

/* A filesystem answer the walk depended on, replayed before resuming from a checkpoint. */
typedef enum { SM_FSQ_READ, SM_FSQ_UNDER_ROOT, SM_FSQ_DISCOVER } sm_fsq_kind;

typedef struct {
  sm_fsq_kind kind;
  char *path;    /* READ / UNDER_ROOT: the path asked about; DISCOVER: the answer ("" = none) */
  bool ok;
  int err;       /* READ: errno when !ok */
  size_t len;    /* READ: length and hash of the text read */
  uint64_t hash;
} sm_fsq;

/* The walk's state: everything a statement can change, so everything a checkpoint saves and
 * restores, whole. The model's files, arrays and conditions live here while the walk runs and
 * move into the model at the end. files[0] is the script itself; its text belongs to the build. */
typedef struct {
  sm_file *files;
  size_t nfiles, files_cap;
  sm_tree_ref **trees;  /* per file */
  size_t trees_cap;
  sm_tree_ref **pinned; /* earlier trees of the script that function bodies still point into */
  size_t npinned, pinned_cap;
  sm_array *arrays;     /* every array definition, in source order */
  size_t narrays, arrays_cap;
  sm_condition *conds;
  size_t nconds, conds_cap;
  sm_ref *refs;         /* definitions and uses in walk order (names in the env's arena; reach
                           is filled when the model takes them, refs.c) */
  size_t nrefs, refs_cap;
  char *model;          /* the model config sourced, as sm_context.model */
  int source_file;
  sm_range source_range;
  bool train_found;
  int train_file;
  sm_range train_range;
  sh_fields train;      /* argv after the entrypoint */
  sh_env *env;
  size_t loop_budget, syntax_conds;
  bool defined_model_args; /* set when an assignment to MODEL_ARGS happens */
  sm_fsq *fslog;        /* every filesystem answer so far, in order */
  size_t nfslog, fslog_cap;
} sm_walk;

/* A copy of src for a checkpoint: everything but the script's text (file 0 keeps its path
 * only), which the build that restores it brings. Trees are shared (referenced). */
void sm_walk_save(sm_walk *dst, const sm_walk *src);
/* w becomes the saved state, except that it keeps its own file 0 and its tree; the saved
 * state's script tree is pinned (functions defined before the checkpoint point into it). */
void sm_walk_restore(sm_walk *w, const sm_walk *saved);
void sm_walk_free(sm_walk *w);

typedef struct sm_memo_store sm_memo_store;

/* One build. */
typedef struct {
  const sm_options *opt;
  TSParser *parser;
  sm_walk w;
  int *stack;        /* files being sourced, for cycle detection */
  size_t nstack, stack_cap;
  int call_depth;
  sm_cert path_cert; /* how surely the walk reaches this statement (DEFAULT inside a branch
                        chosen by a test on a default); conditional branches are `cond` */
  const char *path_var; /* the variable that test rested on (in the env's arena) */
  bool unrepeatable; /* the statement being walked sourced, read a file, defined a function or
                        found the train command: its effect is not memoized */
  /* set by the `[ ]` test just evaluated (cond.c), read by the walk at once: an unquoted
     expansion of a variable nothing has set ($MODE), where it is; NULL when none */
  char *test_unset;
  sm_range test_unset_range;
  /* argv.c: the fork (FC_IN_INFRA or FC_IN_STUDIO) the train command is written for, as the
     Relax options only that fork defines say; 0 when none says (or both forks are named).
     fork_by is the first such flag (in the model's flags). */
  unsigned fork;
  const char *fork_by;
  char *fork_remote; /* when no flag says and the checkout's git remote does: its URL (owned) */
} sm_builder;

/* cond.c: tri-state exit statuses. */
typedef enum { SM_FALSE = 0, SM_TRUE = 1, SM_UNKNOWN = 2 } sm_tri;
/* The exit status of a test node (test_command, negated_command, or a `test` / `[` / `true` /
 * `false` / `:` command) as far as it is known, and the least certain value it rests on. */
sm_tri sm_test_status(sm_builder *b, int file, TSNode n, sm_cert *cert, const char **cert_var);

/* walk.c */
void sm_walk_node(sm_builder *b, int file, TSNode n, bool cond);
void sm_walk_file(sm_builder *b, int file);
void sm_report_syntax(sm_builder *b, int file, TSNode n);
void sm_syntax(sm_builder *b, int file, TSNode root);
/* `message` is consumed. */
void sm_add_cond(sm_builder *b, sm_level lvl, const char *code, int file, sm_range r,
                 char *message);
/* The subject and flag of the condition just added (copied; either may be NULL). */
void sm_cond_about(sm_builder *b, const char *subject, const char *flag);
sh_file sm_shfile(const sm_builder *b, int file);
/* The source text of n (clamped to the file): borrowed, or a copy the caller frees. */
const char *sm_node_span(const sm_builder *b, int file, TSNode n, size_t *len);
char *sm_node_text(const sm_builder *b, int file, TSNode n);
bool sm_looks_like_flag(const char *s);
/* All children of n in one pass (ts_node_child is O(index) in this runtime). Caller frees. */
TSNode *sm_children(TSNode n, uint32_t *count);
bool sm_is_launcher_name(const char *s);

/* The words of command n as the shell passes them (assignments, redirections and comments left
 * out), appended to argv. */
void sm_command_argv(sm_builder *b, int file, TSNode n, bool cond, sh_fields *argv);

/* train.c: whether the text of n names the train entrypoint (a cheap test before expanding). */
bool sm_names_train(const sm_builder *b, int file, TSNode n);
/* The train command argv of command n: the first one becomes the walk's train, later
 * ones condition train-line-extra. */
void sm_consider_train(sm_builder *b, int file, TSNode cmd, sh_fields *argv, bool cond);
/* The train commands inside n, a branch the walk does not take: condition train-line-skipped
 * each, with its words expanded as the state is here (nothing else in n is walked). */
void sm_skipped_trains(sm_builder *b, int file, TSNode n);

/* source.c */
void sm_follow_source(sm_builder *b, int file, TSNode cmd, TSNode arg);
/* The fork (FC_IN_INFRA or FC_IN_STUDIO) the checkout the script is in was cloned from: the
 * first .git/config upwards from the script whose remote URLs name exactly one of
 * redai-infra/Relax and redai-studio/Relax; *url (caller frees) that URL. 0 (and NULL) when
 * there is none, or its remotes name both. The reads are logged like a sourced file's. */
unsigned sm_git_fork(sm_builder *b, char **url);
int sm_add_file(sm_walk *w, char *path /* consumed */, char *text /* consumed */, size_t len,
                int parent, sm_range src_range);
/* True when every answer in log[0..n) is still the same. */
bool sm_fslog_holds(const sm_builder *b, const sm_fsq *log, size_t n);
char *sm_path_absolute(const char *p);

/* flags.c: the flags of argv into m (conditions it finds go to b's walk). */
void sm_build_flags(sm_builder *b, sm_model *m, const sh_fields *argv);
/* A condition (set-later) for each flag whose value expanded a variable unset at that point that
 * the script sets further on (`SAVE=${DIR}/x` before `DIR=...`): bash gave it nothing there. */
void sm_flags_set_later(sm_builder *b, sm_model *m);
/* argv.c: argv as argparse reads it with the catalog's options: each flag's entry, how many
 * values it takes, whether its values convert; the conditions argparse would raise, and the
 * spellings unknown flags were meant to be (m->shadow). */
void sm_check_argv(sm_builder *b, sm_model *m, const fc_catalog *cat);
/* Range of bytes [start, end) of file f. */
sm_range sm_file_range(const sm_file *f, uint32_t start_byte, uint32_t end_byte);

/* context.c: m->ctx from the file name, the options and the files' comments; m->vars. */
void sm_state_context(sm_model *m, const sm_options *opt);
void sm_collect_vars(sm_model *m, const sh_env *env);

/* refs.c: names for navigation. A definition of the name node `name` (whole: the statement);
 * the uses inside n (its expansions, the variables of its arithmetic; arith: n itself is
 * arithmetic); a mention (export / unset / local NAME). sm_refs_take moves the walk's refs into
 * m, each place once, with the definitions that reach each use. */
void sm_ref_def(sm_builder *b, sm_sym_kind kind, sm_ref_role role, bool cond, int file, TSNode name,
                TSNode whole);
void sm_ref_uses(sm_builder *b, int file, TSNode n, bool arith);
void sm_ref_name(sm_builder *b, sm_sym_kind kind, sm_ref_role role, int file, TSNode name);
void sm_refs_take(sm_model *m, sm_walk *w);
void sm_refs_pending_free(sm_model *m);

/* resume.c: the script's top level, resuming at a checkpoint when opt->resume allows. */
void sm_walk_script(sm_builder *b);

/* Copies and frees of model parts (checkpoints and memos keep their own). */
void sm_conds_copy(sm_condition *d, const sm_condition *s, size_t n);
void sm_arrays_copy(sm_array *d, const sm_array *s, size_t n);
void sm_conds_free(sm_condition *c, size_t n);
void sm_arrays_free(sm_array *a, size_t n);
void sm_file_copy(sm_file *d, const sm_file *s);

#endif
