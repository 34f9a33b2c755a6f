/* script: walks the syntax tree statement by statement, the way bash would run it but without
 * running anything, to collect arrays, variables and the train command; then turns the train
 * command's argv into flags and derives the context. */
/* realpath(3) is XSI in glibc: resolving symbolic links keeps `source` inside the workspace. */
#define _XOPEN_SOURCE 700

#include "analyzer/script.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/bashsym.h"
#include "analyzer/fname.h"
#include "analyzer/shell.h"
#include "analyzer/util.h"

const TSLanguage *tree_sitter_bash(void);

#define MAX_SOURCE_DEPTH 8
#define MAX_SOURCED_FILES 64 /* a file sourcing another ten times, eight deep, is 10^8 reads */
#define MAX_CALL_DEPTH 8
#define MAX_LOOP_ITER 4096
#define MAX_SYNTAX_CONDS 20
#define DEFAULT_MAX_FILE (16u << 20)

TSParser *sm_parser_new(void) {
  TSParser *p = ts_parser_new();
  if (!ts_parser_set_language(p, tree_sitter_bash())) {
    ts_parser_delete(p);
    return NULL;
  }
  return p;
}

/* ---- the builder's state ----------------------------------------------------------------- */

/* A syntax tree shared by a build and the checkpoints taken from it: function bodies are nodes,
 * which point at their TSTree object, so the object itself (not a ts_tree_copy) must live on. */
typedef struct {
  TSTree *tree;
  size_t refs;
} tree_ref;

static tree_ref *tree_ref_new(TSTree *t /* consumed */) {
  tree_ref *r = pd_xmalloc(sizeof *r);
  r->tree = t;
  r->refs = 1;
  return r;
}

static tree_ref *tree_ref_take(tree_ref *r) {
  if (r) r->refs++;
  return r;
}

static void tree_ref_drop(tree_ref *r) {
  if (!r || --r->refs) return;
  ts_tree_delete(r->tree);
  free(r);
}

/* A filesystem answer the walk depended on, replayed before resuming from a checkpoint. */
typedef enum { FSQ_READ, FSQ_UNDER_ROOT, FSQ_DISCOVER } fsq_kind;

typedef struct {
  fsq_kind kind;
  char *path;    /* READ / UNDER_ROOT: the path asked about; DISCOVER: the answer ("" = none) */
  bool ok;
  int err;       /* READ: errno when !ok */
  size_t len;    /* READ: length and hash of the text read */
  uint64_t hash;
} fsq;

typedef struct {
  sm_model *m;
  const sm_options *opt;
  size_t files_cap, flags_cap, arrays_cap, conds_cap, vars_cap;
  sh_env *env;
  TSParser *parser;
  tree_ref **trees; /* per file */
  size_t ntrees, trees_cap;
  tree_ref **pinned; /* earlier trees of the script that function bodies still point into */
  size_t npinned, pinned_cap;
  fsq *fslog;        /* every filesystem answer so far, in order */
  size_t nfslog, fslog_cap;
  int *stack; /* files being sourced, for cycle detection */
  size_t nstack, stack_cap;
  int call_depth;
  size_t loop_budget;
  bool train_found;
  sh_fields train; /* argv after the entrypoint */
  size_t syntax_conds;
  bool defined_model_args; /* set when an assignment to MODEL_ARGS happens */
  bool unrepeatable; /* the statement being walked sourced, read a file, defined a function or
                        found the train command: its effect is not memoized */
} builder;

static sh_file shfile(const builder *b, int file) {
  const sm_file *f = &b->m->files[file];
  return (sh_file){f->text, f->len, file, f->path};
}

/* `message` is consumed. */
static void add_cond(builder *b, sm_level lvl, const char *code, int file, sm_range r,
                     char *message) {
  sm_condition *c = PD_PUSH(b->m->conds, b->m->nconds, b->conds_cap);
  c->level = lvl;
  c->code = pd_xstrdup(code);
  c->message = message;
  c->file = file;
  c->range = r;
}

/* The source text of n (clamped to the file), borrowed. */
static const char *node_span(const builder *b, int file, TSNode n, size_t *len) {
  const sm_file *f = &b->m->files[file];
  uint32_t a = ts_node_start_byte(n), z = ts_node_end_byte(n);
  if (z > f->len) z = (uint32_t)f->len;
  if (a > z) a = z;
  *len = z - a;
  return f->text + a;
}

static char *node_text(const builder *b, int file, TSNode n) {
  size_t len;
  const char *s = node_span(b, file, n, &len);
  return pd_xstrndup(s, len);
}

static void walk(builder *b, int file, TSNode n, bool cond);

/* All children of n in one pass (ts_node_child is O(index) in this runtime). Caller frees. */
static TSNode *children_of(TSNode n, uint32_t *count) {
  uint32_t nc = ts_node_child_count(n), k = 0;
  TSNode *v = pd_xmalloc((nc ? nc : 1) * sizeof *v);
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do v[k++] = ts_tree_cursor_current_node(&c);
    while (k < nc && ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
  *count = k;
  return v;
}

/* ---- paths --------------------------------------------------------------------------------- */

static char *path_absolute(const char *p) {
  if (p[0] == '/') return pd_path_normalize(p);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return pd_path_normalize(p);
  char *j = pd_xasprintf("%s/%s", cwd, p);
  char *r = pd_path_normalize(j);
  free(j);
  return r;
}

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool under_root(const char *path, const char *root) {
  if (!root || !*root) return true;
  size_t n = strlen(root);
  while (n > 1 && root[n - 1] == '/') n--;
  return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

/* MODEL_CONFIG_DIR when the entrypoint did not provide it: a scripts/models directory upwards
 * from the script, else the user's setting. Caller frees; NULL when neither exists. */
static char *discover_model_dir(const builder *b) {
  char *dir = pd_path_dirname(b->m->files[0].path);
  for (int up = 0; up < 12; up++) {
    char *cand = pd_xasprintf("%s/scripts/models", dir);
    if (is_dir(cand)) {
      free(dir);
      return cand;
    }
    free(cand);
    const char *base = strrchr(dir, '/');
    if (base && !strcmp(base + 1, "scripts")) {
      cand = pd_xasprintf("%s/models", dir);
      if (is_dir(cand)) {
        free(dir);
        return cand;
      }
      free(cand);
    }
    if (!strcmp(dir, "/") || !strcmp(dir, ".") || !strchr(dir, '/')) break;
    char *parent = pd_path_dirname(dir);
    free(dir);
    dir = parent;
  }
  free(dir);
  if (b->opt->model_config_dir && *b->opt->model_config_dir)
    return pd_xstrdup(b->opt->model_config_dir);
  return NULL;
}

/* ---- the sourced-file cache ---------------------------------------------------------------- */

#define MAX_CACHED 256

typedef struct {
  char *path, *text;
  size_t len;
  TSTree *tree;
} cache_entry;

struct sm_cache {
  cache_entry *v;
  size_t n, cap;
};

sm_cache *sm_cache_new(void) { return pd_xcalloc(1, sizeof(sm_cache)); }

void sm_cache_free(sm_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    free(c->v[i].path);
    free(c->v[i].text);
    ts_tree_delete(c->v[i].tree);
  }
  free(c->v);
  free(c);
}

static const cache_entry *cache_find(const sm_cache *c, const char *path) {
  for (size_t i = 0; c && i < c->n; i++)
    if (!strcmp(c->v[i].path, path)) return &c->v[i];
  return NULL;
}

static void cache_add(sm_cache *c, const char *path, const char *text, size_t len,
                      const TSTree *tree) {
  if (!c || !tree || c->n >= MAX_CACHED) return;
  cache_entry *e = PD_PUSH(c->v, c->n, c->cap);
  e->path = pd_xstrdup(path);
  e->text = pd_xstrndup(text, len);
  e->len = len;
  e->tree = ts_tree_copy(tree);
}

/* ---- reading and parsing sourced files ---------------------------------------------------- */

/* Reads a sourced file: from the reader (open buffers) when there is one, else from disk. Either
 * way pd_read_file refuses a FIFO or device before opening it (a FIFO would block forever). */
static char *read_source(const builder *b, const char *path, size_t *len) {
  size_t max = b->opt->max_file_bytes ? b->opt->max_file_bytes : DEFAULT_MAX_FILE;
  if (b->opt->reader) {
    char *t = b->opt->reader->read(b->opt->reader->ctx, path, len);
    if (t && *len > max) {
      free(t);
      errno = EFBIG;
      return NULL;
    }
    return t;
  }
  return pd_read_file(path, max, len);
}

/* under_root on the paths with symbolic links resolved, so that a link inside the workspace
 * cannot lead `source` out of it. A path that does not exist (yet) is judged by its name. */
static bool under_root_real(const char *path, const char *root) {
  if (!root || !*root) return true;
  char *rp = realpath(path, NULL);
  if (!rp) return true;
  char *rr = realpath(root, NULL);
  bool in = under_root(rp, rr ? rr : root);
  free(rp);
  free(rr);
  return in;
}

/* ---- the filesystem log: what a resumed walk must find unchanged ------------------------- */

static fsq *log_fsq(builder *b, fsq_kind kind, const char *path, bool ok) {
  b->unrepeatable = true;
  fsq *q = PD_PUSH(b->fslog, b->nfslog, b->fslog_cap);
  memset(q, 0, sizeof *q);
  q->kind = kind;
  q->path = pd_xstrdup(path ? path : "");
  q->ok = ok;
  return q;
}

/* read_source, logged. */
static char *read_logged(builder *b, const char *path, size_t *len) {
  errno = 0;
  char *t = read_source(b, path, len);
  int e = errno;
  fsq *q = log_fsq(b, FSQ_READ, path, t != NULL);
  if (t) {
    q->len = *len;
    q->hash = pd_hash(PD_HASH_SEED, t, *len);
  } else {
    q->err = e;
  }
  errno = e;
  return t;
}

static bool under_root_logged(builder *b, const char *path) {
  bool in = under_root_real(path, b->opt->workspace_root);
  log_fsq(b, FSQ_UNDER_ROOT, path, in);
  return in;
}

static char *discover_logged(builder *b) {
  char *d = discover_model_dir(b);
  log_fsq(b, FSQ_DISCOVER, d, d != NULL);
  return d;
}

/* True when every answer in log[0..n) is still the same. */
static bool fslog_holds(builder *b, const fsq *log, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const fsq *q = &log[i];
    if (q->kind == FSQ_READ) {
      size_t len = 0;
      errno = 0;
      char *t = read_source(b, q->path, &len);
      int e = errno;
      bool same = t ? q->ok && len == q->len && pd_hash(PD_HASH_SEED, t, len) == q->hash
                    : !q->ok && e == q->err;
      free(t);
      if (!same) return false;
    } else if (q->kind == FSQ_UNDER_ROOT) {
      if (under_root_real(q->path, b->opt->workspace_root) != q->ok) return false;
    } else {
      char *d = discover_model_dir(b);
      bool same = d ? q->ok && !strcmp(d, q->path) : !q->ok;
      free(d);
      if (!same) return false;
    }
  }
  return true;
}

