/* build: sm_build and the model's lifetime, and the walk state (sm_walk) that a build fills,
 * a checkpoint copies and the model finally takes over. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "script/sm_int.h"

const TSLanguage *tree_sitter_bash(void);

TSParser *sm_parser_new(void) {
  TSParser *p = ts_parser_new();
  if (!ts_parser_set_language(p, tree_sitter_bash())) {
    ts_parser_delete(p);
    return NULL;
  }
  return p;
}

/* ---- shared trees --------------------------------------------------------------------------- */

sm_tree_ref *sm_tree_ref_new(TSTree *t /* consumed */) {
  sm_tree_ref *r = pd_xmalloc(sizeof *r);
  r->tree = t;
  r->refs = 1;
  return r;
}

sm_tree_ref *sm_tree_ref_take(sm_tree_ref *r) {
  if (r) r->refs++;
  return r;
}

void sm_tree_ref_drop(sm_tree_ref *r) {
  if (!r || --r->refs) return;
  ts_tree_delete(r->tree);
  free(r);
}

/* ---- copies of model parts (checkpoints and memos keep their own) ------------------------ */

void sm_conds_copy(sm_condition *d, const sm_condition *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
    d[i].code = pd_xstrdup(s[i].code);
    d[i].message = pd_xstrdup(s[i].message);
    d[i].subject = s[i].subject ? pd_xstrdup(s[i].subject) : NULL;
    d[i].flag = s[i].flag ? pd_xstrdup(s[i].flag) : NULL;
    d[i].suggest = s[i].suggest ? pd_xstrdup(s[i].suggest) : NULL;
    d[i].opener = s[i].opener ? pd_xstrdup(s[i].opener) : NULL;
    d[i].closer = s[i].closer ? pd_xstrdup(s[i].closer) : NULL;
    d[i].words = s[i].nwords ? pd_xmalloc(s[i].nwords * sizeof *d[i].words) : NULL;
    for (size_t k = 0; k < s[i].nwords; k++) d[i].words[k] = s[i].words[k] ? pd_xstrdup(s[i].words[k]) : NULL;
  }
}

void sm_arrays_copy(sm_array *d, const sm_array *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
    d[i].name = pd_xstrdup(s[i].name);
  }
}

void sm_conds_free(sm_condition *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(c[i].code);
    free(c[i].message);
    free(c[i].subject);
    free(c[i].flag);
    free(c[i].suggest);
    free(c[i].opener);
    free(c[i].closer);
    for (size_t k = 0; k < c[i].nwords; k++) free(c[i].words[k]);
    free(c[i].words);
  }
  free(c);
}

void sm_arrays_free(sm_array *a, size_t n) {
  for (size_t i = 0; i < n; i++) free(a[i].name);
  free(a);
}

void sm_file_copy(sm_file *d, const sm_file *s) {
  *d = *s;
  d->path = s->path ? pd_xstrdup(s->path) : NULL;
  d->job_path = s->job_path ? pd_xstrdup(s->job_path) : NULL;
  d->text = pd_xstrndup(s->text, s->len);
  d->lines = pd_xmalloc((s->nlines ? s->nlines : 1) * sizeof *d->lines);
  memcpy(d->lines, s->lines, s->nlines * sizeof *d->lines);
}

static void files_free(sm_file *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(f[i].path);
    free(f[i].job_path);
    free(f[i].text);
    free(f[i].lines);
  }
  free(f);
}

/* ---- the walk state ------------------------------------------------------------------------ */

static sm_fsq *fslog_copy(const sm_fsq *s, size_t n) {
  sm_fsq *d = pd_xmalloc((n ? n : 1) * sizeof *d);
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
    d[i].path = pd_xstrdup(s[i].path);
  }
  return d;
}

static void fslog_free(sm_fsq *log, size_t n) {
  for (size_t i = 0; i < n; i++) free(log[i].path);
  free(log);
}

