/* resume: the language server's keystroke path (see sm_resume in script.h). A build leaves a
 * checkpoint, a copy of its walk state (sm_walk) before the top-level statement being edited;
 * the next build restores it instead of walking from the top. The statements after the edit
 * are replayed from memos of the last build when they are unchanged and find the same state. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "script/sm_int.h"

/* ---- statement memos: replaying what an unchanged statement did ------------------------- */

/* A top-level statement of the script and its effect, as the last build walked it: the names it
 * looked up (with the state it found), and what it left behind. After an edit, a statement
 * whose text is unchanged (it lies after the edit) and which finds the same state again has the
 * same effect: it is replayed instead of walked. Ranges inside the statement are stored
 * relative to it (REL marks them), so a statement that moved with the text still replays. */
#define REL 0x80000000u

typedef struct {
  uint32_t start, end, line, col; /* where the statement is, in the text of the store */
  TSSymbol symbol;
  size_t loop_before, loop_after;
  sh_dep *reads;
  size_t nreads;
  sh_saved **writes;
  size_t nwrites;
  sm_array *arrays; /* pushed to the model, ranges relative */
  size_t narrays;
  sm_condition *conds;
  size_t nconds;
  sm_ref *refs;     /* names owned by the memo, ranges relative */
  size_t nrefs;
  bool defined_model_args;
} memo;

struct sm_memo_store {
  char *text; /* the script's text the positions refer to */
  size_t len, nlines;
  memo **v;   /* by start; NULL once moved to a newer store */
  size_t n, cap;
};

typedef struct {
  uint32_t start, end, line;
} stmt_frame;

static void range_to_rel(void *ctx, int file, sm_range *r) {
  const stmt_frame *f = ctx;
  if (file != 0 || (r->start_byte & REL) || r->start_byte < f->start || r->end_byte > f->end) return;
  r->start_byte = (r->start_byte - f->start) | REL;
  r->end_byte -= f->start;
  r->start_line -= f->line;
  r->end_line -= f->line;
}

static void range_to_abs(void *ctx, int file, sm_range *r) {
  const stmt_frame *f = ctx;
  if (file != 0 || !(r->start_byte & REL)) return;
  r->start_byte = (r->start_byte & ~REL) + f->start;
  r->end_byte += f->start;
  r->start_line += f->line;
  r->end_line += f->line;
}

static void memo_free(memo *x) {
  if (!x) return;
  for (size_t i = 0; i < x->nreads; i++) free(x->reads[i].name);
  free(x->reads);
  for (size_t i = 0; i < x->nwrites; i++) sh_saved_free(x->writes[i]);
  free(x->writes);
  sm_arrays_free(x->arrays, x->narrays);
  sm_conds_free(x->conds, x->nconds);
  for (size_t i = 0; i < x->nrefs; i++) free((char *)x->refs[i].name);
  free(x->refs);
  free(x);
}

static sm_memo_store *sm_memo_store_new(const sm_file *f) {
  sm_memo_store *st = pd_xcalloc(1, sizeof *st);
  st->text = pd_xstrndup(f->text, f->len);
  st->len = f->len;
  st->nlines = f->nlines;
  return st;
}

static void sm_memo_store_free(sm_memo_store *st) {
  if (!st) return;
  for (size_t i = 0; i < st->n; i++) memo_free(st->v[i]);
  free(st->v);
  free(st->text);
  free(st);
}

/* Where the last store's statements are now: text after the edited region moved by delta bytes
 * and dlines lines; new_tail is where the unchanged tail starts in this build's text. */
typedef struct {
  sm_memo_store *old;
  long long delta, dlines;
  uint32_t new_tail;
  size_t next; /* memo_find's position in old */
} memo_map;