static int add_file(builder *b, char *path /* consumed */, char *text /* consumed */, size_t len,
                    int parent, sm_range src_range) {
  sm_file *f = PD_PUSH(b->m->files, b->m->nfiles, b->files_cap);
  f->path = path;
  f->text = text;
  f->len = len;
  size_t cap = 0;
  f->lines = NULL;
  f->nlines = 0;
  *PD_PUSH(f->lines, f->nlines, cap) = 0;
  for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p++)
    *PD_PUSH(f->lines, f->nlines, cap) = (uint32_t)(p - text) + 1;
  f->parent = parent;
  f->source_range = src_range;
  *PD_PUSH(b->trees, b->ntrees, b->trees_cap) = NULL;
  return (int)(b->m->nfiles - 1);
}

static void report_syntax(builder *b, int file, TSNode n) {
  if (b->syntax_conds >= MAX_SYNTAX_CONDS) return;
  if (bs_is(n, BS_ERROR) || ts_node_is_missing(n)) {
    char *snippet = node_text(b, file, n);
    if (strlen(snippet) > 40) strcpy(snippet + 37, "...");
    for (char *p = snippet; *p; p++)
      if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    char *msg = ts_node_is_missing(n)
                    ? pd_xasprintf("syntax error: missing `%s`; flags after this point may be "
                                   "incomplete",
                                   ts_node_type(n))
                    : pd_xasprintf("syntax error near `%s`; flags inside it were recovered "
                                   "where possible",
                                   snippet);
    free(snippet);
    add_cond(b, SM_ERROR, "syntax", file, sh_node_range(n), msg);
    b->syntax_conds++;
    return;
  }
  if (!ts_node_has_error(n)) return;
  uint32_t nc;
  TSNode *kids = children_of(n, &nc);
  for (uint32_t i = 0; i < nc && b->syntax_conds < MAX_SYNTAX_CONDS; i++)
    report_syntax(b, file, kids[i]);
  free(kids);
}

static void walk_file(builder *b, int file) {
  TSNode root = ts_tree_root_node(b->trees[file]->tree);
  report_syntax(b, file, root);
  *PD_PUSH(b->stack, b->nstack, b->stack_cap) = file;
  walk(b, file, root, false);
  b->nstack--;
}

/* ---- NOTE comments ------------------------------------------------------------------------ */

/* "# NOTE(x): why" / "#NOTE: why" -> true */
static bool is_note(const char *c) {
  while (*c == '#' || *c == ' ' || *c == '\t') c++;
  return !strncmp(c, "NOTE", 4) && (c[4] == '(' || c[4] == ':' || c[4] == ' ');
}

typedef struct {
  pd_buf text;
  bool has_note;
  int file;
  sm_range range;
  uint32_t last_line;
  bool active;
} note_block;

static void note_reset(note_block *nb) {
  pd_buf_free(&nb->text);
  nb->has_note = false;
  nb->active = false;
}

/* A comment on its own line: extends the block above, or starts one. */
static void note_add_line(note_block *nb, const builder *b, int file, TSNode c) {
  sm_range r = sh_node_range(c);
  if (!nb->active || r.start_line != nb->last_line + 1) {
    note_reset(nb);
    nb->active = true;
    nb->range = r;
    nb->file = file;
  }
  char *t = node_text(b, file, c);
  if (is_note(t) && !nb->has_note) { /* the NOTE starts the attached text */
    pd_buf_free(&nb->text);
    nb->has_note = true;
    nb->range = r;
  }
  if (nb->has_note) {
    const char *s = t;
    while (*s == '#' || *s == ' ') s++;
    if (nb->text.len) pd_buf_putc(&nb->text, ' ');
    pd_buf_puts(&nb->text, s);
    nb->range.end_byte = r.end_byte;
    nb->range.end_line = r.end_line;
    nb->range.end_col = r.end_col;
  }
  nb->last_line = r.end_line;
  free(t);
}

static bool looks_like_flag(const char *s) {
  return s[0] == '-' && s[1] == '-' && isalpha((unsigned char)s[2]);
}

static void attach_note(sh_env *e, sh_field *f, const char *text, int file, sm_range r) {
  f->note = sh_intern(e, text, strlen(text));
  f->note_file = file;
  f->note_range = r;
}

/* ---- arrays -------------------------------------------------------------------------------- */

/* Unterminated double quote inside an array (half-typed): the grammar swallows the following
 * lines into the string. Keep its first line as the value and re-read the rest line by line. */
static bool recover_string_lines(builder *b, int file, TSNode str, const char *group, bool cond,
                                 sh_fields *arr, bool *closed) {
  const sm_file *f = &b->m->files[file];
  uint32_t a = ts_node_start_byte(str), z = ts_node_end_byte(str);
  if (z > f->len) z = (uint32_t)f->len;
  const char *nl = memchr(f->text + a, '\n', z - a);
  if (!nl) return false;
  uint32_t first_end = (uint32_t)(nl - f->text);
  sm_range r0 = sm_range_at(b->m, file, a, first_end);
  sh_field *v = PD_PUSH(arr->v, arr->n, arr->cap);
  memset(v, 0, sizeof *v);
  v->text = sh_intern(b->env, f->text + a + 1, first_end - a - 1);
  v->resolved = false;
  v->file = file;
  v->range = r0;
  v->group = group;
  v->conditional = cond;
  uint32_t p = first_end + 1;
  while (p < z) {
    const char *e = memchr(f->text + p, '\n', z - p);
    uint32_t le = e ? (uint32_t)(e - f->text) : z;
    uint32_t q = p;
    while (q < le) {
      while (q < le && isspace((unsigned char)f->text[q])) q++;
      if (q >= le) break;
      if (f->text[q] == '#') break;
      if (f->text[q] == ')') {
        *closed = true;
        return true;
      }
      uint32_t w = q;
      while (w < le && !isspace((unsigned char)f->text[w]) && f->text[w] != '"') w++;
      if (w == q) w = q + 1;
      sh_field *t = PD_PUSH(arr->v, arr->n, arr->cap);
      memset(t, 0, sizeof *t);
      t->text = sh_intern(b->env, f->text + q, w - q);
      t->resolved = !memchr(t->text, '$', w - q) && !memchr(t->text, '\'', w - q);
      t->file = file;
      t->range = sm_range_at(b->m, file, q, w);
      t->group = group;
      t->conditional = cond;
      q = w;
    }
    p = le + 1;
  }
  return true;
}

/* Array elements and comments from children [from, to) of `parent`. Returns true when a `)`
 * closed the array. */
static bool fill_array(builder *b, int file, TSNode parent, uint32_t from, uint32_t to,
                       const char *name, bool cond, sh_fields *arr) {
  sh_file sf = shfile(b, file);
  note_block nb = {0};
  uint32_t last_elem_line = UINT32_MAX;
  size_t last_line_first = arr->n; /* first field produced on last_elem_line */
  bool closed = false;
  /* A cursor keeps this linear: ts_node_child(parent, i) walks from the first child. */
  TSTreeCursor cur = ts_tree_cursor_new(parent);
  bool more = ts_tree_cursor_goto_first_child(&cur);
  for (uint32_t i = 0; more && i < to && !closed;
       i++, more = ts_tree_cursor_goto_next_sibling(&cur)) {
    if (i < from) continue;
    TSNode c = ts_tree_cursor_current_node(&cur);
    bs_kind t = bs_kind_of(c);
    if (!ts_node_is_named(c)) {
      if (t == BS_RPAREN) closed = !ts_node_is_missing(c);
      continue;
    }
    sm_range r = sh_node_range(c);
    if (t == BS_COMMENT) {
      if (r.start_line == last_elem_line) {
        /* trailing comment: a NOTE explains the last flag on that line */
        char *txt = node_text(b, file, c);
        if (is_note(txt)) {
          for (size_t k = arr->n; k-- > last_line_first;)
            if (looks_like_flag(arr->v[k].text)) {
              const char *s = txt;
              while (*s == '#' || *s == ' ') s++;
              attach_note(b->env, &arr->v[k], s, file, r);
              break;
            }
        }
        free(txt);
      } else {
        note_add_line(&nb, b, file, c);
      }
      continue;
    }
    if (t == BS_STRING && r.end_line > r.start_line && ts_node_has_error(parent) &&
        recover_string_lines(b, file, c, name, cond, arr, &closed)) {
      last_elem_line = UINT32_MAX;
      continue;
    }
    size_t before = arr->n;
    sh_expand(b->env, &sf, c, name, cond, arr);
    if (nb.active && nb.has_note && nb.last_line + 1 == r.start_line) {
      for (size_t k = before; k < arr->n; k++)
        if (looks_like_flag(arr->v[k].text)) {
          attach_note(b->env, &arr->v[k], nb.text.data, nb.file, nb.range);
          break;
        }
    }
    note_reset(&nb);
    if (r.start_line != last_elem_line) last_line_first = before;
    last_elem_line = r.end_line;
  }
  ts_tree_cursor_delete(&cur);
  note_reset(&nb);
  return closed;
}

