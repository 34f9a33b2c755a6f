#include "lsp/codeaction.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/profile.h"
#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"
#include "script/bashsym.h"

/* An edit in one file of the analysis, in bytes of the text the analyzer read. */
typedef struct {
  int file;
  size_t start, end;
  const char *text;
  size_t order; /* inserts at one place apply in the order they were given */
} edit;

typedef struct {
  edit *items;
  size_t n, cap;
} edit_list;

static void act_push_edit(edit_list *l, int file, size_t start, size_t end, const char *text) {
  edit *e = PD_PUSH(l->items, l->n, l->cap);
  e->file = file;
  e->start = start;
  e->end = end < start ? start : end;
  e->text = text;
  e->order = l->n;
}

static bool kind_wanted(const json_t *only, const char *kind) {
  if (!json_is_array(only) || json_array_size(only) == 0) return true;
  size_t i;
  json_t *v;
  json_array_foreach(only, i, v) {
    const char *o = json_string_value(v);
    if (!o) continue;
    size_t n = strlen(o);
    if (!strncmp(kind, o, n) && (kind[n] == '\0' || kind[n] == '.')) return true;
  }
  return false;
}

/* ERROR and missing nodes under n; a cursor walks the children (ts_node_child is O(index)). */
static size_t count_errors(TSNode n) {
  if (!ts_node_has_error(n)) return 0;
  size_t c = (ts_node_is_missing(n) || bs_is(n, BS_ERROR)) ? 1 : 0;
  TSTreeCursor cur = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do c += count_errors(ts_tree_cursor_current_node(&cur));
    while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  ts_tree_cursor_delete(&cur);
  return c;
}

static size_t syntax_errors(TSParser *p, const char *text, size_t len) {
  TSTree *t = ts_parser_parse_string(p, NULL, text, (uint32_t)len);
  if (!t) return (size_t)-1;
  size_t c = count_errors(ts_tree_root_node(t));
  ts_tree_delete(t);
  return c;
}