static void memo_map_init(memo_map *mm, sm_memo_store *old, const sm_file *now) {
  mm->old = old;
  size_t max = old->len < now->len ? old->len : now->len, q = 0;
  const char *a = old->text + old->len, *b = now->text + now->len;
  while (q + 4096 <= max && !memcmp(a - q - 4096, b - q - 4096, 4096)) q += 4096;
  while (q < max && a[-(long)q - 1] == b[-(long)q - 1]) q++;
  mm->delta = (long long)now->len - (long long)old->len;
  mm->dlines = (long long)now->nlines - (long long)old->nlines;
  mm->new_tail = (uint32_t)(now->len - q);
}

/* The last store's statement starting at `start`; asked in increasing order of start. */
static memo *memo_find(memo_map *mm, uint32_t start, size_t *at) {
  const sm_memo_store *st = mm->old;
  while (mm->next < st->n && (!st->v[mm->next] || st->v[mm->next]->start < start)) mm->next++;
  if (mm->next < st->n && st->v[mm->next]->start == start) {
    *at = mm->next;
    return st->v[mm->next];
  }
  return NULL;
}

/* Replays child ch from the last store when it is unchanged and finds the same state; the memo
 * then moves to `fresh`. */
static bool memo_replay(sm_builder *b, memo_map *mm, TSNode ch, sm_memo_store *fresh) {
  uint32_t ns = ts_node_start_byte(ch), ne = ts_node_end_byte(ch);
  if (ns < mm->new_tail) return false;
  size_t at;
  memo *x = memo_find(mm, (uint32_t)((long long)ns - mm->delta), &at);
  TSPoint p = ts_node_start_point(ch);
  if (!x || (long long)x->end + mm->delta != ne || x->symbol != ts_node_symbol(ch) ||
      (long long)x->line + mm->dlines != p.row || x->col != p.column ||
      x->loop_before != b->w.loop_budget)
    return false;
  for (size_t i = 0; i < x->nreads; i++)
    if (!sh_dep_holds(b->w.env, &x->reads[i])) return false;
  stmt_frame fr = {ns, ne, p.row};
  for (size_t i = 0; i < x->nwrites; i++) sh_restore(b->w.env, x->writes[i], range_to_abs, &fr);
  for (size_t i = 0; i < x->narrays; i++) {
    sm_array *a = PD_PUSH(b->w.arrays, b->w.narrays, b->w.arrays_cap);
    sm_arrays_copy(a, &x->arrays[i], 1);
    range_to_abs(&fr, a->file, &a->range);
  }
  for (size_t i = 0; i < x->nconds; i++) {
    sm_condition *c = PD_PUSH(b->w.conds, b->w.nconds, b->w.conds_cap);
    sm_conds_copy(c, &x->conds[i], 1);
    range_to_abs(&fr, c->file, &c->range);
    if (c->opener) range_to_abs(&fr, c->file, &c->opened);
    if (c->code && !strcmp(c->code, "syntax")) b->w.syntax_conds++; /* as the walk counts them */
  }
  for (size_t i = 0; i < x->nrefs; i++) {
    sm_ref *r = PD_PUSH(b->w.refs, b->w.nrefs, b->w.refs_cap);
    *r = x->refs[i];
    r->name = sh_intern(b->w.env, r->name, strlen(r->name));
    range_to_abs(&fr, r->file, &r->range);
    range_to_abs(&fr, r->file, &r->whole);
  }
  if (x->defined_model_args) b->w.defined_model_args = true;
  b->w.loop_budget = x->loop_after;
  mm->old->v[at] = NULL;
  x->start = ns;
  x->end = ne;
  x->line = p.row;
  *PD_PUSH(fresh->v, fresh->n, fresh->cap) = x;
  return true;
}

