#include "audit/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/au_int.h"
#include "audit/facts.h"
#include "base/alloc.h"

/* The default window: steps 3..5, past the first steps' warm-up (compilation, allocator growth). */
enum { WIN_START = 3, WIN_LEN = 3 };

#define TRACE_FOLDER "traces/%s/train_trace"
#define NO_EXPERIMENT "<YYYYmmdd_HHMMSS>"

static void window(au_profile *p) {
  p->start = WIN_START;
  p->end = WIN_START + WIN_LEN - 1;
  if (p->run_steps < 0 || p->run_steps > p->end) return;
  /* a short run: the last steps it makes (step `end` must complete for the file to be written) */
  p->end = p->run_steps - 1;
  p->start = p->end - (WIN_LEN - 1);
  if (p->start < 1) p->start = p->end >= 1 ? 1 : 0;
}

static void set_flag(au_profile *p, size_t i, const char *flag, long value) {
  p->flags[i].flag = flag;
  if (value >= 0) snprintf(p->flags[i].value, sizeof p->flags[i].value, "%ld", value);
}

au_profile *au_profile_plan(const sm_model *m, const au_facts *f) {
  au_profile *p = pd_xcalloc(1, sizeof *p);
  *p = (au_profile){.run_steps = -1, .run = AU_RUN_UNSET, .cur_start = 10, .cur_end = 12, .cur_overall = true, .ranks = -1};
  long v;
  if (sm_flag_long(m, "--num-rollout", &v) && v > 0) {
    p->run_steps = v;
    p->run = AU_RUN_KNOWN;
  } else if (sm_flag_get(m, "--num-epoch")) {
    p->run = AU_RUN_EPOCHS;
  }
  window(p);
  set_flag(p, 0, "--use-pytorch-profiler", -1);
  set_flag(p, 1, "--profile-target", -1);
  snprintf(p->flags[1].value, sizeof p->flags[1].value, "train_overall");
  set_flag(p, 2, "--profile-step-start", p->start);
  set_flag(p, 3, "--profile-step-end", p->end);
  set_flag(p, 4, "--profile-with-memory", -1);
  p->already = sm_flag_get(m, "--use-pytorch-profiler") != NULL;
  if (sm_flag_long(m, "--profile-step-start", &v)) p->cur_start = v;
  if (sm_flag_long(m, "--profile-step-end", &v)) p->cur_end = v;
  const sm_flag *t = sm_flag_get(m, "--profile-target");
  if (t) {
    p->cur_overall = false;
    for (size_t i = 0; i < t->nvalues; i++)
      if (!strcmp(t->values[i].text, "train_overall")) p->cur_overall = true;
  }
  p->memory = sm_flag_get(m, "--profile-with-memory") != NULL;
  const char *e = sm_flag_str(m, "--tb-experiment-name");
  p->experiment = e && *e ? pd_xstrdup(e) : NULL;
  p->trace_dir = pd_xasprintf(TRACE_FOLDER "/", p->experiment ? p->experiment : NO_EXPERIMENT);
  double g = f ? af_num(f, AF_G_A, -1) : -1;
  if (g > 0) p->ranks = (long)g;
  return p;
}

void au_profile_free(au_profile *p) {
  if (!p) return;
  free(p->experiment);
  free(p->trace_dir);
  free(p);
}

char *au_profile_trace_folder(const sm_model *m) {
  const char *exp = sm_flag_str(m, "--tb-experiment-name");
  if (!exp || !*exp || strchr(exp, '/') || strstr(exp, "..")) return NULL;
  return pd_xasprintf(TRACE_FOLDER, exp);
}

/* ---- rendering ---- */

static void say(pd_buf *b, const au_rules *rules, au_msg_id id, const char *lang, const ax_value *args) {
  au_msg_append(b, au_rules_messages(rules), id, lang, NULL, args);
}

static char *said(const au_rules *rules, au_msg_id id, const char *lang, const ax_value *args) {
  return au_msg(au_rules_messages(rules), id, lang, NULL, args);
}

/* Why the run length is not known, in lang (fresh), or NULL when it is. */
static char *run_why(const au_profile *p, const au_rules *rules, const char *lang) {
  if (p->run == AU_RUN_KNOWN) return NULL;
  return said(rules, p->run == AU_RUN_EPOCHS ? AU_MSG_PROF_WHY_EPOCHS : AU_MSG_PROF_WHY_UNSET, lang, NULL);
}