static int by_start(const void *a, const void *b) {
  const edit *x = a, *y = b;
  if (x->file != y->file) return x->file < y->file ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Text of `file` with the list's edits to it applied (sorted, non-overlapping). Caller frees. */
static char *apply(const fm_map *m, int file, const edit_list *l, size_t *len) {
  const fm_file *f = &m->files[file];
  pd_buf b = {0};
  size_t at = 0;
  for (size_t i = 0; i < l->n; i++) {
    const edit *e = &l->items[i];
    if (e->file != file) continue;
    pd_buf_append(&b, f->text + at, e->start - at);
    pd_buf_puts(&b, e->text);
    at = e->end;
  }
  pd_buf_append(&b, f->text + at, f->len - at);
  *len = b.len;
  return pd_buf_take(&b);
}

/* What checking edits needs: the parser, and each file's syntax error count before any edit
 * (counted once per analysis, on first use). */
typedef struct {
  TSParser *parser;
  size_t *errors_before; /* per file; SIZE_MAX = not counted yet */
} checker;

struct act_cache {
  size_t *errors_before; /* per file, see checker */
  json_t *per_finding;   /* array: actions of finding i, or null until built */
  json_t *profiling;     /* the profiling action (0 or 1), NULL until built */
  json_t *fix_all;       /* file index (as text) -> its fix-all action (0 or 1) */
};

act_cache *act_cache_new(const fm_map *m, size_t nfindings) {
  act_cache *c = pd_xcalloc(1, sizeof *c);
  c->errors_before = pd_xmalloc((m->nfiles ? m->nfiles : 1) * sizeof(size_t));
  for (size_t i = 0; i < m->nfiles; i++) c->errors_before[i] = SIZE_MAX;
  c->per_finding = json_array();
  for (size_t i = 0; i < nfindings; i++) json_array_append_new(c->per_finding, json_null());
  c->fix_all = json_object();
  return c;
}

void act_cache_free(act_cache *c) {
  if (!c) return;
  free(c->errors_before);
  json_decref(c->per_finding);
  json_decref(c->profiling);
  json_decref(c->fix_all);
  free(c);
}

/* Sorts the list and checks it: in range, no overlaps, and every edited file parses with no
 * more syntax errors than before. */
static bool edits_ok(const fm_map *m, edit_list *l, checker *ck) {
  if (l->n == 0) return false;
  qsort(l->items, l->n, sizeof *l->items, by_start);
  for (size_t i = 0; i < l->n; i++) {
    const edit *e = &l->items[i];
    if (e->file < 0 || (size_t)e->file >= m->nfiles || e->end > m->files[e->file].len) return false;
    if (i > 0 && l->items[i - 1].file == e->file && l->items[i - 1].end > e->start) return false;
  }
  for (size_t i = 0; i < l->n; i++) {
    if (i > 0 && l->items[i - 1].file == l->items[i].file) continue;
    int file = l->items[i].file;
    size_t len;
    char *t = apply(m, file, l, &len);
    size_t after = syntax_errors(ck->parser, t, len);
    if (ck->errors_before[file] == SIZE_MAX)
      ck->errors_before[file] = syntax_errors(ck->parser, m->files[file].text, m->files[file].len);
    size_t before = ck->errors_before[file];
    free(t);
    if (after == (size_t)-1 || after > before) return false;
  }
  return true;
}

/* {"changes": {uri: [TextEdit...]}} */
static json_t *workspace_edit(const fm_map *m, const edit_list *l) {
  json_t *changes = json_object();
  for (size_t i = 0; i < l->n; i++) {
    const edit *e = &l->items[i];
    sm_range r = {0};
    r.start_byte = (uint32_t)e->start;
    r.end_byte = (uint32_t)e->end;
    const char *uri = fm_uri(m, e->file);
    json_t *arr = json_object_get(changes, uri);
    if (!arr) {
      arr = json_array();
      json_object_set_new(changes, uri, arr);
    }
    json_array_append_new(arr, json_pack("{s:o,s:o}", "range", fm_range(m, e->file, r), "newText",
                                         fm_string(e->text)));
  }
  return json_pack("{s:o}", "changes", changes);
}

static json_t *action(const char *title, const char *kind, json_t *wedit) {
  return json_pack("{s:o,s:s,s:o}", "title", fm_string(title), "kind", kind, "edit", wedit);
}

static bool act_overlaps(size_t a, size_t b, sm_range r) { return r.start_byte <= b && a <= r.end_byte; }

static void finding_edits(const au_finding *f, edit_list *l) {
  for (size_t k = 0; k < f->nedits; k++) {
    const au_edit *e = &f->edits[k];
    act_push_edit(l, e->file, e->range.start_byte, e->range.end_byte, e->new_text ? e->new_text : "");
  }
}

static void quick_fix(json_t *out, const au_result *r, const au_finding *f, const fm_map *m,
                      const act_options *o,
                      checker *ck) {
  edit_list l = {0};
  finding_edits(f, &l);
  if (edits_ok(m, &l, ck)) {
    const char *args[1] = {f->rule};
    char *title = f->fix_title && *f->fix_title ? pd_xstrdup(f->fix_title)
                                                  : au_text(r->rules, AU_MSG_UI_ACTION_APPLY, o->lang, args);
    json_t *a = action(title, "quickfix", workspace_edit(m, &l));
    json_object_set_new(a, "diagnostics", json_pack("[o]", dg_finding(r, f, m, o->dg)));
    if (f->preferred) json_object_set_new(a, "isPreferred", json_true());
    json_array_append_new(out, a);
    free(title);
  }
  free(l.items);
}

/* The k-th occurrence (0-based) of `name` in file `file`, or NULL. */
static const sm_flag *nth_flag(const sm_model *m, const char *name, int file, size_t k) {
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *f = &m->flags[i];
    if (f->file == file && !strcmp(f->name, name) && k-- == 0) return f;
  }
  return NULL;
}

static size_t line_start(const fm_file *f, size_t at) {
  while (at > 0 && f->text[at - 1] != '\n') at--;
  return at;
}

static char *indent_of(const fm_file *f, size_t start) {
  size_t e = start;
  while (e < f->len && (f->text[e] == ' ' || f->text[e] == '\t')) e++;
  return pd_xstrndup(f->text + start, e - start);
}

/* A reader that answers one file (normalised path) with edited text, and the rest as before. */
typedef struct {
  const char *path, *text;
  size_t len;
  const sm_reader *inner;
} override_reader;

static char *override_read(void *ctx, const char *path, size_t *len) {
  const override_reader *o = ctx;
  char *n = pd_path_normalize(path);
  bool hit = !strcmp(n, o->path);
  free(n);
  if (hit) {
    *len = o->len;
    return pd_xstrndup(o->text, o->len);
  }
  return o->inner ? o->inner->read(o->inner->ctx, path, len) : pd_read_file(path, PD_MAX_FILE_BYTES, len);
}

/* The script's model after replacing file `file`'s text. Caller frees. */
static sm_model *rebuild(const sm_model *model, const fm_map *m, int file, const char *text, size_t len,
                         const sm_options *opt) {
  if (file == 0) return sm_build(model->files[0].path, text, len, NULL, opt);
  override_reader o = {m->files[file].path, text, len, opt->reader};
  sm_reader r = {override_read, &o};
  sm_options changed = *opt;
  changed.reader = &r;
  return sm_build(model->files[0].path, model->files[0].text, model->files[0].len, NULL, &changed);
}