/* NAME=( ... ) / NAME+=( ... ): the elements are children [from, to) of parent (the array node,
 * or an ERROR node the parser left around a half-typed one); `range` is the whole definition. */
static void define_array(builder *b, int file, TSNode parent, uint32_t from, uint32_t to,
                         const char *name, bool append, bool cond, sm_range range) {
  sh_fields *arr = sh_array_define(b->env, name, append);
  sm_array *a = PD_PUSH(b->m->arrays, b->m->narrays, b->arrays_cap);
  a->name = pd_xstrdup(name);
  a->file = file;
  a->range = range;
  a->append = append;
  a->conditional = cond;
  if (!strcmp(name, "MODEL_ARGS")) b->defined_model_args = true;
  fill_array(b, file, parent, from, to, sh_intern(b->env, name, strlen(name)), cond, arr);
}

/* ---- assignments, sources, commands ------------------------------------------------------- */

static void assign(builder *b, int file, TSNode n, bool cond, bool exported) {
  TSNode name = bs_child(n, BSF_NAME);
  TSNode value = bs_child(n, BSF_VALUE);
  if (ts_node_is_null(name)) return;
  /* NAME+=...: the operator follows the name (ts_node_child(n, i) would be O(i) each) */
  bool append = false;
  {
    const sm_file *f = &b->m->files[file];
    uint32_t e = ts_node_end_byte(name);
    append = e + 1 < f->len && f->text[e] == '+' && f->text[e + 1] == '=';
  }
  if (bs_is(name, BS_SUBSCRIPT)) return; /* A[3]=x: element writes do not matter here */
  char *vname = node_text(b, file, name);
  if (!ts_node_is_null(value) && bs_is(value, BS_ARRAY)) {
    define_array(b, file, value, 0, ts_node_child_count(value), vname, append, cond,
                 sh_node_range(n));
  } else {
    sh_file sf = shfile(b, file);
    bool known = true;
    char *v = ts_node_is_null(value) ? pd_xstrdup("") : sh_expand_scalar(b->env, &sf, value, &known);
    if (append) {
      const char *old;
      bool oldknown;
      if (sh_var_get(b->env, vname, &old, &oldknown)) {
        char *j = pd_xasprintf("%s%s", old, v);
        free(v);
        v = j;
        known = known && oldknown;
      }
    }
    sh_var_set(b->env, vname, v, known);
    sh_var_mark(b->env, vname, file, sh_node_range(n), exported);
    free(v);
  }
  free(vname);
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static void follow_source(builder *b, int file, TSNode cmd, TSNode arg) {
  b->unrepeatable = true;
  sh_file sf = shfile(b, file);
  char *raw = node_text(b, file, arg);
  const char *v;
  bool k;
  if (strstr(raw, "MODEL_CONFIG_DIR") && !sh_var_get(b->env, "MODEL_CONFIG_DIR", &v, &k)) {
    char *dir = discover_logged(b);
    if (dir) sh_var_set(b->env, "MODEL_CONFIG_DIR", dir, true);
    free(dir);
  }
  bool known;
  char *p = sh_expand_scalar(b->env, &sf, arg, &known);
  sm_range cr = sh_node_range(cmd);
  bool models = strstr(raw, "MODEL_CONFIG_DIR") || strstr(p, "/models/");
  if (!known || !*p) {
    add_cond(b, SM_WARN, "source-unresolved", file, cr,
             pd_xasprintf("cannot resolve the sourced path %s%s", raw,
                          models ? " (set the model config directory in the settings)" : ""));
    if (models && !b->m->ctx.model) {
      char *bn = pd_xstrdup(base_name(raw));
      size_t L = strlen(bn);
      while (L && (bn[L - 1] == '"' || bn[L - 1] == '\'')) bn[--L] = '\0';
      if (L > 3 && !strcmp(bn + L - 3, ".sh")) bn[L - 3] = '\0';
      b->m->ctx.model = bn;
      b->m->source_file = file;
      b->m->source_range = cr;
    }
    free(p);
    free(raw);
    return;
  }
  if (strlen(p) + strlen(b->m->files[file].path) >= PATH_MAX) {
    /* No such file can be opened; and a path built from ${SCRIPT_DIR} several times over would
     * grow with each level of sourcing (the fuzzer made gigabytes of messages that way). */
    add_cond(b, SM_WARN, "source-unresolved", file, cr,
             pd_xasprintf("the sourced path is %zu bytes long, over the system's limit of %d; "
                          "not followed",
                          strlen(p), PATH_MAX));
    free(p);
    free(raw);
    return;
  }
  char *full;
  if (p[0] == '/') {
    full = pd_path_normalize(p);
  } else {
    char *dir = pd_path_dirname(b->m->files[file].path);
    char *j = pd_xasprintf("%s/%s", dir, p);
    full = pd_path_normalize(j);
    free(j);
    free(dir);
  }
  free(p);
  free(raw);

  char *bn = pd_xstrdup(base_name(full));
  size_t L = strlen(bn);
  if (L > 3 && !strcmp(bn + L - 3, ".sh")) bn[L - 3] = '\0';

  for (size_t i = 0; i < b->nstack; i++)
    if (!strcmp(b->m->files[b->stack[i]].path, full)) {
      add_cond(b, SM_WARN, "source-cycle", file, cr,
               pd_xasprintf("%s sources itself (through %s); not followed again", full,
                            b->m->files[file].path));
      goto out;
    }
  if (b->nstack >= MAX_SOURCE_DEPTH) {
    add_cond(b, SM_WARN, "source-depth", file, cr,
             pd_xasprintf("sources nested more than %d deep; %s not followed", MAX_SOURCE_DEPTH,
                          full));
    goto out;
  }
  if (b->m->nfiles >= MAX_SOURCED_FILES) {
    add_cond(b, SM_WARN, "source-limit", file, cr,
             pd_xasprintf("more than %d files sourced in all; %s not followed", MAX_SOURCED_FILES,
                          full));
    goto out;
  }
  if (!under_root(full, b->opt->workspace_root)) {
    add_cond(b, SM_INFO, "source-outside", file, cr,
             pd_xasprintf("%s is outside the workspace; not followed", full));
    goto out;
  }
  if (!under_root_logged(b, full)) {
    add_cond(b, SM_INFO, "source-outside", file, cr,
             pd_xasprintf("%s is outside the workspace (through a symbolic link); not followed",
                          full));
    goto out;
  }
  size_t len = 0;
  errno = 0;
  const cache_entry *hit = cache_find(b->opt->cache, full);
  char *text = hit ? pd_xstrndup(hit->text, hit->len) : read_logged(b, full, &len);
  if (hit) len = hit->len;
  if (!text) {
    int e = errno;
    add_cond(b, SM_WARN, "source-missing", file, cr,
             pd_xasprintf("cannot read sourced file %s: %s", full,
                          e == EFBIG ? "file too large" : pd_read_error(e ? e : ENOENT)));
    if (models && !b->m->ctx.model) {
      b->m->ctx.model = pd_xstrdup(bn);
      b->m->source_file = file;
      b->m->source_range = cr;
    }
    goto out;
  }
  {
    int nf = add_file(b, full, text, len, file, cr);
    full = NULL;
    if (hit) {
      b->trees[nf] = tree_ref_new(ts_tree_copy(hit->tree));
    } else {
      b->trees[nf] = tree_ref_new(ts_parser_parse_string(b->parser, NULL, b->m->files[nf].text,
                                                         (uint32_t)b->m->files[nf].len));
      cache_add(b->opt->cache, b->m->files[nf].path, text, len, b->trees[nf]->tree);
    }
    bool before = b->defined_model_args;
    b->defined_model_args = false;
    walk_file(b, nf);
    if (b->defined_model_args && !before) {
      free(b->m->ctx.model);
      b->m->ctx.model = pd_xstrdup(bn);
      b->m->source_file = file;
      b->m->source_range = cr;
    }
    b->defined_model_args = b->defined_model_args || before;
  }
out:
  free(bn);
  free(full);
}

static const char *const launchers[] = {"ray",  "stdbuf", "nohup",    "env",  "timeout",
                                        "exec", "time",   "torchrun", "srun", "numactl"};

/* A command name the train line can start with (its last path component is looked at). */
static bool is_launcher_name(const char *s) {
  const char *t = base_name(s);
  if (!strncmp(t, "python", 6)) return true;
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
    if (!strcmp(t, launchers[i])) return true;
  return false;
}

static bool is_launcher(const sh_field *f) {
  if (!f->resolved) return true; /* "${TRAIN_PYTHON}" */
  return is_launcher_name(f->text);
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

static void consider_train(builder *b, int file, TSNode cmd, sh_fields *argv, bool cond) {
  long ep = find_entrypoint(argv);
  if (ep >= 0) b->unrepeatable = true;
  if (ep < 0 || argv->n == 0 || !is_launcher(&argv->v[0])) return;
  sm_range r = sh_node_range(cmd);
  if (b->train_found) {
    add_cond(b, SM_INFO, "train-line-extra", file, r,
             pd_xasprintf("another train command at line %u; the first one (line %u) is analysed",
                          r.start_line + 1, b->m->train_range.start_line + 1));
    return;
  }
  b->train_found = true;
  b->m->train_file = file;
  b->m->train_range = r;
  for (size_t i = (size_t)ep + 1; i < argv->n; i++) {
    sh_fields_push(&b->train, &argv->v[i]);
    if (cond && b->train.v[b->train.n - 1].group == NULL)
      b->train.v[b->train.n - 1].conditional = true;
  }
}

static void command(builder *b, int file, TSNode n, bool cond) {
  TSNode name = bs_child(n, BSF_NAME);
  if (ts_node_is_null(name)) return;
  char *cname = node_text(b, file, name);
  uint32_t nargs = 0;
  TSNode args[2];
  memset(args, 0, sizeof args);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode c = ts_node_named_child(n, i);
    if (ts_node_eq(c, name) || bs_is(c, BS_VARIABLE_ASSIGNMENT) || bs_is(c, BS_FILE_REDIRECT) ||
        bs_is(c, BS_HERESTRING_REDIRECT) || bs_is(c, BS_COMMENT))
      continue;
    if (nargs < 2) args[nargs] = c;
    nargs++;
  }
  if ((!strcmp(cname, "source") || !strcmp(cname, ".")) && nargs >= 1) {
    follow_source(b, file, n, args[0]);
    free(cname);
    return;
  }
  if (!strcmp(cname, "printf") && nargs >= 2) { /* printf -v VAR ...: set, value unknown */
    char *a0 = node_text(b, file, args[0]);
    if (!strcmp(a0, "-v")) {
      char *var = node_text(b, file, args[1]);
      sh_var_set(b->env, var, "", false);
      free(var);
    }
    free(a0);
  }
  int ffile;
  TSNode fbody;
  if (sh_func_get(b->env, cname, &ffile, &fbody)) {
    if (b->call_depth < MAX_CALL_DEPTH) {
      b->call_depth++;
      walk(b, ffile, fbody, cond);
      b->call_depth--;
    }
    free(cname);
    return;
  }
  /* An ordinary command (echo, cat, mkdir) matters only through expansions with side effects
   * (${X:=v}, $((X=1))): without a `$` or backquote, and not named like a launcher, it cannot be
   * the train line and changes nothing, so its words are not expanded. */
  bool ordinary = !strpbrk(cname, "$`\"'\\") && !is_launcher_name(cname);
  free(cname);
  if (ordinary) {
    size_t len;
    const char *t = node_span(b, file, n, &len);
    if (!len || (!memchr(t, '$', len) && !memchr(t, '`', len))) return;
  }

  sh_file sf = shfile(b, file);
  sh_fields argv = {0};
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    TSNode c = ts_node_child(n, i);
    if (!ts_node_is_named(c) || bs_is(c, BS_VARIABLE_ASSIGNMENT) || bs_is(c, BS_FILE_REDIRECT) ||
        bs_is(c, BS_HERESTRING_REDIRECT) || bs_is(c, BS_COMMENT))
      continue;
    if (bs_is(c, BS_COMMAND_NAME)) c = ts_node_named_child(c, 0);
    if (ts_node_is_null(c)) continue;
    sh_expand(b->env, &sf, c, NULL, cond, &argv);
  }
  consider_train(b, file, n, &argv, cond);
  sh_fields_free(&argv);
}