static void flag_lines(pd_buf *b, const au_profile *p) {
  for (size_t i = 0; i < AU_PROF_NFLAGS; i++)
    pd_buf_printf(b, "  %s%s%s\n", p->flags[i].flag, p->flags[i].value[0] ? " " : "", p->flags[i].value);
}

char *au_profile_markdown(const au_profile *p, const au_rules *rules, const char *script, const char *lang) {
  pd_buf b = {0};
  ax_value a[4] = {ax_str(script)};
  say(&b, rules, AU_MSG_PROF_TITLE, lang, a);
  if (p->already) {
    ax_value c[4] = {ax_num((double)p->cur_start), ax_num((double)p->cur_end), ax_bool(p->cur_overall), ax_bool(p->memory)};
    say(&b, rules, AU_MSG_PROF_ALREADY, lang, c);
  }
  say(&b, rules, AU_MSG_PROF_FLAGS_HEAD, lang, NULL);
  pd_buf_puts(&b, "```bash\n");
  flag_lines(&b, p);
  if (!p->experiment) {
    pd_buf_puts(&b, "  --tb-experiment-name <name>   # ");
    say(&b, rules, AU_MSG_PROF_EXPERIMENT_COMMENT, lang, NULL);
    pd_buf_putc(&b, '\n');
  }
  pd_buf_puts(&b, "```\n\n");
  char *why = run_why(p, rules, lang);
  ax_value r[2] = {ax_num((double)p->run_steps), ax_num((double)p->end + 1)};
  if (why) r[0] = ax_str(why);
  char *run = said(rules, why ? AU_MSG_PROF_RUN_UNKNOWN : AU_MSG_PROF_RUN_KNOWN, lang, r);
  ax_value w[3] = {ax_num((double)p->start), ax_num((double)p->end), ax_str(run)};
  say(&b, rules, AU_MSG_PROF_WINDOW, lang, w);
  free(run);
  free(why);
  say(&b, rules, AU_MSG_PROF_NOTES, lang, NULL);
  ax_value d[2] = {ax_str(p->trace_dir), ax_num((double)p->ranks)};
  say(&b, rules, p->ranks > 0 ? AU_MSG_PROF_WHERE_FILES : AU_MSG_PROF_WHERE, lang, d);
  if (!p->experiment) say(&b, rules, AU_MSG_PROF_NO_EXPERIMENT, lang, NULL);
  ax_value t[2] = {ax_str(p->trace_dir), ax_str(script)};
  say(&b, rules, AU_MSG_PROF_THEN, lang, t);
  return pd_buf_take(&b);
}

json_t *au_profile_json(const au_profile *p, const au_rules *rules, const char *script) {
  json_t *flags = json_array();
  for (size_t i = 0; i < AU_PROF_NFLAGS; i++) {
    json_array_append_new(flags, json_string(p->flags[i].flag));
    if (p->flags[i].value[0]) json_array_append_new(flags, json_string(p->flags[i].value));
  }
  char *why = run_why(p, rules, "en");
  json_t *j = json_pack("{s:s, s:o, s:{s:I, s:I}, s:o, s:o, s:s, s:o, s:b, s:[s,s]}", "script", script, "flags", flags,
                        "window", "start", (json_int_t)p->start, "end", (json_int_t)p->end, "run_steps",
                        p->run_steps >= 0 ? json_integer(p->run_steps) : json_null(), "run_steps_unknown_why",
                        why ? json_string(why) : json_null(), "trace_dir", p->trace_dir, "files",
                        p->ranks > 0 ? json_integer(p->ranks) : json_null(), "already_profiling", p->already,
                        "then", "", "");
  free(why);
  json_t *then = json_object_get(j, "then");
  json_array_set_new(then, 0, json_sprintf("perf-doctor trace %s", p->trace_dir));
  json_array_set_new(then, 1, json_sprintf("perf-doctor check %s --trace %s", script, p->trace_dir));
  return j;
}

char *au_profile_block(const au_profile *p, const char *sep, const char *indent) {
  pd_buf b = {0};
  for (size_t i = 0; i < AU_PROF_NFLAGS; i++)
    pd_buf_printf(&b, "%s%s%s%s%s", sep, indent, p->flags[i].flag, p->flags[i].value[0] ? " " : "", p->flags[i].value);
  return pd_buf_take(&b);
}

char *au_profile_title(const au_profile *p, const au_rules *rules, const char *lang) {
  ax_value a[3] = {ax_num((double)p->start), ax_num((double)p->end), ax_str(p->trace_dir)};
  return said(rules, p->experiment ? AU_MSG_PROF_ACTION : AU_MSG_PROF_ACTION_NO_EXPERIMENT, lang, a);
}
