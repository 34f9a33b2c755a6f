/* `perf-doctor profile SCRIPT [--format md|json]`: how to profile the training of this script.
 *
 * Prints the flags to add (a step window inside the script's run length), where Relax will
 * write the traces and what to run on them. It reads the script like `check` does and never
 * edits it. The facts about Relax's profiler are in ../shared/reference/relax-profiling.md:
 * only the `train_overall` target is wired into the training loop; the window counts
 * `prof.step()` calls from 0 in this launch (one per training step), and the trace is written
 * when step `end` completes; traces go to `traces/<tb-experiment-name>/train_trace/` relative
 * to the Ray actor's working directory, one file per training rank. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/facts.h"
#include "base/alloc.h"
#include "cli/cli.h"
#include "cli/options.h"

static const char usage[] =
    "usage: perf-doctor profile SCRIPT [--format md|json] [--gpu TYPE] [--model-config-dir DIR]\n"
    "  How to profile this script's training with Relax's PyTorch profiler: the flags to add,\n"
    "  where the traces will be written and the commands to read them. Prints only; the script\n"
    "  is not changed.\n";

/* The default window: steps 3..5, past the first steps' warm-up (compilation, allocator growth). */
enum { WIN_START = 3, WIN_LEN = 3 };

typedef struct {
  long steps;          /* training steps the run makes (--num-rollout), -1 when not known */
  const char *steps_why;
  long start, end;     /* the window to use */
  bool already;        /* --use-pytorch-profiler is set */
  long cur_start, cur_end;
  bool cur_overall;    /* --profile-target includes train_overall (the default) */
  bool memory;         /* --profile-with-memory already set */
  const char *exp;     /* --tb-experiment-name, NULL when unset */
  long ranks;          /* training ranks (actor GPUs), -1 when not known */
} plan;

static void window(plan *p) {
  p->start = WIN_START;
  p->end = WIN_START + WIN_LEN - 1;
  if (p->steps < 0 || p->steps > p->end) return;
  /* a short run: the last steps it makes (step `end` must complete for the file to be written) */
  p->end = p->steps - 1;
  p->start = p->end - (WIN_LEN - 1);
  if (p->start < 1) p->start = p->end >= 1 ? 1 : 0;
}

static plan make_plan(const sm_model *m, au_facts *f) {
  plan p = {.steps = -1, .cur_start = 10, .cur_end = 12, .cur_overall = true, .ranks = -1};
  long v;
  if (sm_flag_long(m, "--num-rollout", &v) && v > 0) p.steps = v;
  else if (sm_flag_get(m, "--num-epoch")) p.steps_why = "the run length is set by --num-epoch (depends on the dataset size)";
  else p.steps_why = "--num-rollout is not set or not resolved";
  window(&p);
  p.already = sm_flag_get(m, "--use-pytorch-profiler") != NULL;
  if (sm_flag_long(m, "--profile-step-start", &v)) p.cur_start = v;
  if (sm_flag_long(m, "--profile-step-end", &v)) p.cur_end = v;
  const sm_flag *t = sm_flag_get(m, "--profile-target");
  if (t) {
    p.cur_overall = false;
    for (size_t i = 0; i < t->nvalues; i++)
      if (!strcmp(t->values[i].text, "train_overall")) p.cur_overall = true;
  }
  p.memory = sm_flag_get(m, "--profile-with-memory") != NULL;
  const char *e = sm_flag_str(m, "--tb-experiment-name");
  p.exp = e && *e ? e : NULL;
  double g = af_num(f, AF_G_A, -1);
  if (g > 0) p.ranks = (long)g;
  return p;
}

static char *trace_dir(const plan *p) {
  return p->exp ? pd_xasprintf("traces/%s/train_trace/", p->exp) : pd_xstrdup("traces/<YYYYmmdd_HHMMSS>/train_trace/");
}