/* Walks child ch recording what it depends on and what it does, into `fresh`. */
static void memo_walk(sm_builder *b, TSNode ch, sm_memo_store *fresh) {
  size_t arrays0 = b->w.narrays, conds0 = b->w.nconds, refs0 = b->w.nrefs, loop0 = b->w.loop_budget;
  bool dma0 = b->w.defined_model_args; /* only follow_source reads it, and is never replayed */
  b->unrepeatable = false;
  sh_track_begin(b->w.env);
  sm_walk_node(b, 0, ch, false);
  memo *x = pd_xcalloc(1, sizeof *x);
  sh_write *writes;
  if (!sh_track_end(b->w.env, !b->unrepeatable, &x->reads, &x->nreads, &writes, &x->nwrites))
    b->unrepeatable = true;
  bool dma = !dma0 && b->w.defined_model_args;
  if (b->unrepeatable) {
    for (size_t i = 0; i < x->nwrites; i++) free(writes[i].name);
    free(writes);
    x->nwrites = 0;
    memo_free(x);
    return;
  }
  TSPoint p = ts_node_start_point(ch);
  x->start = ts_node_start_byte(ch);
  x->end = ts_node_end_byte(ch);
  x->line = p.row;
  x->col = p.column;
  x->symbol = ts_node_symbol(ch);
  x->loop_before = loop0;
  x->loop_after = b->w.loop_budget;
  x->defined_model_args = dma;
  stmt_frame fr = {x->start, x->end, x->line};
  x->writes = pd_xmalloc((x->nwrites ? x->nwrites : 1) * sizeof *x->writes);
  for (size_t i = 0; i < x->nwrites; i++) {
    x->writes[i] = sh_save(b->w.env, &writes[i], range_to_rel, &fr);
    free(writes[i].name);
  }
  free(writes);
  x->narrays = b->w.narrays - arrays0;
  x->arrays = pd_xmalloc((x->narrays ? x->narrays : 1) * sizeof *x->arrays);
  if (x->narrays) sm_arrays_copy(x->arrays, b->w.arrays + arrays0, x->narrays); /* may be NULL */
  for (size_t i = 0; i < x->narrays; i++) range_to_rel(&fr, x->arrays[i].file, &x->arrays[i].range);
  x->nconds = b->w.nconds - conds0;
  x->conds = pd_xmalloc((x->nconds ? x->nconds : 1) * sizeof *x->conds);
  if (x->nconds) sm_conds_copy(x->conds, b->w.conds + conds0, x->nconds);
  for (size_t i = 0; i < x->nconds; i++) {
    range_to_rel(&fr, x->conds[i].file, &x->conds[i].range);
    if (x->conds[i].opener) range_to_rel(&fr, x->conds[i].file, &x->conds[i].opened);
  }
  x->nrefs = b->w.nrefs - refs0;
  x->refs = pd_xmalloc((x->nrefs ? x->nrefs : 1) * sizeof *x->refs);
  for (size_t i = 0; i < x->nrefs; i++) {
    x->refs[i] = b->w.refs[refs0 + i];
    x->refs[i].name = pd_xstrdup(x->refs[i].name);
    range_to_rel(&fr, x->refs[i].file, &x->refs[i].range);
    range_to_rel(&fr, x->refs[i].file, &x->refs[i].whole);
  }
  *PD_PUSH(fresh->v, fresh->n, fresh->cap) = x;
}

/* ---- checkpoints: resuming a build at a top-level statement ------------------------------- */

#define MAX_PINNED 8 /* older script trees a checkpoint keeps alive; beyond, build from the top */

struct sm_checkpoint {
  char *path;              /* the script */
  char *options;           /* the options the walk depends on, as one string */
  uint32_t index;          /* child of the script's root to resume at */
  uint32_t start_byte;     /* where that child starts */
  TSNode before[2];        /* the children just before it (nodes of w.trees[0]; null when none) */
  sm_walk w;               /* the walk state before that child (sm_walk_save) */
  sm_memo_store *memo;        /* the statements from `index` on, as the last build left them */
};

