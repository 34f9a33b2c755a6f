/* refs: where the script names its variables, arrays and functions (sm_ref in script.h), for
 * the editor's navigation. The walker records each definition as it runs it and each use as it
 * reaches the statement that holds it; the walk's order is bash's, so at the end the
 * definitions that reach a use are the ones recorded before it: back to the last one that
 * certainly ran. The walk's refs are plain data (their names live in the env's arena), so a
 * checkpoint copies them whole and a statement memo keeps its own. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "base/str.h"
#include "script/bashsym.h"
#include "script/sm_int.h"

#define MAX_SCAN_DEPTH 64

static void push(sm_builder *b, sm_sym_kind kind, sm_ref_role role, bool cond, int file, TSNode name,
                 TSNode whole) {
  size_t len;
  const char *t = sm_node_span(b, file, name, &len);
  if (!len || len > 256) return;
  sm_ref *r = PD_PUSH(b->w.refs, b->w.nrefs, b->w.refs_cap);
  *r = (sm_ref){.name = sh_intern(b->w.env, t, len), .kind = kind, .role = role,
                .conditional = cond, .file = file, .range = sh_node_range(name),
                .whole = sh_node_range(whole)};
}

void sm_ref_def(sm_builder *b, sm_sym_kind kind, sm_ref_role role, bool cond, int file, TSNode name,
                TSNode whole) {
  if (ts_node_is_null(name) || ts_node_is_missing(name)) return;
  push(b, kind, role, cond, file, name, ts_node_is_null(whole) ? name : whole);
}

void sm_ref_name(sm_builder *b, sm_sym_kind kind, sm_ref_role role, int file, TSNode name) {
  if (ts_node_is_null(name) || !bs_is(name, BS_VARIABLE_NAME)) {
    if (ts_node_is_null(name) || kind != SM_SYM_FUNC) return;
  }
  push(b, kind, role, false, file, name, name);
}

/* ${NAME...} / ${NAME[i]...}: the name, then whatever else the braces hold. */
static void scan(sm_builder *b, int file, TSNode n, bool arith, int depth);

static void scan_expansion(sm_builder *b, int file, TSNode n, int depth) {
  TSTreeCursor c = ts_tree_cursor_new(n);
  bool first = true;
  for (bool more = ts_tree_cursor_goto_first_child(&c); more; more = ts_tree_cursor_goto_next_sibling(&c)) {
    TSNode ch = ts_tree_cursor_current_node(&c);
    if (!ts_node_is_named(ch)) continue;
    if (first && bs_is(ch, BS_VARIABLE_NAME)) {
      push(b, SM_SYM_VAR, SM_REF_USE, false, file, ch, n);
    } else if (first && bs_is(ch, BS_SUBSCRIPT)) {
      TSNode name = bs_child(ch, BSF_NAME);
      if (!ts_node_is_null(name) && bs_is(name, BS_VARIABLE_NAME))
        push(b, SM_SYM_ARRAY, SM_REF_USE, false, file, name, n);
      TSNode index = bs_child(ch, BSF_INDEX);
      if (!ts_node_is_null(index)) scan(b, file, index, true, depth + 1);
    } else {
      scan(b, file, ch, false, depth + 1);
    }
    first = false;
  }
  ts_tree_cursor_delete(&c);
}

static void scan(sm_builder *b, int file, TSNode n, bool arith, int depth) {
  if (depth > MAX_SCAN_DEPTH) return;
  bs_kind t = bs_kind_of(n);
  switch (t) {
  case BS_FUNCTION_DEFINITION:
  case BS_COMMENT:
  case BS_HEREDOC_BODY:
    return; /* a body is walked where it is called */
  case BS_SIMPLE_EXPANSION: {
    TSNode v = ts_node_named_child(n, 0);
    if (!ts_node_is_null(v) && bs_is(v, BS_VARIABLE_NAME)) push(b, SM_SYM_VAR, SM_REF_USE, false, file, v, n);
    return;
  }
  case BS_EXPANSION:
    scan_expansion(b, file, n, depth);
    return;
  case BS_VARIABLE_NAME:
    if (arith) push(b, SM_SYM_VAR, SM_REF_USE, false, file, n, n);
    return;
  case BS_ARITHMETIC_EXPANSION:
    arith = true;
    break;
  case BS_WORD:
  case BS_NUMBER:
  case BS_STRING_CONTENT:
  case BS_RAW_STRING:
    return;
  default:
    break;
  }
  TSTreeCursor c = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&c); more; more = ts_tree_cursor_goto_next_sibling(&c)) {
    TSNode ch = ts_tree_cursor_current_node(&c);
    if (ts_node_is_named(ch)) scan(b, file, ch, arith, depth + 1);
  }
  ts_tree_cursor_delete(&c);
}