static void for_loop(builder *b, int file, TSNode n, bool cond) {
  TSNode var = bs_child(n, BSF_VARIABLE);
  TSNode body = bs_child(n, BSF_BODY);
  if (ts_node_is_null(var) || ts_node_is_null(body)) return;
  char *vname = node_text(b, file, var);
  sh_file sf = shfile(b, file);
  sh_fields items = {0};
  bool have_values = false;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    if (bs_child_in(n, i, BSF_VALUE)) {
      sh_expand(b->env, &sf, ts_node_child(n, i), NULL, true, &items);
      have_values = true;
    }
  }
  if (!have_values || items.n == 0) {
    walk(b, file, body, true); /* body once, values unknown */
  } else {
    for (size_t i = 0; i < items.n && b->loop_budget > 0; i++, b->loop_budget--) {
      if (items.v[i].vanished) continue;
      sh_var_set(b->env, vname, items.v[i].text, items.v[i].resolved);
      walk(b, file, body, true);
    }
  }
  (void)cond;
  sh_fields_free(&items);
  free(vname);
}

/* case WORD in ...: with a known subject only the first matching branch runs (still marked
 * conditional, since the subject is usually an environment default); otherwise all do. */
static void case_statement(builder *b, int file, TSNode n) {
  TSNode subject = bs_child(n, BSF_VALUE);
  sh_file sf = shfile(b, file);
  bool known = false;
  char *subj = ts_node_is_null(subject) ? NULL : sh_expand_scalar(b->env, &sf, subject, &known);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode item = ts_node_named_child(n, i);
    if (!bs_is(item, BS_CASE_ITEM)) continue;
    bool match = !known;
    for (uint32_t j = 0; known && !match && j < ts_node_child_count(item); j++) {
      if (!bs_child_in(item, j, BSF_VALUE)) continue;
      bool pk;
      char *pat = sh_expand_scalar(b->env, &sf, ts_node_child(item, j), &pk);
      match = pk && fnmatch(pat, subj, 0) == 0;
      free(pat);
    }
    if (!match) continue;
    for (uint32_t j = 0; j < ts_node_child_count(item); j++) {
      TSNode c = ts_node_child(item, j);
      if (bs_child_in(item, j, BSF_VALUE) || !ts_node_is_named(c)) continue;
      walk(b, file, c, true);
    }
    if (known) break;
  }
  free(subj);
}

/* Inside an ERROR node: statements the parser still recognised are walked; a dangling
 * `NAME=( ...` keeps collecting elements; loose words form a command. */
static void recover(builder *b, int file, TSNode n, bool cond) {
  uint32_t nc;
  TSNode *kids = children_of(n, &nc);
  uint32_t words_from = UINT32_MAX;
  for (uint32_t i = 0; i < nc; i++) {
    TSNode c = kids[i];
    bs_kind t = bs_kind_of(c);
    if (t == BS_VARIABLE_NAME && i + 2 < nc &&
        (bs_is(kids[i + 1], BS_EQ) || bs_is(kids[i + 1], BS_PLUS_EQ)) &&
        bs_is(kids[i + 2], BS_LPAREN)) {
      char *name = node_text(b, file, c);
      uint32_t j = i + 3;
      while (j < nc && !bs_is(kids[j], BS_RPAREN)) j++;
      define_array(b, file, n, i + 3, j, name, bs_is(kids[i + 1], BS_PLUS_EQ), cond, sh_node_range(c));
      free(name);
      i = j;
      words_from = UINT32_MAX;
      continue;
    }
    if (t == BS_WORD || t == BS_STRING || t == BS_RAW_STRING ||
        t == BS_CONCATENATION || t == BS_EXPANSION ||
        t == BS_SIMPLE_EXPANSION || t == BS_NUMBER) {
      if (words_from == UINT32_MAX) words_from = i;
      continue;
    }
    if (ts_node_is_named(c) && t != BS_COMMENT) walk(b, file, c, cond);
  }
  if (words_from != UINT32_MAX) {
    sh_file sf = shfile(b, file);
    sh_fields argv = {0};
    for (uint32_t i = words_from; i < nc; i++) {
      TSNode c = kids[i];
      if (ts_node_is_named(c) && !bs_is(c, BS_COMMENT)) sh_expand(b->env, &sf, c, NULL, cond, &argv);
    }
    consider_train(b, file, n, &argv, cond);
    sh_fields_free(&argv);
  }
  free(kids);
}

/* Walks each named child; a tree cursor keeps this linear (ts_node_child is O(index)). */
static void walk_children(builder *b, int file, TSNode n, bool cond) {
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      TSNode ch = ts_tree_cursor_current_node(&c);
      if (ts_node_is_named(ch)) walk(b, file, ch, cond);
    } while (ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
}

static void walk(builder *b, int file, TSNode n, bool cond) {
  bs_kind t = bs_kind_of(n);
  if (t == BS_VARIABLE_ASSIGNMENT) {
    assign(b, file, n, cond, false);
  } else if (t == BS_COMMAND) {
    command(b, file, n, cond);
  } else if (t == BS_DECLARATION_COMMAND) {
    char *kw = ts_node_child_count(n) ? node_text(b, file, ts_node_child(n, 0)) : NULL;
    bool exported = kw && !strcmp(kw, "export");
    free(kw);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode c = ts_node_named_child(n, i);
      if (bs_is(c, BS_VARIABLE_ASSIGNMENT)) {
        assign(b, file, c, cond, exported);
      } else if (exported && bs_is(c, BS_VARIABLE_NAME)) { /* export NAME */
        char *v = node_text(b, file, c);
        const char *val;
        bool known;
        if (sh_var_get(b->env, v, &val, &known)) sh_var_mark(b->env, v, file, sh_node_range(n), true);
        free(v);
      }
    }
  } else if (t == BS_UNSET_COMMAND) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      char *v = node_text(b, file, ts_node_named_child(n, i));
      if (strcmp(v, "-f") != 0 && strcmp(v, "-v") != 0) sh_var_unset(b->env, v);
      free(v);
    }
  } else if (t == BS_FUNCTION_DEFINITION) {
    TSNode name = bs_child(n, BSF_NAME);
    TSNode body = bs_child(n, BSF_BODY);
    if (!ts_node_is_null(name) && !ts_node_is_null(body)) {
      b->unrepeatable = true; /* its body is a node of this build's tree */
      char *fname = node_text(b, file, name);
      sh_func_define(b->env, fname, file, body);
      free(fname);
    }
  } else if (t == BS_FOR_STATEMENT) {
    for_loop(b, file, n, cond);
  } else if (t == BS_ERROR) {
    recover(b, file, n, cond);
  } else if (t == BS_CASE_STATEMENT) {
    case_statement(b, file, n);
  } else if (t == BS_IF_STATEMENT || t == BS_ELIF_CLAUSE ||
             t == BS_ELSE_CLAUSE || t == BS_WHILE_STATEMENT ||
             t == BS_C_STYLE_FOR_STATEMENT) {
    walk_children(b, file, n, true);
  } else if (t == BS_HEREDOC_BODY || t == BS_HEREDOC_REDIRECT ||
             t == BS_COMMENT || t == BS_TEST_COMMAND ||
             t == BS_COMMAND_SUBSTITUTION) {
    /* nothing to collect */
  } else {
    /* program, lists, pipelines, redirected statements, subshells, compound statements */
    walk_children(b, file, n, cond);
  }
}