static int file_index(const sm_model *after, const char *norm_path) {
  for (size_t i = 0; i < after->nfiles; i++) {
    if (!after->files[i].path) continue;
    char *n = pd_path_normalize(after->files[i].path);
    bool same = !strcmp(n, norm_path);
    free(n);
    if (same) return (int)i;
  }
  return -1;
}

/* "Add a NOTE to accept this setting": a `# NOTE(perf-doctor): ...` line above the flag, or, for a
 * flag on a continued command line (where a comment line would cut the command), above the
 * command. Offered only where the rebuilt model attaches the NOTE to that very flag and keeps
 * every flag. */
static void note_fix(json_t *out, const au_result *r, const au_finding *f, const fm_map *m,
                     const act_options *o, checker *ck) {
  const sm_model *model = r->model;
  /* A critical finding stops the job from starting: there is no accepting it. */
  if (f->severity == AU_CRITICAL || !f->flag || f->file < 0 || (size_t)f->file >= m->nfiles ||
      !model->files[0].path || (f->file != 0 && !m->files[f->file].path))
    return;
  /* The occurrence the finding points at, and its ordinal among the same flag's occurrences. */
  size_t k = 0;
  const sm_flag *occ = NULL;
  for (size_t i = 0; i < model->nflags; i++) {
    const sm_flag *g = &model->flags[i];
    if (g->file != f->file || strcmp(g->name, f->flag) != 0) continue;
    if (act_overlaps(f->range.start_byte, f->range.end_byte, g->full)) {
      occ = g;
      break;
    }
    k++;
  }
  if (!occ || occ->note) return;
  const fm_file *file = &m->files[f->file];
  size_t spots[2] = {line_start(file, occ->range.start_byte), (size_t)-1};
  if (model->train_line_found && model->train_file == f->file && !occ->group)
    spots[1] = line_start(file, model->train_range.start_byte);
  for (int s = 0; s < 2; s++) {
    if (spots[s] == (size_t)-1 || (s == 1 && spots[1] == spots[0])) continue;
    char *indent = indent_of(file, spots[s]);
    const char *args[1] = {f->rule};
    char *note = au_text(r->rules, AU_MSG_UI_ACTION_NOTE_TEXT, o->lang, args);
    char *text = pd_xasprintf("%s# %s\n", indent, note);
    free(note);
    free(indent);
    edit_list l = {0}, probe = {0};
    act_push_edit(&l, f->file, spots[s], spots[s], text);
    /* the placeholder (`<...>` at the end, in any language) is no reason (the model does not
     * take it as one): the check fills it */
    const char *lt = strrchr(text, '<');
    char *filled = lt ? pd_xasprintf("%.*sreason\n", (int)(lt - text), text) : pd_xstrdup(text);
    act_push_edit(&probe, f->file, spots[s], spots[s], filled);
    bool ok = edits_ok(m, &l, ck);
    if (ok) {
      size_t len;
      char *t = apply(m, f->file, &probe, &len);
      sm_model *after = rebuild(model, m, f->file, t, len, o->sm);
      int af = f->file == 0 ? 0 : file_index(after, m->files[f->file].path);
      const sm_flag *same = af < 0 ? NULL : nth_flag(after, f->flag, af, k);
      ok = after->nflags == model->nflags && same && same->note;
      sm_model_free(after);
      free(t);
    }
    if (ok) {
      char *title = au_text(r->rules, AU_MSG_UI_ACTION_NOTE, o->lang, args);
      json_t *a = action(title, "quickfix", workspace_edit(m, &l));
      json_object_set_new(a, "diagnostics", json_pack("[o]", dg_finding(r, f, m, o->dg)));
      json_array_append_new(out, a);
      free(title);
    }
    free(l.items);
    free(probe.items);
    free(filled);
    free(text);
    if (ok) break;
  }
}

/* Whether the rebuilt model reads the plan's flags as the plan writes them, and nothing else
 * changed: every flag added, none lost. */
static bool block_read_back(const sm_model *before, const sm_model *after, const au_profile *p) {
  size_t added = 0;
  for (size_t i = 0; i < AU_PROF_NFLAGS; i++) {
    const sm_flag *f = sm_flag_get(after, p->flags[i].flag);
    const char *v = sm_flag_str(after, p->flags[i].flag);
    if (!f || f->conditional || !v || strcmp(v, p->flags[i].value) != 0) return false;
    added++;
  }
  return after->nflags == before->nflags + added;
}

/* The profiling plan of audit/profile.h as an edit: its flags after the last flag of the script
 * that reaches the train command. */
