#include "lsp/navigate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"

enum { SK_FUNCTION = 12, SK_PROPERTY = 7, SK_ARRAY = 18, SK_EVENT = 24, SK_VARIABLE = 13 };

static bool holds(sm_range r, size_t at) { return at >= r.start_byte && at <= r.end_byte; }

/* Variables and arrays share bash's names (`$X` of an array is X[0]); functions have their own. */
static bool same_symbol(const sm_ref *a, const sm_ref *b) {
  return (a->kind == SM_SYM_FUNC) == (b->kind == SM_SYM_FUNC) && !strcmp(a->name, b->name);
}

static bool is_def(const sm_ref *r) { return r->role == SM_REF_DEF || r->role == SM_REF_APPEND; }

static void push_location(json_t *out, const fm_map *m, const sm_ref *r) {
  json_t *loc = fm_location(m, r->file, r->range);
  if (loc) json_array_append_new(out, loc);
}

/* Every definition of the symbol of r, in the analysis' order. */
static void all_defs(json_t *out, const nav_request *q, const sm_ref *r) {
  const sm_model *m = q->r->model;
  for (size_t i = 0; i < m->nrefs; i++)
    if (is_def(&m->refs[i]) && same_symbol(&m->refs[i], r)) push_location(out, q->map, &m->refs[i]);
}

json_t *nav_definition(const nav_request *q, size_t at) {
  json_t *out = json_array();
  const sm_model *m = q->r->model;
  if (!m) return out;
  const sm_ref *r = sm_ref_at(m, q->file, (uint32_t)at);
  if (r && r->role == SM_REF_USE && r->nreach) {
    for (size_t j = 0; j < r->nreach; j++) push_location(out, q->map, &m->refs[m->reach[r->reach + j]]);
  } else if (r) {
    all_defs(out, q, r);
  } else {
    for (size_t k = 1; k < m->nfiles; k++) /* a `source` line: the file it sources */
      if (m->files[k].parent == q->file && holds(m->files[k].source_range, at)) {
        json_t *loc = fm_location(q->map, (int)k, (sm_range){0});
        if (loc) json_array_append_new(out, loc);
        break;
      }
  }
  return out;
}

json_t *nav_references(const nav_request *q, size_t at, bool include_declaration) {
  json_t *out = json_array();
  const sm_model *m = q->r->model;
  const sm_ref *r = m ? sm_ref_at(m, q->file, (uint32_t)at) : NULL;
  if (!r) return out;
  for (size_t i = 0; i < m->nrefs; i++) {
    const sm_ref *x = &m->refs[i];
    if (!same_symbol(x, r) || (!include_declaration && is_def(x))) continue;
    push_location(out, q->map, x);
  }
  return out;
}

/* ---- the outline ----------------------------------------------------------------------------- */

static json_t *symbol(const fm_map *m, int file, const char *name, const char *detail, int kind,
                      sm_range range, sm_range selection) {
  if (selection.start_byte < range.start_byte || selection.end_byte > range.end_byte) selection = range;
  json_t *s = json_pack("{s:o,s:i,s:o,s:o}", "name", fm_string(*name ? name : "?"), "kind", kind,
                        "range", fm_range(m, file, range), "selectionRange", fm_range(m, file, selection));
  if (detail && *detail) json_object_set_new(s, "detail", fm_string(detail));
  return s;
}

/* The flags of [r] in file as children: each with its resolved values as detail. */
static json_t *flag_children(const nav_request *q, sm_range r, bool launch_line) {
  const sm_model *m = q->r->model;
  json_t *kids = json_array();
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *f = &m->flags[i];
    if (f->file != q->file || (launch_line && f->group) || f->full.start_byte < r.start_byte ||
        f->full.end_byte > r.end_byte)
      continue;
    pd_buf d = {0};
    for (size_t k = 0; k < f->nvalues && d.len < 80; k++)
      pd_buf_printf(&d, "%s%s", k ? " " : "", f->values[k].text ? f->values[k].text : "");
    if (d.len > 80) strcpy(d.data + 77, "...");
    json_array_append_new(kids, symbol(q->map, q->file, f->name, d.data, SK_PROPERTY, f->full, f->range));
    pd_buf_free(&d);
  }
  return kids;
}

typedef struct {
  uint32_t start;
  json_t *sym;
} placed;

static int by_start(const void *a, const void *b) {
  uint32_t x = ((const placed *)a)->start, y = ((const placed *)b)->start;
  return x < y ? -1 : x > y;
}

static sm_range name_range(const sm_model *m, int file, sm_range whole, const char *name) {
  uint32_t s = whole.start_byte, e = s + (uint32_t)strlen(name);
  return e <= whole.end_byte ? sm_range_at(m, file, s, e) : whole;
}