/* ---- flags --------------------------------------------------------------------------------- */

static void value_from_field(sm_value *v, const sh_field *f) {
  v->text = pd_xstrdup(f->text);
  v->resolved = f->resolved;
  v->file = f->file;
  v->range = f->range;
}

static sm_range range_join(sm_range a, sm_range z) {
  sm_range r = a;
  if (z.end_byte > a.end_byte) {
    r.end_byte = z.end_byte;
    r.end_line = z.end_line;
    r.end_col = z.end_col;
  }
  return r;
}

static void build_flags(builder *b, const sh_fields *argv) {
  sm_model *m = b->m;
  size_t vcap = 0;
  sm_flag *cur = NULL;
  for (size_t i = 0; i < argv->n; i++) {
    const sh_field *f = &argv->v[i];
    if (f->vanished && f->undefined_array) {
      add_cond(b, SM_INFO, "spread-undefined", f->file, f->range,
               pd_xasprintf("%s: the array is never defined, so it expands to nothing", f->text));
      continue;
    }
    if (f->vanished) {
      bool at_end = i + 1 >= argv->n;
      if (cur && cur->nvalues == 0 && (at_end || looks_like_flag(argv->v[i + 1].text)))
        add_cond(b, SM_WARN, "value-vanished", f->file, f->range,
                 pd_xasprintf("%s expands to nothing here, so %s gets no value (argparse %s)",
                              f->text, cur->name,
                              at_end ? "fails: expected one argument"
                                     : "fails or swallows the next flag"));
      continue;
    }
    if (f->resolved && looks_like_flag(f->text)) {
      cur = PD_PUSH(m->flags, m->nflags, b->flags_cap);
      memset(cur, 0, sizeof *cur);
      vcap = 0;
      const char *eq = strchr(f->text, '=');
      cur->name = eq ? pd_xstrndup(f->text, (size_t)(eq - f->text)) : pd_xstrdup(f->text);
      cur->file = f->file;
      cur->range = f->range;
      cur->full = f->range;
      cur->group = f->group ? pd_xstrdup(f->group) : NULL;
      cur->conditional = f->conditional;
      cur->final_index = m->nflags - 1;
      if (f->note) {
        cur->note = pd_xstrdup(f->note);
        cur->note_file = f->note_file;
        cur->note_range = f->note_range;
      }
      if (eq) {
        sm_value *v = PD_PUSH(cur->values, cur->nvalues, vcap);
        value_from_field(v, f);
        free(v->text);
        v->text = pd_xstrdup(eq + 1);
      }
      continue;
    }
    if (!cur) {
      add_cond(b, SM_INFO, "stray-argument", f->file, f->range,
               pd_xasprintf("`%s` comes before any flag; argparse treats it as positional",
                            f->text));
      continue;
    }
    sm_value *v = PD_PUSH(cur->values, cur->nvalues, vcap);
    value_from_field(v, f);
    if (v->file == cur->file) cur->full = range_join(cur->full, v->range);
  }

  /* argparse: the last occurrence wins. Walking backwards with a table of names already seen
   * keeps this linear for scripts with tens of thousands of flags. */
  size_t cap = 16;
  while (cap < m->nflags * 2) cap *= 2;
  size_t *seen = pd_xmalloc(cap * sizeof *seen); /* flag index + 1; 0 = empty */
  memset(seen, 0, cap * sizeof *seen);
  for (size_t i = m->nflags; i-- > 0;) {
    size_t k = pd_hash_str(m->flags[i].name) & (cap - 1);
    while (seen[k] && strcmp(m->flags[seen[k] - 1].name, m->flags[i].name) != 0) k = (k + 1) & (cap - 1);
    if (seen[k]) {
      m->flags[i].overridden = true;
      m->flags[i].final_index = seen[k] - 1;
    } else {
      seen[k] = i + 1;
    }
  }
  m->flag_index = seen; /* kept for sm_flag_get */
  m->flag_index_cap = cap;
  /* JSON values */
  for (size_t i = 0; i < m->nflags; i++) {
    sm_flag *fl = &m->flags[i];
    if (fl->nvalues != 1 || !fl->values[0].resolved) continue;
    const char *s = fl->values[0].text;
    while (isspace((unsigned char)*s)) s++;
    if (*s != '{' && *s != '[') continue;
    json_error_t err;
    fl->json = json_loads(s, JSON_DECODE_ANY, &err);
    if (!fl->json && *s == '{')
      add_cond(b, SM_ERROR, "json-invalid", fl->values[0].file, fl->values[0].range,
               pd_xasprintf("%s: invalid JSON (%s at column %d)", fl->name, err.text,
                            err.column));
  }
}

/* The audit asks for ~1,000 names per model: the table build_flags left makes each O(1). */
static const sm_flag *last_of(const sm_model *m, const char *name) {
  if (m->flag_index) {
    size_t k = pd_hash_str(name) & (m->flag_index_cap - 1);
    for (; m->flag_index[k]; k = (k + 1) & (m->flag_index_cap - 1))
      if (!strcmp(m->flags[m->flag_index[k] - 1].name, name)) return &m->flags[m->flag_index[k] - 1];
    return NULL;
  }
  for (size_t i = m->nflags; i-- > 0;)
    if (!strcmp(m->flags[i].name, name)) return &m->flags[i];
  return NULL;
}

const sm_flag *sm_flag_get(const sm_model *m, const char *name) { return last_of(m, name); }

const char *sm_flag_str(const sm_model *m, const char *name) {
  const sm_flag *f = last_of(m, name);
  if (!f) return NULL;
  return f->nvalues ? f->values[0].text : "";
}

bool sm_flag_long(const sm_model *m, const char *name, long *out) {
  const sm_flag *f = last_of(m, name);
  if (!f || f->nvalues < 1 || !f->values[0].resolved) return false;
  double d;
  if (pd_parse_long(f->values[0].text, out)) return true;
  if (pd_parse_double(f->values[0].text, &d) && d == (double)(long)d) { /* "1e3" */
    *out = (long)d;
    return true;
  }
  return false;
}

bool sm_flag_double(const sm_model *m, const char *name, double *out) {
  const sm_flag *f = last_of(m, name);
  if (!f || f->nvalues < 1 || !f->values[0].resolved) return false;
  return pd_parse_double(f->values[0].text, out);
}

bool sm_flag_on(const sm_model *m, const char *name) {
  const sm_flag *f = last_of(m, name);
  if (!f) return false;
  char *no = pd_str_starts(name, "--") ? pd_xasprintf("--no-%s", name + 2) : NULL;
  const sm_flag *nf = no ? last_of(m, no) : NULL;
  free(no);
  long pos = (long)(f - m->flags), neg = nf ? (long)(nf - m->flags) : -1;
  /* `--flag false` (type=bool flags in Relax parse any string as True; Megatron's store_true
   * switches take none): treat an explicit false-looking value as off. */
  if (f->nvalues == 1 && f->values[0].resolved &&
      (!strcmp(f->values[0].text, "false") || !strcmp(f->values[0].text, "False") ||
       !strcmp(f->values[0].text, "0")))
    return false;
  return pos > neg;
}

/* Line and byte column of a byte offset (clamped to the file), by binary search in the file's
 * line starts: edits and findings ask for many positions in long files. */
static void pos_at(const sm_file *f, uint32_t byte, uint32_t *line, uint32_t *col) {
  if (byte > f->len) byte = (uint32_t)f->len;
  size_t lo = 0, hi = f->nlines;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->lines[mid] <= byte) lo = mid;
    else hi = mid;
  }
  *line = (uint32_t)lo;
  *col = byte - (f->nlines ? f->lines[lo] : 0);
}

sm_range sm_range_at(const sm_model *m, int file, uint32_t start_byte, uint32_t end_byte) {
  sm_range r = {start_byte, end_byte, 0, 0, 0, 0};
  if (file < 0 || (size_t)file >= m->nfiles) return r;
  const sm_file *f = &m->files[file];
  pos_at(f, end_byte, &r.end_line, &r.end_col);
  if (start_byte >= end_byte || start_byte >= f->len) {
    r.start_line = r.end_line;
    r.start_col = r.end_col;
  } else {
    pos_at(f, start_byte, &r.start_line, &r.start_col);
  }
  return r;
}

/* ---- context ------------------------------------------------------------------------------ */