static sm_tree_ref **trees_copy(sm_tree_ref *const *s, size_t n) {
  sm_tree_ref **d = pd_xmalloc((n ? n : 1) * sizeof *d);
  for (size_t i = 0; i < n; i++) d[i] = sm_tree_ref_take(s[i]);
  return d;
}

/* Every part of src but its files and trees, into a zeroed dst. */
static void walk_copy_state(sm_walk *dst, const sm_walk *src) {
  dst->pinned = trees_copy(src->pinned, src->npinned);
  dst->npinned = dst->pinned_cap = src->npinned;
  dst->arrays = pd_xmalloc((src->narrays ? src->narrays : 1) * sizeof *dst->arrays);
  sm_arrays_copy(dst->arrays, src->arrays, src->narrays);
  dst->narrays = dst->arrays_cap = src->narrays;
  dst->conds = pd_xmalloc((src->nconds ? src->nconds : 1) * sizeof *dst->conds);
  sm_conds_copy(dst->conds, src->conds, src->nconds);
  dst->nconds = dst->conds_cap = src->nconds;
  dst->refs = pd_xmalloc((src->nrefs ? src->nrefs : 1) * sizeof *dst->refs);
  if (src->nrefs) memcpy(dst->refs, src->refs, src->nrefs * sizeof *dst->refs); /* names: the env's */
  dst->nrefs = dst->refs_cap = src->nrefs;
  dst->model = src->model ? pd_xstrdup(src->model) : NULL;
  dst->source_file = src->source_file;
  dst->source_range = src->source_range;
  dst->train_found = src->train_found;
  dst->train_file = src->train_file;
  dst->train_range = src->train_range;
  for (size_t i = 0; i < src->train.n; i++) sh_fields_push(&dst->train, &src->train.v[i]);
  dst->env = sh_env_clone(src->env);
  dst->loop_budget = src->loop_budget;
  dst->syntax_conds = src->syntax_conds;
  dst->defined_model_args = src->defined_model_args;
  dst->fslog = fslog_copy(src->fslog, src->nfslog);
  dst->nfslog = dst->fslog_cap = src->nfslog;
}

/* The parts walk_copy_state copies, freed. */
static void walk_free_state(sm_walk *w) {
  sh_fields_free(&w->train); /* before the env its strings live in */
  for (size_t i = 0; i < w->npinned; i++) sm_tree_ref_drop(w->pinned[i]);
  free(w->pinned);
  sm_arrays_free(w->arrays, w->narrays);
  sm_conds_free(w->conds, w->nconds);
  free(w->refs);
  free(w->model);
  sh_env_free(w->env);
  fslog_free(w->fslog, w->nfslog);
}

void sm_walk_save(sm_walk *dst, const sm_walk *src) {
  memset(dst, 0, sizeof *dst);
  walk_copy_state(dst, src);
  dst->files = pd_xcalloc(src->nfiles, sizeof *dst->files);
  dst->nfiles = dst->files_cap = src->nfiles;
  for (size_t i = 0; i < src->nfiles; i++) {
    if (i) sm_file_copy(&dst->files[i], &src->files[i]);
    else dst->files[0] = (sm_file){pd_xstrdup(src->files[0].path), NULL, 0, NULL, 0, -1, {0}, NULL};
  }
  dst->trees = trees_copy(src->trees, src->nfiles);
  dst->trees_cap = src->nfiles;
}