static void profiling_block(json_t *out, const au_result *r, const fm_map *m, const act_options *o,
                            checker *ck) {
  const sm_model *model = r->model;
  if (!model->train_line_found || !model->files[0].path || sm_flag_get(model, "--use-pytorch-profiler"))
    return;
  const sm_flag *last = NULL;
  for (size_t i = 0; i < model->nflags; i++) {
    const sm_flag *f = &model->flags[i];
    if (f->file == 0 && !f->conditional) last = f;
  }
  if (!last) return;
  au_profile *p = au_profile_plan(model, r->facts);
  const fm_file *file = &m->files[0];
  char *indent = indent_of(file, line_start(file, last->range.start_byte));
  char *block = au_profile_block(p, last->group ? "\n" : " \\\n", indent); /* array items vs a continued line */
  free(indent);
  edit_list l = {0};
  act_push_edit(&l, 0, last->full.end_byte, last->full.end_byte, block);
  bool ok = edits_ok(m, &l, ck);
  if (ok) {
    size_t len;
    char *t = apply(m, 0, &l, &len);
    sm_model *after = sm_build(model->files[0].path, t, len, NULL, o->sm);
    ok = block_read_back(model, after, p);
    sm_model_free(after);
    free(t);
  }
  if (ok) {
    char *title = au_profile_title(p, r->rules, o->lang);
    json_array_append_new(out, action(title, "refactor.rewrite", workspace_edit(m, &l)));
    free(title);
  }
  free(l.items);
  free(block);
  au_profile_free(p);
}

static void fix_all(json_t *out, const au_result *r, int file, const fm_map *m, const char *lang,
                    checker *ck) {
  edit_list l = {0};
  size_t fixed = 0;
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    if (!f->safe || f->nedits == 0 || f->file != file) continue;
    edit_list mine = {0};
    finding_edits(f, &mine);
    bool clash = false;
    for (size_t a = 0; a < mine.n && !clash; a++)
      for (size_t b = 0; b < l.n && !clash; b++)
        clash = mine.items[a].file == l.items[b].file && mine.items[a].start <= l.items[b].end &&
                l.items[b].start <= mine.items[a].end;
    for (size_t a = 0; a < mine.n && !clash; a++)
      act_push_edit(&l, mine.items[a].file, mine.items[a].start, mine.items[a].end, mine.items[a].text);
    if (!clash) fixed++;
    free(mine.items);
  }
  if (fixed > 0 && edits_ok(m, &l, ck)) {
    char n[24];
    snprintf(n, sizeof n, "%zu", fixed);
    const char *args[1] = {n};
    char *title = au_text(r->rules, AU_MSG_UI_ACTION_FIX_ALL, lang, args);
    json_array_append_new(out, action(title, "source.fixAll.perfDoctor", workspace_edit(m, &l)));
    free(title);
  }
  free(l.items);
}

/* Appends every element of `from` to `to` (shared, not copied). */
static void append_all(json_t *to, const json_t *from) {
  size_t i;
  json_t *v;
  json_array_foreach(from, i, v) json_array_append(to, v);
}

json_t *act_actions(const au_result *r, const fm_map *m, int file, size_t a, size_t b,
                    const act_options *o, act_cache *cache) {
  json_t *out = json_array();
  if (!r->model || file < 0 || (size_t)file >= m->nfiles) return out;
  checker ck_ = {o->parser, cache->errors_before}, *ck = &ck_;
  if (kind_wanted(o->only, "quickfix")) {
    for (size_t i = 0; i < r->nfindings; i++) {
      const au_finding *f = &r->findings[i];
      if (f->file != file || !act_overlaps(a, b, f->range)) continue;
      json_t *mine = json_array_get(cache->per_finding, i);
      if (json_is_null(mine)) {
        mine = json_array();
        if (f->nedits > 0) quick_fix(mine, r, f, m, o, ck);
        note_fix(mine, r, f, m, o, ck);
        json_array_set_new(cache->per_finding, i, mine);
      }
      append_all(out, mine);
    }
  }
  if (file == 0 && kind_wanted(o->only, "refactor.rewrite")) {
    if (!cache->profiling) {
      cache->profiling = json_array();
      profiling_block(cache->profiling, r, m, o, ck);
    }
    append_all(out, cache->profiling);
  }
  if (kind_wanted(o->only, "source.fixAll.perfDoctor")) {
    char key[24];
    snprintf(key, sizeof key, "%d", file);
    json_t *mine = json_object_get(cache->fix_all, key);
    if (!mine) {
      mine = json_array();
      fix_all(mine, r, file, m, o->lang, ck);
      json_object_set_new(cache->fix_all, key, mine);
    }
    append_all(out, mine);
  }
  return out;
}