/* The function whose body holds r, among the first nfn entries of v (functions), or NULL. */
static json_t *enclosing(placed *v, const sm_range *fr, size_t nfn, sm_range r) {
  for (size_t k = 0; k < nfn; k++)
    if (r.start_byte >= fr[k].start_byte && r.end_byte <= fr[k].end_byte) return v[k].sym;
  return NULL;
}

static void add_symbol(placed **v, size_t *n, size_t *cap, const sm_range *fr, size_t nfn, sm_range r, json_t *s) {
  json_t *fn = enclosing(*v, fr, nfn, r);
  if (!fn) {
    *PD_PUSH(*v, *n, *cap) = (placed){r.start_byte, s};
    return;
  }
  json_t *kids = json_object_get(fn, "children");
  if (!kids) json_object_set_new(fn, "children", kids = json_array());
  json_array_append_new(kids, s);
}

json_t *nav_symbols(const nav_request *q) {
  const sm_model *m = q->r->model;
  json_t *out = json_array();
  if (!m) return out;
  sm_refs_ready(m);
  placed *v = NULL;
  size_t n = 0, cap = 0;
  sm_range *fr = NULL;
  size_t nfn = 0, frcap = 0;
  for (size_t i = 0; i < m->nrefs; i++) { /* functions first: what they hold goes inside */
    const sm_ref *r = &m->refs[i];
    if (r->file != q->file || r->kind != SM_SYM_FUNC || r->role != SM_REF_DEF) continue;
    *PD_PUSH(fr, nfn, frcap) = r->whole;
    *PD_PUSH(v, n, cap) = (placed){r->whole.start_byte, symbol(q->map, q->file, r->name, NULL, SK_FUNCTION, r->whole, r->range)};
  }
  for (size_t i = 0; i < m->narrays; i++) {
    const sm_array *a = &m->arrays[i];
    bool seen = a->file != q->file;
    for (size_t k = 0; k < i && !seen; k++) /* a function's arrays, once */
      seen = m->arrays[k].file == a->file && m->arrays[k].range.start_byte == a->range.start_byte;
    if (seen) continue;
    char *detail = a->append ? au_say(q->r, AU_MSG_NAV_APPEND, q->lang, NULL) : NULL;
    json_t *s = symbol(q->map, q->file, a->name, detail, SK_ARRAY, a->range, name_range(m, q->file, a->range, a->name));
    free(detail);
    json_object_set_new(s, "children", flag_children(q, a->range, false));
    add_symbol(&v, &n, &cap, fr, nfn, a->range, s);
  }
  if (m->train_line_found && m->train_file == q->file) {
    char *name = au_say(q->r, AU_MSG_NAV_TRAIN, q->lang, NULL);
    json_t *s = symbol(q->map, q->file, name, "relax.entrypoints.train", SK_EVENT, m->train_range, m->train_range);
    free(name);
    json_object_set_new(s, "children", flag_children(q, m->train_range, true));
    add_symbol(&v, &n, &cap, fr, nfn, m->train_range, s);
  }
  if (n) qsort(v, n, sizeof *v, by_start);
  for (size_t i = 0; i < n; i++) json_array_append_new(out, v[i].sym);
  free(v);
  free(fr);
  return out;
}

/* ---- rename ---------------------------------------------------------------------------------- */

static bool is_name(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* Names bash sets or reads itself, and those the programs a launch script starts read from
 * their environment (by prefix when it ends in '_'). */
static bool reserved(const char *s, bool function) {
  static const char *const vars[] = {
      "BASH", "BASH_", "BASHOPTS", "BASHPID", "CDPATH", "COLUMNS", "COMP_", "DIRSTACK", "EPOCHREALTIME",
      "EPOCHSECONDS", "EUID", "FUNCNAME", "GLOBIGNORE", "GROUPS", "HISTFILE", "HOME", "HOSTNAME", "HOSTTYPE",
      "IFS", "LANG", "LC_", "LINENO", "LINES", "MACHTYPE", "OLDPWD", "OPTARG", "OPTERR", "OPTIND", "OSTYPE",
      "PATH", "PIPESTATUS", "PPID", "PROMPT_COMMAND", "PS1", "PS2", "PS4", "PWD", "RANDOM", "REPLY", "SECONDS",
      "SHELL", "SHELLOPTS", "SHLVL", "SRANDOM", "TMOUT", "TMPDIR", "UID", "USER", "CUDA_", "NCCL_", "RAY_",
      "TORCH_", "PYTORCH_", "PYTHON", "LD_", "OMP_", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
      "LOCAL_RANK", "HF_", "TRANSFORMERS_", "SGLANG_", "VLLM_", "NVTE_", "TOKENIZERS_", "WANDB_", "MEGATRON_"};
  static const char *const words[] = {
      "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "in",
      "function", "select", "time", "coproc", "source", "cd", "echo", "printf", "export", "unset", "local",
      "declare", "typeset", "readonly", "read", "test", "eval", "exec", "exit", "return", "set", "shift",
      "trap", "wait", "kill", "true", "false", "let", "alias", "command", "builtin", "type", "python3",
      "python", "ray", "bash", "sh", "env"};
  if (function) {
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
      if (!strcmp(s, words[i])) return true;
    return false;
  }
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    size_t n = strlen(vars[i]);
    if (vars[i][n - 1] == '_' ? !strncmp(s, vars[i], n) : !strcmp(s, vars[i])) return true;
  }
  return false;
}