void sm_ref_uses(sm_builder *b, int file, TSNode n, bool arith) {
  if (ts_node_is_null(n)) return;
  size_t len;
  const char *t = sm_node_span(b, file, n, &len);
  /* without a `$` only arithmetic can name a variable */
  if (!arith && !memchr(t, '$', len) && !pd_mem_has(t, len, "((")) return;
  scan(b, file, n, arith, 0);
}

/* ---- into the model ------------------------------------------------------------------------ */

static int by_place(const void *x, const void *y) {
  const sm_ref *a = *(const sm_ref *const *)x, *b = *(const sm_ref *const *)y;
  if (a->file != b->file) return a->file < b->file ? -1 : 1;
  if (a->range.start_byte != b->range.start_byte) return a->range.start_byte < b->range.start_byte ? -1 : 1;
  if (a->role != b->role) return a->role < b->role ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0; /* walk order */
}

static bool same_place(const sm_ref *a, const sm_ref *b) {
  return a->file == b->file && a->range.start_byte == b->range.start_byte && a->role == b->role;
}

/* The definitions reaching the uses, per name, as the walk goes. */
typedef struct {
  size_t *v;
  size_t n, cap;
} reach_set;

/* The walk's references kept as they came (names copied: the walk's environment owns them), to
 * be sorted, merged and given their reaching definitions when navigation first asks
 * (sm_refs_ready): the analysis after an edit, which only the rules read, does not pay for it. */
typedef struct {
  sm_ref *v;
  size_t n;
  char *names;
} pending_refs;

static void refs_finish(sm_model *m, const sm_ref *refs, size_t n);

void sm_refs_take(sm_model *m, sm_walk *w) {
  size_t n = w->nrefs;
  if (!n) return;
  pending_refs *p = pd_xmalloc(sizeof *p);
  p->v = pd_xmalloc(n * sizeof *p->v);
  memcpy(p->v, w->refs, n * sizeof *p->v);
  size_t len = 0;
  for (size_t i = 0; i < n; i++) len += strlen(w->refs[i].name) + 1;
  p->names = pd_xmalloc(len);
  char *np = p->names;
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(w->refs[i].name) + 1;
    memcpy(np, w->refs[i].name, l);
    p->v[i].name = np;
    np += l;
  }
  p->n = n;
  m->refs_pending = p;
}

void sm_refs_ready(const sm_model *cm) {
  sm_model *m = (sm_model *)cm; /* the model's one lazy part: the same refs either way */
  pending_refs *p = m ? m->refs_pending : NULL;
  if (!p) return;
  m->refs_pending = NULL;
  refs_finish(m, p->v, p->n);
  free(p->v);
  free(p->names);
  free(p);
}

void sm_refs_pending_free(sm_model *m) {
  pending_refs *p = m->refs_pending;
  if (!p) return;
  free(p->v);
  free(p->names);
  free(p);
  m->refs_pending = NULL;
}