static const struct {
  const char *canon;
  const char *aliases[4];
} gpus[] = {
    {"H20-96G", {"H20", "H20-96GB", NULL}},
    {"H100-80G", {"H100", "H100-80GB", NULL}},
    {"H800-80G", {"H800", "H800-80GB", NULL}},
    {"A100-80G", {"A100", "A100-80GB", NULL}},
    {"A100-40G", {"A100-40GB", NULL}},
    {"H200-141G", {"H200", "H200-141GB", NULL}},
    {"B200-192G", {"B200", "B200-192GB", NULL}},
    {"L20-48G", {"L20", "L20-48GB", NULL}},
};

/* Canonical GPU name ("h100" -> "H100-80G"); unknown names are kept, upper-cased. */
static char *gpu_canonical(const char *s) {
  char *u = pd_xstrdup(s);
  size_t n = 0;
  for (char *p = u; *p; p++)
    if (!isspace((unsigned char)*p)) u[n++] = (char)toupper((unsigned char)*p);
  u[n] = '\0';
  for (char *p = u; *p; p++)
    if (*p == '_' || *p == ' ') *p = '-';
  for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
    if (!strcmp(u, gpus[i].canon)) goto found;
    for (size_t j = 0; gpus[i].aliases[j]; j++)
      if (!strcmp(u, gpus[i].aliases[j])) {
        free(u);
        return pd_xstrdup(gpus[i].canon);
      }
    continue;
  found:
    return u;
  }
  return u;
}

/* `# perf-doctor: gpu=H100-80G` anywhere in the script */
static char *gpu_from_comment(const sm_file *f) {
  const char *p = f->text;
  while ((p = strstr(p, "perf-doctor:")) != NULL) {
    const char *line = p;
    while (line > f->text && line[-1] != '\n') line--;
    const char *hash = memchr(line, '#', (size_t)(p - line));
    p += 12;
    if (!hash) continue;
    while (*p == ' ') p++;
    if (strncmp(p, "gpu=", 4) != 0) continue;
    p += 4;
    const char *e = p;
    while (*e && !isspace((unsigned char)*e)) e++;
    if (e > p) return pd_xstrndup(p, (size_t)(e - p));
  }
  return NULL;
}

static long resource_gpus(json_t *res, const char *role) {
  json_t *v = json_object_get(res, role);
  if (!json_is_array(v) || json_array_size(v) < 2) return -1;
  json_t *g = json_array_get(v, 1);
  return json_is_integer(g) ? (long)json_integer_value(g) : -1;
}

static void derive_context(builder *b) {
  sm_model *m = b->m;
  sm_context *c = &m->ctx;
  fn_info fi = fn_parse(m->files[0].path);
  c->name_gpus = fi.gpus;
  c->name_device = fi.device ? pd_xstrdup(fi.device) : NULL;
  c->name_model = fi.model ? pd_xstrdup(fi.model) : NULL;
  c->name_size = fi.size ? pd_xstrdup(fi.size) : NULL;
  c->name_suffixes = fi.suffixes ? pd_xstrdup(fi.suffixes) : NULL;

  long v;
  c->num_experts = sm_flag_long(m, "--num-experts", &v) ? v : 0;
  c->moe = c->num_experts > 0;

  bool hybrid = sm_flag_on(m, "--hybrid"), fa = sm_flag_on(m, "--fully-async"),
       colo = sm_flag_on(m, "--colocate");
  c->mode = hybrid ? "hybrid" : fa ? "fully-async" : colo ? "colocate" : "unknown";
  if (!strcmp(c->mode, "unknown") && fi.mode_hint) c->mode = fi.mode_hint;

  /* modality: flags first, then the name and the model */
  c->modality = "text";
  for (size_t i = 0; i < m->nflags; i++) {
    const char *n = m->flags[i].name;
    if (strstr(n, "video")) {
      c->modality = "video";
      break;
    }
    if (strstr(n, "--multimodal") || strstr(n, "--image") || strstr(n, "vision") ||
        pd_str_starts(n, "--mm-"))
      c->modality = "mm";
  }
  if (!strcmp(c->modality, "text") && fi.modality_hint) c->modality = fi.modality_hint;
  if (!strcmp(c->modality, "text") && c->model &&
      (strstr(c->model, "-vl") || strstr(c->model, "omni") || strstr(c->model, "ocr")))
    c->modality = "mm";

  c->tp = sm_flag_long(m, "--tensor-model-parallel-size", &v) ? v : 1;
  c->pp = sm_flag_long(m, "--pipeline-model-parallel-size", &v) ? v : 1;
  c->cp = sm_flag_long(m, "--context-parallel-size", &v) ? v : 1;
  c->ep = sm_flag_long(m, "--expert-model-parallel-size", &v) ? v : 1;
  c->etp = sm_flag_long(m, "--expert-tensor-parallel-size", &v) ? v : c->tp; /* Megatron: ETP=TP */
  c->max_response_len = sm_flag_long(m, "--rollout-max-response-len", &v) ? v : -1;

  /* GPUs: --resource {role: [num_serves, num_gpus]}; colocate shares (max), else roles add up */
  c->gpus = c->actor_gpus = c->rollout_gpus = -1;
  const sm_flag *res = sm_flag_get(m, "--resource");
  if (res && json_is_object(res->json)) {
    c->actor_gpus = resource_gpus(res->json, "actor");
    c->rollout_gpus = resource_gpus(res->json, "rollout");
    long total = 0, maxg = 0;
    bool any = false;
    const char *key;
    json_t *val;
    json_object_foreach(res->json, key, val) {
      long g = resource_gpus(res->json, key);
      if (g < 0) continue;
      any = true;
      total += g;
      if (g > maxg) maxg = g;
    }
    if (any) c->gpus = (colo && !hybrid) ? maxg : total;
  }
  if (c->gpus < 0) c->gpus = fi.gpus;
  if (c->actor_gpus < 0 && sm_flag_long(m, "--actor-num-nodes", &v)) {
    long g;
    if (sm_flag_long(m, "--actor-num-gpus-per-node", &g)) c->actor_gpus = v * g;
  }
  long gpn = sm_flag_long(m, "--num-gpus-per-node", &v) ? v : 8;
  c->nodes = c->gpus_per_node = -1;
  if (c->gpus > 0) {
    long nn;
    if (sm_flag_long(m, "--nnodes", &nn) && nn > 0) {
      c->nodes = nn;
      c->gpus_per_node = (c->gpus + nn - 1) / nn;
    } else {
      c->gpus_per_node = c->gpus < gpn ? c->gpus : gpn;
      c->nodes = (c->gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    }
  }

  char *g = NULL;
  if (b->opt->gpu && *b->opt->gpu) g = gpu_canonical(b->opt->gpu);
  for (size_t i = 0; !g && i < m->nfiles; i++) {
    char *cg = gpu_from_comment(&m->files[i]);
    if (cg) g = gpu_canonical(cg);
    free(cg);
  }
  c->gpu_assumed = g == NULL;
  c->gpu = g ? g : pd_xstrdup("H20-96G");
  fn_info_free(&fi);
}

static void collect_var(void *ctx, const char *name, const char *value, bool known, bool exported,
                        int file, sm_range range) {
  builder *b = ctx;
  static const sm_var zero;
  sm_var *v = PD_PUSH(b->m->vars, b->m->nvars, b->vars_cap);
  *v = zero;
  v->name = pd_xstrdup(name);
  v->value = pd_xstrdup(known ? value : "");
  v->known = known;
  v->exported = exported;
  v->file = file;
  v->range = range;
}

static int by_var_name(const void *a, const void *b) {
  return strcmp(((const sm_var *)a)->name, ((const sm_var *)b)->name);
}

const sm_var *sm_var_get(const sm_model *m, const char *name) {
  sm_var key = {.name = (char *)name};
  return m->nvars ? bsearch(&key, m->vars, m->nvars, sizeof *m->vars, by_var_name) : NULL;
}

/* ---- copies of model parts (checkpoints and memos keep their own) ------------------------ */

static void conds_copy(sm_condition *d, const sm_condition *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
    d[i].code = pd_xstrdup(s[i].code);
    d[i].message = pd_xstrdup(s[i].message);
  }
}

static void arrays_copy(sm_array *d, const sm_array *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
    d[i].name = pd_xstrdup(s[i].name);
  }
}

static void conds_free(sm_condition *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(c[i].code);
    free(c[i].message);
  }
  free(c);
}

static void arrays_free(sm_array *a, size_t n) {
  for (size_t i = 0; i < n; i++) free(a[i].name);
  free(a);
}

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
  bool defined_model_args;
} memo;

typedef struct {
  char *text; /* the script's text the positions refer to */
  size_t len, nlines;
  memo **v;   /* by start; NULL once moved to a newer store */
  size_t n, cap;
} memo_store;

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
  arrays_free(x->arrays, x->narrays);
  conds_free(x->conds, x->nconds);
  free(x);
}

static memo_store *memo_store_new(const sm_file *f) {
  memo_store *st = pd_xcalloc(1, sizeof *st);
  st->text = pd_xstrndup(f->text, f->len);
  st->len = f->len;
  st->nlines = f->nlines;
  return st;
}

static void memo_store_free(memo_store *st) {
  if (!st) return;
  for (size_t i = 0; i < st->n; i++) memo_free(st->v[i]);
  free(st->v);
  free(st->text);
  free(st);
}

/* Where the last store's statements are now: text after the edited region moved by delta bytes
 * and dlines lines; new_tail is where the unchanged tail starts in this build's text. */
typedef struct {
  memo_store *old;
  long long delta, dlines;
  uint32_t new_tail;
  size_t next; /* memo_find's position in old */
} memo_map;

