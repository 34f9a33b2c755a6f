/* train: the train commands of a script — which command is the launch (`... -m
 * relax.entrypoints.train ...` after a launcher), the first one the analysis reads, the others
 * (and those in branches the walk does not take) recorded as conditions with their words. */
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"
#include "script/bashsym.h"
#include "script/sm_int.h"

static const char *const launchers[] = {"ray",  "stdbuf", "nohup",    "env",  "timeout",
                                        "exec", "time",   "torchrun", "srun", "numactl"};

/* A command name the train line can start with (its last path component is looked at). */
bool sm_is_launcher_name(const char *s) {
  const char *t = pd_path_base(s);
  if (!strncmp(t, "python", 6)) return true;
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
    if (!strcmp(t, launchers[i])) return true;
  return false;
}

static bool is_launcher_field(const sh_field *f) {
  if (!f->resolved) return true; /* "${TRAIN_PYTHON}" */
  return sm_is_launcher_name(f->text);
}

/* Index of the entrypoint in argv, or -1. */
static long find_entrypoint(const sh_fields *argv) {
  for (size_t i = 0; i < argv->n; i++) {
    const char *t = argv->v[i].text;
    if (!argv->v[i].resolved) continue;
    if (i > 0 && !strcmp(t, "relax.entrypoints.train") && !strcmp(argv->v[i - 1].text, "-m"))
      return (long)i;
    if (pd_str_ends(t, "relax/entrypoints/train.py")) return (long)i;
  }
  return -1;
}

/* A train command the analysis does not read: condition `code` (message consumed), with the
 * command's words so that what fails at start-up there (a layout) can still be said. */
static void extra_train(sm_builder *b, const char *code, int file, sm_range r, const sh_fields *argv, long ep,
                        char *message) {
  sm_add_cond(b, SM_INFO, code, file, r, message);
  sm_condition *c = &b->w.conds[b->w.nconds - 1];
  c->nwords = argv->n - (size_t)ep - 1;
  c->words = c->nwords ? pd_xmalloc(c->nwords * sizeof *c->words) : NULL;
  for (size_t i = 0; i < c->nwords; i++) {
    const sh_field *w = &argv->v[(size_t)ep + 1 + i];
    c->words[i] = w->resolved ? pd_xstrdup(w->text) : NULL;
  }
}

void sm_consider_train(sm_builder *b, int file, TSNode cmd, sh_fields *argv, bool cond) {
  long ep = find_entrypoint(argv);
  if (ep >= 0) b->unrepeatable = true;
  if (ep < 0 || argv->n == 0 || !is_launcher_field(&argv->v[0])) return;
  sm_range r = sh_node_range(cmd);
  if (b->w.train_found) {
    extra_train(b, "train-line-extra", file, r, argv, ep,
                pd_xasprintf("another train command at line %u; the first one (line %u) is analysed",
                             r.start_line + 1, b->w.train_range.start_line + 1));
    return;
  }
  b->w.train_found = true;
  b->w.train_file = file;
  b->w.train_range = r;
  for (size_t i = (size_t)ep + 1; i < argv->n; i++) {
    sh_fields_push(&b->w.train, &argv->v[i]);
    if (cond && b->w.train.v[b->w.train.n - 1].group == NULL)
      b->w.train.v[b->w.train.n - 1].conditional = true;
  }
}


/* A branch the walk does not take (its test is known false, or an earlier one ran) may hold
 * another launch of the job (`if [ "$MODE" = async ]; then ... else ...`): its train commands
 * are recorded as train-line-skipped with their words, expanded as the state is here. Nothing else
 * in it is walked, and a command whose words could write a variable (${X:=v}, $((X=1))) is
 * left alone: the branch did not run. */
static bool span_has(const char *t, size_t len, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= len; i++)
    if (t[i] == needle[0] && !memcmp(t + i, needle, k)) return true;
  return false;
}

bool sm_names_train(const sm_builder *b, int file, TSNode n) {
  size_t len;
  const char *t = sm_node_span(b, file, n, &len);
  return span_has(t, len, "entrypoints.train") || span_has(t, len, "entrypoints/train.py");
}

void sm_skipped_trains(sm_builder *b, int file, TSNode n) {
  if (bs_is(n, BS_COMMAND)) {
    size_t len;
    const char *t = sm_node_span(b, file, n, &len);
    if (!sm_names_train(b, file, n) || span_has(t, len, ":=") || span_has(t, len, "$((")) return;
    sh_fields argv = {0};
    sm_command_argv(b, file, n, true, &argv);
    long ep = find_entrypoint(&argv);
    if (ep >= 0 && argv.n && is_launcher_field(&argv.v[0])) {
      b->unrepeatable = true;
      sm_range r = sh_node_range(n);
      extra_train(b, "train-line-skipped", file, r, &argv, ep,
                  pd_xasprintf("a train command at line %u, in a branch this launch does not take", r.start_line + 1));
    }
    sh_fields_free(&argv);
    return;
  }
  TSTreeCursor c = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&c); more; more = ts_tree_cursor_goto_next_sibling(&c)) {
    TSNode ch = ts_tree_cursor_current_node(&c);
    if (ts_node_is_named(ch)) sm_skipped_trains(b, file, ch);
  }
  ts_tree_cursor_delete(&c);
}