/* "line 12" in the document's own file, "qwen3-4B.sh line 12" elsewhere. */
static char *place(const nav_request *q, int file, uint32_t line0) {
  const sm_model *m = q->r->model;
  if (file == q->file || file < 0 || (size_t)file >= m->nfiles) {
    ax_value a = ax_num((double)line0 + 1);
    return au_say(q->r, AU_MSG_SETTING_LINE, q->lang, &a);
  }
  ax_value a[2] = {ax_str(pd_path_base(m->files[file].path ? m->files[file].path : "")), ax_num((double)line0 + 1)};
  return au_say(q->r, AU_MSG_SETTING_FILE_LINE, q->lang, a);
}

static char *refuse(const nav_request *q, au_msg_id id, const char *name, int file, uint32_t line0) {
  char *where = file >= -1 ? place(q, file, line0) : NULL;
  ax_value a[2] = {ax_str(name ? name : ""), ax_str(where ? where : "")};
  char *s = au_say(q->r, id, q->lang, name ? a : a + 1);
  free(where);
  return s;
}

static uint32_t line_of(const sm_file *f, uint32_t at) {
  size_t lo = 0, hi = f->nlines;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (f->lines[mid] <= at) lo = mid;
    else hi = mid;
  }
  return (uint32_t)lo;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static const char *find(const char *hay, size_t n, const char *needle, size_t k) {
  for (size_t i = 0; i + k <= n; i++)
    if (hay[i] == needle[0] && !memcmp(hay + i, needle, k)) return hay + i;
  return NULL;
}

static uint32_t count_lines(const char *s, size_t n) {
  uint32_t l = 0;
  for (size_t i = 0; i < n; i++) l += s[i] == '\n';
  return l;
}

/* The first place where `name` stands as a word in file k outside comments and is not one of
 * the references that pass `covered`; UINT32_MAX when none. */
static uint32_t loose_word(const sm_model *m, int k, const char *name, TSNode root, const sm_ref *covered) {
  const sm_file *f = &m->files[k];
  size_t n = strlen(name);
  for (const char *p = f->text; p && (size_t)(p - f->text) + n <= f->len;) {
    const char *hit = find(p, f->len - (size_t)(p - f->text), name, n);
    if (!hit) break;
    p = hit + 1;
    uint32_t at = (uint32_t)(hit - f->text);
    if ((at && ident_char(hit[-1])) || (at + n < f->len && ident_char(hit[n]))) continue;
    TSNode d = ts_node_descendant_for_byte_range(root, at, at + (uint32_t)n);
    if (!strcmp(ts_node_type(d), "comment")) continue;
    bool known = false;
    for (size_t i = 0; covered && i < m->nrefs && !known; i++) {
      const sm_ref *r = &m->refs[i];
      known = r->file == k && r->range.start_byte == at && same_symbol(r, covered);
    }
    if (!known) return at;
  }
  return UINT32_MAX;
}

/* The first syntax error of tree t, or UINT32_MAX. */
static uint32_t first_error(TSNode n) {
  if (!ts_node_has_error(n)) return UINT32_MAX;
  if (ts_node_is_missing(n) || !strcmp(ts_node_type(n), "ERROR")) return ts_node_start_byte(n);
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; i++) {
    uint32_t e = first_error(ts_node_child(n, i));
    if (e != UINT32_MAX) return e;
  }
  return ts_node_start_byte(n);
}