static void memo_map_init(memo_map *mm, memo_store *old, const sm_file *now) {
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
  const memo_store *st = mm->old;
  while (mm->next < st->n && (!st->v[mm->next] || st->v[mm->next]->start < start)) mm->next++;
  if (mm->next < st->n && st->v[mm->next]->start == start) {
    *at = mm->next;
    return st->v[mm->next];
  }
  return NULL;
}

/* Replays child ch from the last store when it is unchanged and finds the same state; the memo
 * then moves to `fresh`. */
static bool memo_replay(builder *b, memo_map *mm, TSNode ch, memo_store *fresh) {
  uint32_t ns = ts_node_start_byte(ch), ne = ts_node_end_byte(ch);
  if (ns < mm->new_tail) return false;
  size_t at;
  memo *x = memo_find(mm, (uint32_t)((long long)ns - mm->delta), &at);
  TSPoint p = ts_node_start_point(ch);
  if (!x || (long long)x->end + mm->delta != ne || x->symbol != ts_node_symbol(ch) ||
      (long long)x->line + mm->dlines != p.row || x->col != p.column ||
      x->loop_before != b->loop_budget)
    return false;
  for (size_t i = 0; i < x->nreads; i++)
    if (!sh_dep_holds(b->env, &x->reads[i])) return false;
  stmt_frame fr = {ns, ne, p.row};
  for (size_t i = 0; i < x->nwrites; i++) sh_restore(b->env, x->writes[i], range_to_abs, &fr);
  for (size_t i = 0; i < x->narrays; i++) {
    sm_array *a = PD_PUSH(b->m->arrays, b->m->narrays, b->arrays_cap);
    arrays_copy(a, &x->arrays[i], 1);
    range_to_abs(&fr, a->file, &a->range);
  }
  for (size_t i = 0; i < x->nconds; i++) {
    sm_condition *c = PD_PUSH(b->m->conds, b->m->nconds, b->conds_cap);
    conds_copy(c, &x->conds[i], 1);
    range_to_abs(&fr, c->file, &c->range);
  }
  if (x->defined_model_args) b->defined_model_args = true;
  b->loop_budget = x->loop_after;
  mm->old->v[at] = NULL;
  x->start = ns;
  x->end = ne;
  x->line = p.row;
  *PD_PUSH(fresh->v, fresh->n, fresh->cap) = x;
  return true;
}

/* Walks child ch recording what it depends on and what it does, into `fresh`. */
static void memo_walk(builder *b, TSNode ch, memo_store *fresh) {
  size_t arrays0 = b->m->narrays, conds0 = b->m->nconds, loop0 = b->loop_budget;
  bool dma0 = b->defined_model_args; /* only follow_source reads it, and is never replayed */
  b->unrepeatable = false;
  sh_track_begin(b->env);
  walk(b, 0, ch, false);
  memo *x = pd_xcalloc(1, sizeof *x);
  sh_write *writes;
  if (!sh_track_end(b->env, !b->unrepeatable, &x->reads, &x->nreads, &writes, &x->nwrites))
    b->unrepeatable = true;
  bool dma = !dma0 && b->defined_model_args;
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
  x->loop_after = b->loop_budget;
  x->defined_model_args = dma;
  stmt_frame fr = {x->start, x->end, x->line};
  x->writes = pd_xmalloc((x->nwrites ? x->nwrites : 1) * sizeof *x->writes);
  for (size_t i = 0; i < x->nwrites; i++) {
    x->writes[i] = sh_save(b->env, &writes[i], range_to_rel, &fr);
    free(writes[i].name);
  }
  free(writes);
  x->narrays = b->m->narrays - arrays0;
  x->arrays = pd_xmalloc((x->narrays ? x->narrays : 1) * sizeof *x->arrays);
  if (x->narrays) arrays_copy(x->arrays, b->m->arrays + arrays0, x->narrays); /* may be NULL */
  for (size_t i = 0; i < x->narrays; i++) range_to_rel(&fr, x->arrays[i].file, &x->arrays[i].range);
  x->nconds = b->m->nconds - conds0;
  x->conds = pd_xmalloc((x->nconds ? x->nconds : 1) * sizeof *x->conds);
  if (x->nconds) conds_copy(x->conds, b->m->conds + conds0, x->nconds);
  for (size_t i = 0; i < x->nconds; i++) range_to_rel(&fr, x->conds[i].file, &x->conds[i].range);
  *PD_PUSH(fresh->v, fresh->n, fresh->cap) = x;
}

/* ---- checkpoints: resuming a build at a top-level statement ------------------------------- */

#define MAX_PINNED 8 /* older script trees a checkpoint keeps alive; beyond, build from the top */

struct sm_checkpoint {
  char *path;              /* the script */
  char *options;           /* the options the walk depends on, as one string */
  uint32_t index;          /* child of the script's root to resume at */
  uint32_t start_byte;     /* where that child starts */
  TSNode before[2];        /* the children just before it (nodes of trees[0]; null when none) */
  sm_file *files;          /* files[1..nfiles) as sourced so far; files[0] unused */
  tree_ref **trees;        /* per file; trees[0] is the script's tree of the build that took it */
  size_t nfiles;
  tree_ref **pinned;
  size_t npinned;
  sm_array *arrays;
  size_t narrays;
  sm_condition *conds;
  size_t nconds;
  char *model;
  int source_file, train_file;
  sm_range source_range, train_range;
  sh_env *env;
  sh_fields train;
  size_t loop_budget, syntax_conds;
  bool train_found, defined_model_args;
  fsq *fslog;
  size_t nfslog;
  memo_store *memo; /* the statements from `index` on, as the last build left them */
};

static char *options_key(const builder *b) {
  const sm_options *o = b->opt;
  return pd_xasprintf("%s\n%s\n%zu\n%d", o->model_config_dir ? o->model_config_dir : "",
                      o->workspace_root ? o->workspace_root : "", o->max_file_bytes,
                      o->reader != NULL);
}

static void file_copy(sm_file *d, const sm_file *s) {
  *d = *s;
  d->path = s->path ? pd_xstrdup(s->path) : NULL;
  d->text = pd_xstrndup(s->text, s->len);
  d->lines = pd_xmalloc((s->nlines ? s->nlines : 1) * sizeof *d->lines);
  memcpy(d->lines, s->lines, s->nlines * sizeof *d->lines);
}

static fsq *fslog_copy(const fsq *s, size_t n) {
  fsq *d = pd_xmalloc((n ? n : 1) * sizeof *d);
  for (size_t i = 0; i < n; i++) {
    d[i] = s[i];
    d[i].path = pd_xstrdup(s[i].path);
  }
  return d;
}

static void fslog_free(fsq *log, size_t n) {
  for (size_t i = 0; i < n; i++) free(log[i].path);
  free(log);
}

void sm_checkpoint_free(sm_checkpoint *c) {
  if (!c) return;
  free(c->path);
  free(c->options);
  for (size_t i = 0; i < c->nfiles; i++) {
    if (i) {
      free(c->files[i].path);
      free(c->files[i].text);
      free(c->files[i].lines);
    }
    tree_ref_drop(c->trees[i]);
  }
  free(c->files);
  free(c->trees);
  for (size_t i = 0; i < c->npinned; i++) tree_ref_drop(c->pinned[i]);
  free(c->pinned);
  arrays_free(c->arrays, c->narrays);
  conds_free(c->conds, c->nconds);
  free(c->model);
  sh_env_free(c->env);
  sh_fields_free(&c->train);
  fslog_free(c->fslog, c->nfslog);
  memo_store_free(c->memo);
  free(c);
}

/* The builder's state before child `index` (starting at start_byte) of the script's root. Only
 * called at the script's top level: no call, loop or nested source is in progress. */