static char *options_key(const sm_builder *b) {
  const sm_options *o = b->opt;
  return pd_xasprintf("%s\n%s\n%zu\n%d", o->model_config_dir ? o->model_config_dir : "",
                      o->workspace_root ? o->workspace_root : "", o->max_file_bytes,
                      o->reader != NULL);
}

void sm_checkpoint_free(sm_checkpoint *c) {
  if (!c) return;
  free(c->path);
  free(c->options);
  sm_walk_free(&c->w);
  sm_memo_store_free(c->memo);
  free(c);
}

/* The builder's state before child `index` (starting at start_byte) of the script's root. Only
 * called at the script's top level: no call, loop or nested source is in progress. */
static sm_checkpoint *checkpoint_take(const sm_builder *b, uint32_t index, uint32_t start_byte,
                                      const TSNode before[2]) {
  sm_checkpoint *c = pd_xcalloc(1, sizeof *c);
  c->path = pd_xstrdup(b->w.files[0].path);
  c->options = options_key(b);
  c->index = index;
  c->start_byte = start_byte;
  c->before[0] = before[0];
  c->before[1] = before[1];
  sm_walk_save(&c->w, &b->w);
  return c;
}

/* Moves cur (at the root) to the root's child starting at `start`; false when none does. */
static bool goto_child_at(TSTreeCursor *cur, uint32_t start) {
  /* goto_first_child_for_byte skips children by their extent: far cheaper than stepping. Asked
   * for a child's first byte, tree-sitter 0.20 sometimes misses it (padding); its second byte
   * works, and the start is checked anyway. */
  if (ts_tree_cursor_goto_first_child_for_byte(cur, start + 1) < 0) return false;
  return ts_node_start_byte(ts_tree_cursor_current_node(cur)) == start;
}

/* Same node kinds, extents and shapes throughout (the texts are known to be equal). */
static bool same_shape(TSNode a, TSNode b) {
  TSTreeCursor ca = ts_tree_cursor_new(a), cb = ts_tree_cursor_new(b);
  bool same = true;
  for (;;) {
    TSNode x = ts_tree_cursor_current_node(&ca), y = ts_tree_cursor_current_node(&cb);
    if (ts_node_symbol(x) != ts_node_symbol(y) || ts_node_start_byte(x) != ts_node_start_byte(y) ||
        ts_node_end_byte(x) != ts_node_end_byte(y) ||
        ts_node_child_count(x) != ts_node_child_count(y) ||
        ts_node_is_missing(x) != ts_node_is_missing(y)) {
      same = false;
      break;
    }
    if (ts_tree_cursor_goto_first_child(&ca)) { /* equal child counts: cb follows */
      ts_tree_cursor_goto_first_child(&cb);
      continue;
    }
    bool done = false;
    while (!ts_tree_cursor_goto_next_sibling(&ca)) {
      if (!ts_tree_cursor_goto_parent(&ca)) {
        done = true;
        break;
      }
      ts_tree_cursor_goto_parent(&cb);
    }
    if (done) break;
    ts_tree_cursor_goto_next_sibling(&cb);
  }
  ts_tree_cursor_delete(&ca);
  ts_tree_cursor_delete(&cb);
  return same;
}

/* The same script under the same options. */
static bool checkpoint_same_script(const sm_builder *b, const sm_checkpoint *c) {
  if (strcmp(c->path, b->w.files[0].path) != 0) return false;
  char *key = options_key(b);
  bool same = !strcmp(key, c->options);
  free(key);
  return same;
}

/* Whether the build can start at c: `cur` is a cursor at the script's root, left at the
 * checkpoint's child when it can. The statements just before that child are compared with the
 * checkpoint's tree too: the parser's lookahead past a statement's end is a byte or two, so an
 * edit at or after the checkpoint can change the syntax of the statement just before it. */
