/* profile: how to profile a launch script's training with Relax's PyTorch profiler — one plan, as
 * data, that `perf-doctor profile` prints (markdown, JSON) and the editor inserts ("insert a
 * bounded Train Actor profiling block") and looks in for traces.
 *
 * The facts about Relax's profiler (shared/reference/relax-profiling.md, read from Relax's
 * relax/utils/profile_utils.py and relax/backends/megatron/actor.py): only the `train_overall`
 * target is wired into the training loop (`train_actor` and `train_log_probs` are accepted by
 * argparse and write nothing); the window counts `prof.step()` calls from 0 in this launch, one
 * per training step, and a resumed run counts again from 0; the trace is written when step `end`
 * completes, so the window must end inside the run (--num-rollout); shapes are always recorded,
 * memory only with --profile-with-memory; traces go to `traces/<tb-experiment-name>/train_trace/`
 * relative to the Ray actor's working directory, one file per training rank, and without
 * --tb-experiment-name the folder is a timestamp each process takes for itself. */
#ifndef PD_AUDIT_PROFILE_H
#define PD_AUDIT_PROFILE_H

#include <jansson.h>
#include <stdbool.h>

#include "audit/audit.h"

/* One flag to add: its name and its value ("" for a switch). */
typedef struct {
  const char *flag;
  char value[24];
} au_prof_flag;

enum { AU_PROF_NFLAGS = 5 };

/* What the run length rests on. */
typedef enum { AU_RUN_KNOWN, AU_RUN_EPOCHS, AU_RUN_UNSET } au_run_length;

typedef struct {
  au_prof_flag flags[AU_PROF_NFLAGS]; /* in the order to write them */
  long start, end;          /* the window: prof.step() counts from 0, end inclusive */
  long run_steps;           /* training steps the run makes (--num-rollout), -1 when not known */
  au_run_length run;        /* ... and why it is or is not known */
  bool already;             /* the script sets --use-pytorch-profiler */
  long cur_start, cur_end;  /* its window (Megatron's defaults 10-12 when unset) */
  bool cur_overall;         /* its --profile-target includes train_overall (the default) */
  bool memory;              /* it sets --profile-with-memory */
  char *experiment;         /* --tb-experiment-name, NULL when unset */
  char *trace_dir;          /* "traces/<name>/train_trace/", with a placeholder name when unset */
  long ranks;               /* training ranks (one trace file each), -1 when not known */
} au_profile;

/* The plan for a script model and its facts (f may be NULL: the ranks are then not known).
 * Never NULL; free with au_profile_free. */
au_profile *au_profile_plan(const sm_model *m, const au_facts *f);
void au_profile_free(au_profile *p);

/* `perf-doctor profile` as markdown in lang: the flags to add, the window, where the traces go,
 * what to run on them (script: the path as the user named it). Caller frees. */
char *au_profile_markdown(const au_profile *p, const au_rules *rules, const char *script, const char *lang);
/* ... as JSON (the same in every language; new reference): {"script", "flags", "window",
 * "run_steps", "run_steps_unknown_why", "trace_dir", "files", "already_profiling", "then"}. */
json_t *au_profile_json(const au_profile *p, const au_rules *rules, const char *script);

/* The flags as the text to insert after a script's last flag: each on its own line, after sep
 * ("\n" between array items, " \\\n" on a continued command line) and indent. Caller frees. */
char *au_profile_block(const au_profile *p, const char *sep, const char *indent);
/* The editor's title for inserting that block, in lang. Caller frees. */
char *au_profile_title(const au_profile *p, const au_rules *rules, const char *lang);

/* Where a script's traces land, relative to the job's working directory:
 * "traces/<tb-experiment-name>/train_trace", or NULL when the name is unset or would leave that
 * folder ('/' or ".."). Caller frees. */
char *au_profile_trace_folder(const sm_model *m);

#endif