static sm_checkpoint *checkpoint_take(const builder *b, uint32_t index, uint32_t start_byte,
                                      const TSNode before[2]) {
  const sm_model *m = b->m;
  sm_checkpoint *c = pd_xcalloc(1, sizeof *c);
  c->path = pd_xstrdup(m->files[0].path);
  c->options = options_key(b);
  c->index = index;
  c->start_byte = start_byte;
  c->before[0] = before[0];
  c->before[1] = before[1];
  c->nfiles = m->nfiles;
  c->files = pd_xcalloc(m->nfiles, sizeof *c->files);
  c->trees = pd_xcalloc(m->nfiles, sizeof *c->trees);
  for (size_t i = 0; i < m->nfiles; i++) {
    if (i) file_copy(&c->files[i], &m->files[i]);
    c->trees[i] = tree_ref_take(b->trees[i]);
  }
  c->npinned = b->npinned;
  c->pinned = pd_xmalloc((b->npinned ? b->npinned : 1) * sizeof *c->pinned);
  for (size_t i = 0; i < b->npinned; i++) c->pinned[i] = tree_ref_take(b->pinned[i]);
  c->narrays = m->narrays;
  c->arrays = pd_xmalloc((m->narrays ? m->narrays : 1) * sizeof *c->arrays);
  arrays_copy(c->arrays, m->arrays, m->narrays);
  c->nconds = m->nconds;
  c->conds = pd_xmalloc((m->nconds ? m->nconds : 1) * sizeof *c->conds);
  conds_copy(c->conds, m->conds, m->nconds);
  c->model = m->ctx.model ? pd_xstrdup(m->ctx.model) : NULL;
  c->source_file = m->source_file;
  c->source_range = m->source_range;
  c->train_file = m->train_file;
  c->train_range = m->train_range;
  c->env = sh_env_clone(b->env);
  for (size_t i = 0; i < b->train.n; i++) sh_fields_push(&c->train, &b->train.v[i]);
  c->loop_budget = b->loop_budget;
  c->syntax_conds = b->syntax_conds;
  c->train_found = b->train_found;
  c->defined_model_args = b->defined_model_args;
  c->fslog = fslog_copy(b->fslog, b->nfslog);
  c->nfslog = b->nfslog;
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

/* Whether the build can start at c: `cur` is a cursor at the script's root, left at the
 * checkpoint's child when it can. The statements just before that child are compared with the
 * checkpoint's tree too: the parser's lookahead past a statement's end is a byte or two, so an
 * edit at or after the checkpoint can change the syntax of the statement just before it. */
/* The same script under the same options. */
static bool checkpoint_same_script(const builder *b, const sm_checkpoint *c) {
  if (strcmp(c->path, b->m->files[0].path) != 0) return false;
  char *key = options_key(b);
  bool same = !strcmp(key, c->options);
  free(key);
  return same;
}

static bool checkpoint_fits(builder *b, const sm_checkpoint *c, uint32_t unchanged_before,
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
  return fslog_holds(b, c->fslog, c->nfslog);
}

/* The builder as it was when c was taken (file 0 and its tree are this build's own). */
static void checkpoint_restore(builder *b, const sm_checkpoint *c) {
  sm_model *m = b->m;
  for (size_t i = 1; i < c->nfiles; i++) {
    sm_file *f = PD_PUSH(m->files, m->nfiles, b->files_cap);
    file_copy(f, &c->files[i]);
    *PD_PUSH(b->trees, b->ntrees, b->trees_cap) = tree_ref_take(c->trees[i]);
  }
  for (size_t i = 0; i < c->npinned; i++)
    *PD_PUSH(b->pinned, b->npinned, b->pinned_cap) = tree_ref_take(c->pinned[i]);
  /* Functions defined before the checkpoint are nodes of the tree it was taken from. */
  *PD_PUSH(b->pinned, b->npinned, b->pinned_cap) = tree_ref_take(c->trees[0]);
  for (size_t i = 0; i < c->narrays; i++) {
    sm_array *a = PD_PUSH(m->arrays, m->narrays, b->arrays_cap);
    arrays_copy(a, &c->arrays[i], 1);
  }
  for (size_t i = 0; i < c->nconds; i++) {
    sm_condition *d = PD_PUSH(m->conds, m->nconds, b->conds_cap);
    conds_copy(d, &c->conds[i], 1);
  }
  m->ctx.model = c->model ? pd_xstrdup(c->model) : NULL;
  m->source_file = c->source_file;
  m->source_range = c->source_range;
  m->train_file = c->train_file;
  m->train_range = c->train_range;
  sh_env_free(b->env);
  b->env = sh_env_clone(c->env);
  for (size_t i = 0; i < c->train.n; i++) sh_fields_push(&b->train, &c->train.v[i]);
  b->loop_budget = c->loop_budget;
  b->syntax_conds = c->syntax_conds;
  b->train_found = c->train_found;
  b->defined_model_args = c->defined_model_args;
  fslog_free(b->fslog, b->nfslog);
  b->fslog = fslog_copy(c->fslog, c->nfslog);
  b->nfslog = b->fslog_cap = c->nfslog;
}

/* The script's top level: like walk_file, but resuming at a checkpoint and leaving one before
 * the statement the user is editing (the one around `focus`, or the first after it). */
static void walk_script(builder *b) {
  sm_resume *rs = b->opt->resume;
  TSNode root = ts_tree_root_node(b->trees[0]->tree);
  bool clean = !ts_node_has_error(root) && !b->opt->cache;
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool at_child = false;
  uint32_t i = 0;
  TSNode before[2] = {{{0, 0, 0, 0}, NULL, NULL}, {{0, 0, 0, 0}, NULL, NULL}};
  if (rs) rs->resumed = false;
  if (rs && rs->checkpoint && clean &&
      checkpoint_fits(b, rs->checkpoint, rs->unchanged_before, root, &cur)) {
    checkpoint_restore(b, rs->checkpoint);
    i = rs->checkpoint->index;
    before[0] = rs->checkpoint->before[0]; /* nodes of a tree the restore pinned */
    before[1] = rs->checkpoint->before[1];
    at_child = true;
    rs->resumed = true;
  } else {
    ts_tree_cursor_reset(&cur, root);
    report_syntax(b, 0, root);
    at_child = ts_tree_cursor_goto_first_child(&cur);
  }
  bool want = rs && clean, keep = false;
  sm_checkpoint *taken = NULL;
  memo_map mm = {0};
  if (rs && clean && rs->checkpoint && rs->checkpoint->memo &&
      (rs->resumed || checkpoint_same_script(b, rs->checkpoint)))
    memo_map_init(&mm, rs->checkpoint->memo, &b->m->files[0]);
  memo_store *fresh = NULL; /* statements from the checkpoint on, for the next build */
  size_t replayed = 0;

  *PD_PUSH(b->stack, b->nstack, b->stack_cap) = 0;
  for (; at_child; at_child = ts_tree_cursor_goto_next_sibling(&cur), i++) {
    TSNode ch = ts_tree_cursor_current_node(&cur);
    if (want && ts_node_end_byte(ch) > rs->focus) { /* the first child reaching the focus */
      want = false;
      if (rs->resumed && rs->checkpoint->index == i) keep = true;
      else if (b->npinned < MAX_PINNED)
        taken = checkpoint_take(b, i, ts_node_start_byte(ch), before);
      if (keep || taken) fresh = memo_store_new(&b->m->files[0]);
    }
    if (fresh && ts_node_is_named(ch)) {
      if (mm.old && memo_replay(b, &mm, ch, fresh)) replayed++;
      else memo_walk(b, ch, fresh);
    } else if (ts_node_is_named(ch)) {
      walk(b, 0, ch, false);
    }
    before[1] = before[0];
    before[0] = ch;
  }
  if (rs) rs->replayed = replayed;
  sm_checkpoint *final = keep ? rs->checkpoint : taken;
  if (final) {
    memo_store_free(final->memo);
    final->memo = fresh;
  } else {
    memo_store_free(fresh);
  }
  ts_tree_cursor_delete(&cur);
  b->nstack--;
  if (rs && !keep) {
    sm_checkpoint_free(rs->checkpoint);
    rs->checkpoint = taken;
  }
}

/* ---- build / free --------------------------------------------------------------------------- */

sm_model *sm_build(const char *path, const char *text, size_t len, const TSTree *tree,
                   const sm_options *opt) {
  static const sm_options defaults = {0};
  sm_model *m = pd_xcalloc(1, sizeof *m);
  m->train_file = -1;
  m->source_file = -1;
  builder b = {.m = m, .opt = opt ? opt : &defaults, .loop_budget = MAX_LOOP_ITER};
  b.env = sh_env_new();
  b.parser = sm_parser_new();
  add_file(&b, path_absolute(path ? path : "script.sh"), pd_xstrndup(text, len), len, -1,
           (sm_range){0});
  if (!b.parser) {
    add_cond(&b, SM_ERROR, "grammar", 0, (sm_range){0},
             pd_xstrdup("the tree-sitter runtime rejected the bash grammar (ABI mismatch)"));
    derive_context(&b);
    goto done;
  }
  b.trees[0] = tree_ref_new(tree ? ts_tree_copy(tree)
                                 : ts_parser_parse_string(b.parser, NULL, m->files[0].text,
                                                          (uint32_t)len));
  walk_script(&b);

  m->train_line_found = b.train_found;
  if (b.train_found) {
    build_flags(&b, &b.train);
  } else {
    /* No train command: every *_ARGS array counts as passed, in definition order. */
    sh_fields all = {0};
    const char **names;
    size_t n = sh_array_names(b.env, &names);
    for (size_t i = 0; i < n; i++) {
      if (!pd_str_ends(names[i], "_ARGS")) continue;
      sh_fields *a = sh_array_get(b.env, names[i]);
      for (size_t j = 0; a && j < a->n; j++) sh_fields_push(&all, &a->v[j]);
    }
    build_flags(&b, &all);
    sh_fields_free(&all);
    add_cond(&b, SM_INFO, "no-train-line", 0, (sm_range){0},
             pd_xstrdup("no `python3 -m relax.entrypoints.train` command found; every *_ARGS "
                        "array in the file is counted as passed"));
  }
  derive_context(&b);
  sh_var_foreach(b.env, collect_var, &b);
  if (m->nvars) qsort(m->vars, m->nvars, sizeof *m->vars, by_var_name);

done:
  sh_fields_free(&b.train); /* before the trees and the env its strings live in */
  for (size_t i = 0; i < b.ntrees; i++) tree_ref_drop(b.trees[i]);
  free(b.trees);
  for (size_t i = 0; i < b.npinned; i++) tree_ref_drop(b.pinned[i]);
  free(b.pinned);
  fslog_free(b.fslog, b.nfslog);
  free(b.stack);
  sh_env_free(b.env);
  if (b.parser) ts_parser_delete(b.parser);
  return m;
}

void sm_model_free(sm_model *m) {
  if (!m) return;
  free(m->flag_index);
  for (size_t i = 0; i < m->nfiles; i++) {
    free(m->files[i].path);
    free(m->files[i].text);
    free(m->files[i].lines);
  }
  free(m->files);
  for (size_t i = 0; i < m->nflags; i++) {
    sm_flag *f = &m->flags[i];
    free(f->name);
    for (size_t j = 0; j < f->nvalues; j++) free(f->values[j].text);
    free(f->values);
    free(f->group);
    free(f->note);
    json_decref(f->json);
  }
  free(m->flags);
  arrays_free(m->arrays, m->narrays);
  conds_free(m->conds, m->nconds);
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