void sm_walk_restore(sm_walk *w, const sm_walk *saved) {
  sm_file own = w->files[0];
  sm_tree_ref *own_tree = w->trees[0];
  for (size_t i = 1; i < w->nfiles; i++) {
    free(w->files[i].path);
    free(w->files[i].job_path);
    free(w->files[i].text);
    free(w->files[i].lines);
    sm_tree_ref_drop(w->trees[i]);
  }
  walk_free_state(w);
  sm_file *files = w->files;
  sm_tree_ref **trees = w->trees;
  size_t files_cap = w->files_cap, trees_cap = w->trees_cap;
  memset(w, 0, sizeof *w);
  w->files = files;
  w->trees = trees;
  w->files_cap = files_cap;
  w->trees_cap = trees_cap;
  w->nfiles = 1;
  w->files[0] = own;
  w->trees[0] = own_tree;
  for (size_t i = 1; i < saved->nfiles; i++) {
    sm_file *f = PD_PUSH(w->files, w->nfiles, w->files_cap);
    sm_file_copy(f, &saved->files[i]);
    pd_grow((void **)&w->trees, &w->trees_cap, w->nfiles, sizeof *w->trees);
    w->trees[w->nfiles - 1] = sm_tree_ref_take(saved->trees[i]);
  }
  walk_copy_state(w, saved);
  /* Functions defined before the checkpoint are nodes of the tree it was taken from. */
  *PD_PUSH(w->pinned, w->npinned, w->pinned_cap) = sm_tree_ref_take(saved->trees[0]);
}

void sm_walk_free(sm_walk *w) {
  walk_free_state(w);
  for (size_t i = 0; i < w->nfiles; i++) sm_tree_ref_drop(w->trees[i]);
  free(w->trees);
  files_free(w->files, w->nfiles);
  memset(w, 0, sizeof *w);
}

/* ---- build / free --------------------------------------------------------------------------- */

/* No train command: every *_ARGS array counts as passed, in definition order. */
static void flags_without_train_line(sm_builder *b, sm_model *m) {
  sh_fields all = {0};
  const char **names;
  size_t n = sh_array_names(b->w.env, &names);
  for (size_t i = 0; i < n; i++) {
    if (!pd_str_ends(names[i], "_ARGS")) continue;
    sh_fields *a = sh_array_get(b->w.env, names[i]);
    for (size_t j = 0; a && j < a->n; j++) sh_fields_push(&all, &a->v[j]);
  }
  sm_build_flags(b, m, &all);
  sh_fields_free(&all);
  sm_add_cond(b, SM_INFO, "no-train-line", 0, (sm_range){0},
              pd_xstrdup("no `python3 -m relax.entrypoints.train` command found; every *_ARGS "
                         "array in the file is counted as passed"));
}

/* The walk's files, arrays, conditions and references move into the model; its trees are
 * dropped (the model keeps none). */
static void take_walk(sm_model *m, sm_walk *w) {
  for (size_t i = 0; i < w->nfiles; i++) sm_tree_ref_drop(w->trees[i]);
  m->files = w->files;
  m->nfiles = w->nfiles;
  m->arrays = w->arrays;
  m->narrays = w->narrays;
  m->conds = w->conds;
  m->nconds = w->nconds;
  sm_refs_take(m, w); /* names copied: the env goes with the walk */
  m->ctx.model = w->model;
  m->source_file = w->source_file;
  m->source_range = w->source_range;
  m->train_line_found = w->train_found;
  m->train_file = w->train_file;
  m->train_range = w->train_range;
  w->files = NULL;
  w->nfiles = 0;
  w->arrays = NULL;
  w->narrays = 0;
  w->conds = NULL;
  w->nconds = 0;
  w->model = NULL;
}

/* See sm_model.launch_script. The text fallback only counts when bash would refuse the file:
 * an unterminated quote that swallows the train line must still be reported. */
static bool is_launch_script(const sm_model *m, size_t syntax_errors) {
  if (m->train_line_found || m->nflags > 0) return true;
  for (size_t i = 0; i < m->narrays; i++)
    if (m->arrays[i].file == 0 && pd_str_ends(m->arrays[i].name, "_ARGS")) return true;
  if (!syntax_errors) return false;
  const sm_file *f = &m->files[0];
  return pd_mem_has(f->text, f->len, "relax.entrypoints") || pd_mem_has(f->text, f->len, "_ARGS=(") ||
         pd_mem_has(f->text, f->len, "_ARGS+=(");
}