static bool checkpoint_fits(sm_builder *b, const sm_checkpoint *c, uint32_t unchanged_before,
                            TSNode root, TSTreeCursor *cur) {
  if (c->start_byte > unchanged_before || !checkpoint_same_script(b, c)) return false;
  for (int k = 0; k < 2; k++) {
    if (ts_node_is_null(c->before[k])) continue;
    TSTreeCursor pc = ts_tree_cursor_new(root);
    bool ok = goto_child_at(&pc, ts_node_start_byte(c->before[k])) &&
              same_shape(c->before[k], ts_tree_cursor_current_node(&pc));
    ts_tree_cursor_delete(&pc);
    if (!ok) return false;
  }
  if (!goto_child_at(cur, c->start_byte)) return false;
  return sm_fslog_holds(b, c->w.fslog, c->w.nfslog);
}

/* The script's top level: like walk_file, but resuming at a checkpoint and leaving one before
 * the statement the user is editing (the one around `focus`, or the first after it). */
void sm_walk_script(sm_builder *b) {
  sm_resume *rs = b->opt->resume;
  TSNode root = ts_tree_root_node(b->w.trees[0]->tree);
  bool clean = !ts_node_has_error(root) && !b->opt->cache;
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool at_child = false;
  uint32_t i = 0;
  TSNode before[2] = {{{0, 0, 0, 0}, NULL, NULL}, {{0, 0, 0, 0}, NULL, NULL}};
  if (rs) rs->resumed = false;
  if (rs && rs->checkpoint && clean &&
      checkpoint_fits(b, rs->checkpoint, rs->unchanged_before, root, &cur)) {
    sm_walk_restore(&b->w, &rs->checkpoint->w);
    i = rs->checkpoint->index;
    before[0] = rs->checkpoint->before[0]; /* nodes of a tree the restore pinned */
    before[1] = rs->checkpoint->before[1];
    at_child = true;
    rs->resumed = true;
  } else {
    ts_tree_cursor_reset(&cur, root);
    sm_syntax(b, 0, root);
    at_child = ts_tree_cursor_goto_first_child(&cur);
  }
  bool want = rs && clean, keep = false;
  sm_checkpoint *taken = NULL;
  memo_map mm = {0};
  if (rs && clean && rs->checkpoint && rs->checkpoint->memo &&
      (rs->resumed || checkpoint_same_script(b, rs->checkpoint)))
    memo_map_init(&mm, rs->checkpoint->memo, &b->w.files[0]);
  sm_memo_store *fresh = NULL; /* statements from the checkpoint on, for the next build */
  size_t replayed = 0;

  *PD_PUSH(b->stack, b->nstack, b->stack_cap) = 0;
  for (; at_child; at_child = ts_tree_cursor_goto_next_sibling(&cur), i++) {
    TSNode ch = ts_tree_cursor_current_node(&cur);
    if (want && ts_node_end_byte(ch) > rs->focus) { /* the first child reaching the focus */
      want = false;
      if (rs->resumed && rs->checkpoint->index == i) keep = true;
      else if (b->w.npinned < MAX_PINNED)
        taken = checkpoint_take(b, i, ts_node_start_byte(ch), before);
      if (keep || taken) fresh = sm_memo_store_new(&b->w.files[0]);
    }
    if (fresh && ts_node_is_named(ch)) {
      if (mm.old && memo_replay(b, &mm, ch, fresh)) replayed++;
      else memo_walk(b, ch, fresh);
    } else if (ts_node_is_named(ch)) {
      sm_walk_node(b, 0, ch, false);
    }
    before[1] = before[0];
    before[0] = ch;
  }
  if (rs) rs->replayed = replayed;
  sm_checkpoint *final = keep ? rs->checkpoint : taken;
  if (final) {
    sm_memo_store_free(final->memo);
    final->memo = fresh;
  } else {
    sm_memo_store_free(fresh);
  }
  ts_tree_cursor_delete(&cur);
  b->nstack--;
  if (rs && !keep) {
    sm_checkpoint_free(rs->checkpoint);
    rs->checkpoint = taken;
  }
}