static void print_md(const char *script, const plan *p) {
  char *dir = trace_dir(p);
  printf("# Profiling %s\n\n", script);
  if (p->already)
    printf("The script already turns the profiler on: steps %ld-%ld, target %s%s.%s\n\n", p->cur_start, p->cur_end,
           p->cur_overall ? "train_overall" : "without train_overall",
           p->memory ? ", memory recorded" : "",
           p->cur_overall ? "" : " **No trace will be written**: only `train_overall` is wired into the training loop.");
  printf("## Flags to add (after the last training flag)\n\n```bash\n");
  printf("  --use-pytorch-profiler\n  --profile-target train_overall\n");
  printf("  --profile-step-start %ld\n  --profile-step-end %ld\n", p->start, p->end);
  printf("  --profile-with-memory\n");
  if (!p->exp) printf("  --tb-experiment-name <name>   # fixes the trace folder for every rank\n");
  printf("```\n\n");
  printf("- Window: steps %ld to %ld (inclusive), counted from 0 in this launch (a resumed run counts "
         "again from 0). ", p->start, p->end);
  if (p->steps >= 0) printf("The run makes %ld training steps (--num-rollout), so the window ends inside it", p->steps);
  else printf("Run length not known (%s): the window assumes at least %ld steps", p->steps_why, p->end + 1);
  printf("; the trace is written only once step %ld completes.\n", p->end);
  printf("- `--profile-with-memory` records the allocator's `[memory]` events: `perf-doctor trace` then "
         "reports the peak allocated and reserved memory per rank. Shapes are always recorded (FLOPs and MFU "
         "need them).\n");
  printf("- Target `train_overall`: `train_actor` is accepted by argparse but not wired into the "
         "training loop, so with it alone no trace is written.\n\n");
  printf("## Where the traces go\n\n`%s` relative to the Ray actor's working directory", dir);
  if (p->ranks > 0) printf(": %ld files, one per training rank", p->ranks);
  else printf(": one file per training rank");
  printf(", named `train_overall_rank<R>_dp<D>_tp<T>_pp<P>.<ns>.pt.trace.json.gz`.");
  if (!p->exp)
    printf(" Without `--tb-experiment-name` the folder is a timestamp taken in each process, so ranks can "
           "land in different folders.");
  printf("\n\n## Then\n\n```bash\nperf-doctor trace %s\nperf-doctor check %s --trace %s\n```\n", dir, script, dir);
  free(dir);
}

static void print_json(const char *script, const plan *p) {
  char *dir = trace_dir(p);
  json_t *flags = json_pack("[s,s,s,s,s,s,s]", "--use-pytorch-profiler", "--profile-target", "train_overall",
                            "--profile-step-start", "", "--profile-step-end", "");
  json_array_set_new(flags, 4, json_sprintf("%ld", p->start));
  json_array_set_new(flags, 6, json_sprintf("%ld", p->end));
  json_array_append_new(flags, json_string("--profile-with-memory"));
  json_t *j = json_pack("{s:s, s:o, s:{s:I, s:I}, s:o, s:o, s:s, s:o, s:b, s:[s,s]}", "script", script, "flags", flags,
                        "window", "start", (json_int_t)p->start, "end", (json_int_t)p->end, "run_steps",
                        p->steps >= 0 ? json_integer(p->steps) : json_null(), "run_steps_unknown_why",
                        p->steps_why ? json_string(p->steps_why) : json_null(), "trace_dir", dir, "files",
                        p->ranks > 0 ? json_integer(p->ranks) : json_null(), "already_profiling", p->already,
                        "then", "", "");
  json_t *then = json_object_get(j, "then");
  json_array_set_new(then, 0, json_sprintf("perf-doctor trace %s", dir));
  json_array_set_new(then, 1, json_sprintf("perf-doctor check %s --trace %s", script, dir));
  json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  fputc('\n', stdout);
  json_decref(j);
  free(dir);
}

int pd_cmd_profile(int argc, char **argv) {
  const char *script = NULL, *format = "md";
  sm_options opt = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(usage, stdout), 0;
    if ((!strcmp(a, "--format") || !strcmp(a, "--gpu") || !strcmp(a, "--model-config-dir")) && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(a, "--format")) format = v;
      else if (!strcmp(a, "--gpu")) opt.gpu = v;
      else opt.model_config_dir = v;
    } else if ((a[0] == '-' && a[1]) || script) {
      fprintf(stderr, "perf-doctor profile: %s '%s'\n%s", script ? "one script at a time, not" : "unknown option", a, usage);
      return 2;
    } else {
      script = a;
    }
  }
  if (!script) return fputs(usage, stderr), 2;
  if (strcmp(format, "md") != 0 && strcmp(format, "json") != 0) {
    fprintf(stderr, "perf-doctor profile: unknown format '%s' (md, json)\n", format);
    return 2;
  }
  sm_model *m = co_read_model("profile", script, &opt);
  if (!m) return 2;
  if (!m->train_line_found) {
    fprintf(stderr, "perf-doctor profile: %s: no `relax.entrypoints.train` launch found\n", script);
    sm_model_free(m);
    return 2;
  }
  au_facts *f = af_compute(m, NULL);
  plan p = make_plan(m, f);
  if (!strcmp(format, "json")) print_json(script, &p);
  else print_md(script, &p);
  af_free(f);
  sm_model_free(m);
  return 0;
}