/* What the script is launched with (`TP=3 bash run.sh a b`): exported variables and "$@". */
static void launch_environment(sm_builder *b) {
  const sm_options *o = b->opt;
  for (size_t i = 0; i < o->nenv; i++) {
    const char *eq = strchr(o->env[i], '=');
    if (!eq || eq == o->env[i]) continue;
    char *name = pd_xstrndup(o->env[i], (size_t)(eq - o->env[i]));
    sh_var_set(b->w.env, name, eq + 1, SM_CERT_LITERAL, NULL);
    sh_var_mark(b->w.env, name, -1, (sm_range){0}, true);
    free(name);
  }
  if (!o->nargs) return;
  sh_fields *pos = sh_array_define(b->w.env, SH_POSITIONAL, false);
  for (size_t i = 0; i < o->nargs; i++) {
    sh_field f = {0};
    f.text = sh_intern(b->w.env, o->args[i], strlen(o->args[i]));
    f.resolved = true;
    f.cert = SM_CERT_LITERAL;
    sh_fields_push(pos, &f);
  }
}

static uint64_t mix_range(uint64_t h, sm_range r) {
  uint32_t v[6] = {r.start_byte, r.end_byte, r.start_line, r.start_col, r.end_line, r.end_col};
  return pd_hash(h, v, sizeof v);
}

static uint64_t mix_str(uint64_t h, const char *s) {
  return s ? pd_hash(h, s, strlen(s) + 1) : pd_hash(h, "\xff", 1);
}

/* Everything a walk state holds, hashed (see sm_resume.verify). */
static uint64_t walk_digest(const sm_walk *w) {
  uint64_t h = pd_hash(PD_HASH_SEED, "walk", 4) ^ sh_env_digest(w->env);
  for (size_t i = 0; i < w->nfiles; i++) {
    h = mix_str(h, w->files[i].path);
    h = pd_hash(h, w->files[i].text, w->files[i].len);
    h = pd_hash(h, &w->files[i].parent, sizeof w->files[i].parent);
    h = mix_range(h, w->files[i].source_range);
  }
  for (size_t i = 0; i < w->narrays; i++) {
    const sm_array *a = &w->arrays[i];
    bool b[2] = {a->append, a->conditional};
    h = pd_hash(mix_range(pd_hash(mix_str(h, a->name), &a->file, sizeof a->file), a->range), b, sizeof b);
  }
  for (size_t i = 0; i < w->nconds; i++) {
    const sm_condition *c = &w->conds[i];
    h = mix_str(mix_str(mix_str(mix_str(h, c->code), c->message), c->subject), c->flag);
    int v[3] = {(int)c->level, c->file, c->missing};
    h = mix_range(pd_hash(h, v, sizeof v), c->range);
    for (size_t k = 0; k < c->nwords; k++) h = mix_str(h, c->words[k]);
  }
  for (size_t i = 0; i < w->train.n; i++) {
    const sh_field *f = &w->train.v[i];
    h = mix_str(mix_str(mix_str(h, f->text), f->group), f->cert_var);
    int v[5] = {f->resolved, (int)f->cert, f->file, f->conditional, f->vanished};
    h = mix_range(pd_hash(h, v, sizeof v), f->range);
  }
  for (size_t i = 0; i < w->nfslog; i++) {
    h = mix_str(h, w->fslog[i].path);
    int v[3] = {(int)w->fslog[i].kind, w->fslog[i].ok, w->fslog[i].err};
    h = pd_hash(h, v, sizeof v);
  }
  h = mix_str(h, w->model);
  int v[6] = {w->source_file, w->train_found, w->train_file, w->defined_model_args,
              (int)w->syntax_conds, (int)(w->loop_budget & 0x7fffffff)};
  return mix_range(mix_range(pd_hash(h, v, sizeof v), w->source_range), w->train_range);
}

/* A builder for path's text at the top (no model yet). */
static void builder_start(sm_builder *b, const char *path, const char *text, size_t len,
                          const TSTree *tree, const sm_options *opt) {
  *b = (sm_builder){.opt = opt, .parser = sm_parser_new(), .path_cert = SM_CERT_LITERAL};
  b->w.loop_budget = SM_MAX_LOOP_ITER;
  b->w.train_file = -1;
  b->w.source_file = -1;
  b->w.env = sh_env_new();
  launch_environment(b);
  sm_add_file(&b->w, sm_path_absolute(path ? path : "script.sh"), pd_xstrndup(text, len), len, -1,
              (sm_range){0});
  if (b->parser)
    b->w.trees[0] = sm_tree_ref_new(tree ? ts_tree_copy(tree)
                                         : ts_parser_parse_string(b->parser, NULL, b->w.files[0].text,
                                                                  (uint32_t)len));
}