/* Checks that r's symbol can become new_name (NULL: only that it can be renamed at all). */
static char *rename_refusal(const nav_request *q, const sm_ref *r, const char *new_name, TSParser *p) {
  const sm_model *m = q->r->model;
  bool fn = r->kind == SM_SYM_FUNC;
  if (reserved(r->name, fn)) return refuse(q, AU_MSG_RENAME_RESERVED, r->name, -2, 0);
  bool defined = false;
  for (size_t i = 0; i < m->nrefs && !defined; i++) defined = is_def(&m->refs[i]) && same_symbol(&m->refs[i], r);
  if (!defined) return refuse(q, AU_MSG_RENAME_OUTSIDE, r->name, -2, 0);
  const sm_var *v = fn ? NULL : sm_var_get(m, r->name);
  if (v && v->exported) return refuse(q, AU_MSG_RENAME_EXPORTED, r->name, -2, 0);
  for (size_t i = 0; i < m->nrefs; i++) {
    const sm_ref *x = &m->refs[i];
    if (x->role == SM_REF_USE && !x->nreach && !fn && same_symbol(x, r))
      return refuse(q, AU_MSG_RENAME_READ_ENV, r->name, x->file, x->range.start_line);
  }
  if (new_name) {
    if (!is_name(new_name)) return refuse(q, AU_MSG_RENAME_BAD_NAME, new_name, -2, 0);
    if (reserved(new_name, fn)) return refuse(q, AU_MSG_RENAME_RESERVED, new_name, -2, 0);
  }
  char *why = NULL;
  for (size_t k = 0; k < m->nfiles && !why; k++) {
    const sm_file *f = &m->files[k];
    TSTree *t = ts_parser_parse_string(p, NULL, f->text, (uint32_t)f->len);
    TSNode root = ts_tree_root_node(t);
    uint32_t at = first_error(root);
    if (at != UINT32_MAX) why = refuse(q, AU_MSG_RENAME_SYNTAX, NULL, (int)k, line_of(f, at));
    if (!why && (at = loose_word(m, (int)k, r->name, root, r)) != UINT32_MAX)
      why = refuse(q, AU_MSG_RENAME_UNSEEN, r->name, (int)k, line_of(f, at));
    if (!why && new_name && (at = loose_word(m, (int)k, new_name, root, NULL)) != UINT32_MAX)
      why = refuse(q, AU_MSG_RENAME_TAKEN, new_name, (int)k, line_of(f, at));
    ts_tree_delete(t);
  }
  return why;
}

static const sm_ref *rename_target(const nav_request *q, size_t at, char **why) {
  const sm_model *m = q->r->model;
  const sm_ref *r = m ? sm_ref_at(m, q->file, (uint32_t)at) : NULL;
  *why = NULL;
  if (!r) return NULL;
  return r;
}

json_t *nav_prepare_rename(const nav_request *q, size_t at, TSParser *p, char **why) {
  const sm_ref *r = rename_target(q, at, why);
  if (!r || (*why = rename_refusal(q, r, NULL, p))) return NULL;
  return json_pack("{s:o,s:s}", "range", fm_range(q->map, r->file, r->range), "placeholder", r->name);
}

/* The text of file k with every reference of r's symbol renamed (refs are sorted by place). */
static char *renamed_text(const sm_model *m, int k, const sm_ref *r, const char *new_name, size_t *len) {
  const sm_file *f = &m->files[k];
  pd_buf b = {0};
  uint32_t from = 0;
  for (size_t i = 0; i < m->nrefs; i++) {
    const sm_ref *x = &m->refs[i];
    if (x->file != k || !same_symbol(x, r) || x->range.start_byte < from) continue;
    pd_buf_append(&b, f->text + from, x->range.start_byte - from);
    pd_buf_puts(&b, new_name);
    from = x->range.end_byte;
  }
  pd_buf_append(&b, f->text + from, f->len - from);
  *len = b.len;
  return pd_buf_take(&b);
}

json_t *nav_rename(const nav_request *q, size_t at, const char *new_name, TSParser *p, char **why) {
  const sm_ref *r = rename_target(q, at, why);
  const sm_model *m = q->r->model;
  if (!r) {
    *why = au_say(q->r, AU_MSG_RENAME_NOTHING, q->lang, NULL);
    return NULL;
  }
  if ((*why = rename_refusal(q, r, new_name, p))) return NULL;
  json_t *changes = json_object();
  for (size_t k = 0; k < m->nfiles && !*why; k++) {
    json_t *edits = json_array();
    for (size_t i = 0; i < m->nrefs; i++) {
      const sm_ref *x = &m->refs[i];
      if (x->file != (int)k || !same_symbol(x, r)) continue;
      json_array_append_new(edits, json_pack("{s:o,s:s}", "range", fm_range(q->map, x->file, x->range), "newText", new_name));
    }
    if (!json_array_size(edits)) {
      json_decref(edits);
      continue;
    }
    size_t len;
    char *text = renamed_text(m, (int)k, r, new_name, &len);
    TSTree *t = ts_parser_parse_string(p, NULL, text, (uint32_t)len);
    uint32_t bad = first_error(ts_tree_root_node(t));
    if (bad != UINT32_MAX)
      *why = refuse(q, AU_MSG_RENAME_BREAKS, NULL, (int)k, count_lines(text, bad < len ? bad : len));
    ts_tree_delete(t);
    free(text);
    json_object_set_new(changes, fm_uri(q->map, (int)k), edits);
  }
  if (*why) {
    json_decref(changes);
    return NULL;
  }
  return json_pack("{s:o}", "changes", changes);
}