static void refs_finish(sm_model *m, const sm_ref *refs, size_t n) {
  const sm_ref **order = pd_xmalloc(n * sizeof *order);
  for (size_t i = 0; i < n; i++) order[i] = &refs[i];
  pd_sort(order, n, sizeof *order, by_place);
  size_t *final = pd_xmalloc(n * sizeof *final), kept = 0, names_len = 0;
  for (size_t i = 0; i < n; i++) {
    if (!i || !same_place(order[i], order[i - 1])) {
      kept++;
      names_len += strlen(order[i]->name) + 1;
    }
    final[order[i] - refs] = kept - 1;
  }
  m->refs = pd_xcalloc(kept, sizeof *m->refs);
  m->nrefs = kept;
  m->ref_names = pd_xmalloc(names_len ? names_len : 1);
  char *np = m->ref_names;
  for (size_t i = 0, k = 0; i < n; i++) {
    if (i && same_place(order[i], order[i - 1])) continue;
    m->refs[k] = *order[i];
    size_t l = strlen(order[i]->name) + 1;
    memcpy(np, order[i]->name, l);
    m->refs[k].name = np;
    np += l;
    m->refs[k].reach = m->refs[k].nreach = 0;
    k++;
  }
  free(order);
  /* walk order: each use takes the reaching set of its first pass */
  pd_map heads = {0};
  reach_set *sets = NULL;
  size_t nsets = 0, sets_cap = 0, nreach = 0, reach_cap = 0;
  bool *done = pd_xcalloc(kept, sizeof *done);
  for (size_t i = 0; i < n; i++) {
    const sm_ref *r = &refs[i];
    if (r->role == SM_REF_MENTION) continue;
    bool added;
    pd_map_slot *slot = pd_map_put(&heads, r->name, &added);
    if (added) {
      slot->value = nsets;
      *PD_PUSH(sets, nsets, sets_cap) = (reach_set){0};
    }
    reach_set *s = &sets[slot->value];
    size_t f = final[i];
    if (r->role == SM_REF_USE) {
      if (done[f]) continue;
      done[f] = true;
      m->refs[f].reach = nreach;
      m->refs[f].nreach = s->n;
      for (size_t j = 0; j < s->n; j++) *PD_PUSH(m->reach, nreach, reach_cap) = s->v[j];
      continue;
    }
    if (r->role == SM_REF_DEF && !r->conditional) s->n = 0;
    bool have = false;
    for (size_t j = 0; j < s->n && !have; j++) have = s->v[j] == f;
    if (!have) *PD_PUSH(s->v, s->n, s->cap) = f;
  }
  for (size_t i = 0; i < nsets; i++) free(sets[i].v);
  free(sets);
  free(done);
  free(final);
  pd_map_free(&heads);
}

const sm_ref *sm_ref_at(const sm_model *m, int file, uint32_t at) {
  sm_refs_ready(m);
  /* refs are sorted by file and start: the last one starting at or before `at` */
  size_t lo = 0, hi = m->nrefs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const sm_ref *r = &m->refs[mid];
    if (r->file < file || (r->file == file && r->range.start_byte <= at)) lo = mid + 1;
    else hi = mid;
  }
  while (lo > 0) {
    const sm_ref *r = &m->refs[--lo];
    if (r->file != file || r->range.end_byte < at) return NULL;
    if (r->range.start_byte <= at) return r;
  }
  return NULL;
}

json_t *sm_refs_to_json(const sm_model *m) {
  static const char *const kinds[] = {"var", "array", "func"};
  static const char *const roles[] = {"def", "append", "use", "mention"};
  json_t *a = json_array();
  sm_refs_ready(m);
  for (size_t i = 0; i < m->nrefs; i++) {
    const sm_ref *r = &m->refs[i];
    json_t *reach = json_array();
    for (size_t j = 0; j < r->nreach; j++) json_array_append_new(reach, json_integer((json_int_t)m->reach[r->reach + j]));
    json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:b,s:i,s:[i,i,i,i],s:[i,i],s:o}", "name", r->name,
                                       "kind", kinds[r->kind], "role", roles[r->role], "conditional",
                                       r->conditional, "file", r->file, "range", (int)r->range.start_line,
                                       (int)r->range.start_col, (int)r->range.end_line, (int)r->range.end_col,
                                       "whole", (int)r->whole.start_byte, (int)r->whole.end_byte, "reach", reach));
  }
  return a;
}