/* Whether a walk from the top leaves the state the resumed build b left (sm_resume.verify). */
static bool same_as_fresh(const sm_builder *b, const char *path, const char *text, size_t len,
                          const TSTree *tree) {
  sm_options o = *b->opt;
  o.resume = NULL;
  sm_builder f;
  builder_start(&f, path, text, len, tree, &o);
  if (f.parser) sm_walk_script(&f);
  bool same = walk_digest(&f.w) == walk_digest(&b->w);
  sm_walk_free(&f.w);
  free(f.stack);
  free(f.test_unset);
  if (f.parser) ts_parser_delete(f.parser);
  return same;
}

sm_model *sm_build(const char *path, const char *text, size_t len, const TSTree *tree,
                   const sm_options *opt) {
  static const sm_options defaults = {0};
  sm_model *m = pd_xcalloc(1, sizeof *m);
  sm_builder b;
  builder_start(&b, path, text, len, tree, opt ? opt : &defaults);
  if (!b.parser) {
    sm_add_cond(&b, SM_ERROR, "grammar", 0, (sm_range){0},
                pd_xstrdup("the tree-sitter runtime rejected the bash grammar (ABI mismatch)"));
  } else {
    sm_walk_script(&b);
    sm_resume *r = b.opt->resume;
#ifndef NDEBUG
    if (r) r->verify = true;
#endif
    if (r && r->verify && (r->resumed || r->replayed)) {
      r->verified_same = same_as_fresh(&b, path, text, len, tree);
#ifndef NDEBUG
      assert(r->verified_same && "a resumed walk left another state than a fresh one");
#endif
    }
    if (b.w.train_found) {
      sm_build_flags(&b, m, &b.w.train);
      sm_flags_set_later(&b, m);
    }
    else flags_without_train_line(&b, m);
    if (b.opt->catalog) sm_check_argv(&b, m, b.opt->catalog);
  }
  sh_env *env = b.w.env;
  size_t syntax_errors = b.w.syntax_conds;
  take_walk(m, &b.w);
  m->launch_script = is_launch_script(m, syntax_errors);
  sm_state_context(m, b.opt);
  if (b.parser) sm_collect_vars(m, env);
  sm_walk_free(&b.w);
  free(b.stack);
  free(b.test_unset);
  free(b.fork_remote);
  if (b.parser) ts_parser_delete(b.parser);
  return m;
}

void sm_model_free(sm_model *m) {
  if (!m) return;
  pd_map_free(&m->flag_index);
  pd_map_free(&m->broken);
  files_free(m->files, m->nfiles);
  for (size_t i = 0; i < m->nflags; i++) {
    sm_flag *f = &m->flags[i];
    free(f->name);
    for (size_t j = 0; j < f->nvalues; j++) {
      free(f->values[j].text);
      free(f->values[j].cert_var);
      free(f->values[j].unset_var);
    }
    free(f->values);
    free(f->group);
    free(f->note);
    json_decref(f->json);
  }
  free(m->flags);
  sm_arrays_free(m->arrays, m->narrays);
  sm_conds_free(m->conds, m->nconds);
  sm_refs_pending_free(m);
  free(m->refs);
  free(m->reach);
  free(m->ref_names);
  for (size_t i = 0; i < m->nvars; i++) {
    free(m->vars[i].name);
    free(m->vars[i].value);
  }
  free(m->vars);
  sm_context *c = &m->ctx;
  free(c->model);
  free(c->gpu);
  free(c->name_device);
  free(c->name_model);
  free(c->name_size);
  free(c->name_suffixes);
  free(m);
}
