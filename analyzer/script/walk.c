/* walk: the statement walker. It walks the syntax tree statement by statement, the way bash
 * would run it but without running anything, collecting arrays, variables and the train
 * command into the walk's state (sm_int.h). */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"
#include "script/bashcheck.h"
#include "script/bashsym.h"
#include "script/sh_printf.h"
#include "script/sm_int.h"

sh_file sm_shfile(const sm_builder *b, int file) {
  const sm_file *f = &b->w.files[file];
  return (sh_file){f->text, f->len, file, f->path};
}

void sm_add_cond(sm_builder *b, sm_level lvl, const char *code, int file, sm_range r,
                     char *message) {
  sm_condition *c = PD_PUSH(b->w.conds, b->w.nconds, b->w.conds_cap);
  *c = (sm_condition){.level = lvl, .code = pd_xstrdup(code), .message = message, .file = file,
                      .range = r, .cert = SM_CERT_LITERAL, .flag_index = -1};
}

/* The source text of n (clamped to the file), borrowed. */
const char *sm_node_span(const sm_builder *b, int file, TSNode n, size_t *len) {
  const sm_file *f = &b->w.files[file];
  uint32_t a = ts_node_start_byte(n), z = ts_node_end_byte(n);
  if (z > f->len) z = (uint32_t)f->len;
  if (a > z) a = z;
  *len = z - a;
  return f->text + a;
}

char *sm_node_text(const sm_builder *b, int file, TSNode n) {
  size_t len;
  const char *s = sm_node_span(b, file, n, &len);
  return pd_xstrndup(s, len);
}


/* All children of n in one pass (ts_node_child is O(index) in this runtime). Caller frees. */
TSNode *sm_children(TSNode n, uint32_t *count) {
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

void sm_cond_about(sm_builder *b, const char *subject, const char *flag) {
  sm_condition *c = &b->w.conds[b->w.nconds - 1];
  c->subject = subject ? pd_xstrdup(subject) : NULL;
  c->flag = flag ? pd_xstrdup(flag) : NULL;
}

/* Where to show a syntax error. A missing token sits where the parser gave up (often the end of
 * the file); the user needs the construct it fails to close: its opening token (`"`, `if`, `(`). */
static sm_range syntax_range(TSNode n) {
  if (!ts_node_is_missing(n)) return sh_node_range(n);
  TSNode p = ts_node_parent(n);
  if (ts_node_is_null(p) || ts_node_child_count(p) < 2) return sh_node_range(n);
  TSNode open = ts_node_child(p, 0);
  if (ts_node_is_missing(open) || ts_node_end_byte(open) <= ts_node_start_byte(open))
    return sh_node_range(n);
  return sh_node_range(open);
}

void sm_report_syntax(sm_builder *b, int file, TSNode n) {
  if (b->w.syntax_conds >= SM_MAX_SYNTAX_CONDS) return;
  if (bs_is(n, BS_ERROR) || ts_node_is_missing(n)) {
    char *snippet = sm_node_text(b, file, n);
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
    sm_add_cond(b, SM_ERROR, "syntax", file, syntax_range(n), msg);
    /* a token the parser had to supply (a closing quote, `fi`, `)`) is one bash misses too */
    sm_cond_about(b, ts_node_is_missing(n) ? ts_node_type(n) : snippet, NULL);
    b->w.conds[b->w.nconds - 1].missing = ts_node_is_missing(n);
    free(snippet);
    b->w.syntax_conds++;
    return;
  }
  if (!ts_node_has_error(n)) return;
  uint32_t nc;
  TSNode *kids = sm_children(n, &nc);
  for (uint32_t i = 0; i < nc && b->w.syntax_conds < SM_MAX_SYNTAX_CONDS; i++)
    sm_report_syntax(b, file, kids[i]);
  free(kids);
}

/* Where bash itself refuses the file, as one condition at the place `bash -n` names; when bash
 * accepts it, what this parser could not read (each ERROR / MISSING node). */
void sm_syntax(sm_builder *b, int file, TSNode root) {
  if (!ts_node_has_error(root)) return;
  const sm_file *f = &b->w.files[file];
  bc_error e;
  if (!bc_check(f->text, f->len, &e)) {
    size_t c0 = b->w.nconds;
    sm_report_syntax(b, file, root);
    for (size_t i = c0; i < b->w.nconds; i++) b->w.conds[i].missing = false; /* bash has it all */
    return;
  }
  bool open = e.kind != BC_TOKEN;
  sm_range opened = sm_file_range(f, e.open_at, e.open_end);
  char *msg = e.kind == BC_TOKEN ? pd_xasprintf("bash: syntax error near unexpected token `%s`", e.token)
              : e.kind == BC_EOF_QUOTE
                  ? pd_xasprintf("bash: unexpected end of file while looking for the `%s` that closes the `%s` on line %u",
                                 e.token, e.opener, opened.start_line + 1)
                  : pd_xasprintf("bash: unexpected end of file: the `%s` on line %u is never closed", e.opener,
                                 opened.start_line + 1);
  sm_add_cond(b, SM_ERROR, "syntax", file, sm_file_range(f, e.at, e.end), msg);
  sm_condition *c = &b->w.conds[b->w.nconds - 1];
  sm_cond_about(b, e.kind == BC_EOF ? (*e.closer ? e.closer : e.opener) : e.token, NULL);
  c = &b->w.conds[b->w.nconds - 1];
  c->missing = open;
  c->bash = e.kind == BC_TOKEN ? "token" : e.kind == BC_EOF ? "eof" : "eof-quote";
  if (open) {
    c->opener = pd_xstrdup(e.opener);
    c->closer = *e.closer ? pd_xstrdup(e.closer) : e.kind == BC_EOF_QUOTE ? pd_xstrdup(e.token) : NULL;
    c->opened = opened;
  }
  b->w.syntax_conds++;
}

void sm_walk_file(sm_builder *b, int file) {
  TSNode root = ts_tree_root_node(b->w.trees[file]->tree);
  sm_syntax(b, file, root);
  *PD_PUSH(b->stack, b->nstack, b->stack_cap) = file;
  sm_walk_node(b, file, root, false);
  b->nstack--;
}

/* ---- NOTE comments ------------------------------------------------------------------------ */

/* A comment that ends in a `<...>` placeholder: the one the editor's "add a NOTE" action
 * inserts, in any language (`<reason this setting is right here>`, `<此设置在这里合理的原因>`). */
static bool ends_in_placeholder(const char *c) {
  size_t n = strlen(c);
  while (n > 0 && (c[n - 1] == ' ' || c[n - 1] == '\t' || c[n - 1] == '\r' || c[n - 1] == '\n')) n--;
  if (n == 0 || c[n - 1] != '>') return false;
  for (size_t i = n - 1; i-- > 0;)
    if (c[i] == '<') return i + 2 < n; /* something between the brackets */
  return false;
}

/* "# NOTE(x): why" / "#NOTE: why" -> true. A NOTE still holding the placeholder the editor's
 * "add a NOTE" action inserts gives no reason yet, so it is none. */
static bool is_note(const char *c) {
  while (*c == '#' || *c == ' ' || *c == '\t') c++;
  return !strncmp(c, "NOTE", 4) && (c[4] == '(' || c[4] == ':' || c[4] == ' ') && !ends_in_placeholder(c);
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
static void note_add_line(note_block *nb, const sm_builder *b, int file, TSNode c) {
  sm_range r = sh_node_range(c);
  if (!nb->active || r.start_line != nb->last_line + 1) {
    note_reset(nb);
    nb->active = true;
    nb->range = r;
    nb->file = file;
  }
  char *t = sm_node_text(b, file, c);
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

bool sm_looks_like_flag(const char *s) {
  return s[0] == '-' && s[1] == '-' && isalpha((unsigned char)s[2]);
}

/* Fields expanded on a path a test on a default chose rest on that default. */
static void on_path(const sm_builder *b, sh_fields *fs, size_t from) {
  for (size_t i = from; b->path_cert < SM_CERT_LITERAL && i < fs->n; i++)
    if (fs->v[i].cert > b->path_cert && sm_cert_known(fs->v[i].cert)) {
      fs->v[i].cert = b->path_cert;
      fs->v[i].cert_var = b->path_var;
    }
}

static void attach_note(sh_env *e, sh_field *f, const char *text, int file, sm_range r) {
  f->note = sh_intern(e, text, strlen(text));
  f->note_file = file;
  f->note_range = r;
}

/* ---- arrays -------------------------------------------------------------------------------- */

/* Unterminated double quote inside an array (half-typed): the grammar swallows the following
 * lines into the string. Keep its first line as the value and re-read the rest line by line. */
static bool recover_string_lines(sm_builder *b, int file, TSNode str, const char *group, bool cond,
                                 sh_fields *arr, bool *closed) {
  const sm_file *f = &b->w.files[file];
  uint32_t a = ts_node_start_byte(str), z = ts_node_end_byte(str);
  if (z > f->len) z = (uint32_t)f->len;
  const char *nl = memchr(f->text + a, '\n', z - a);
  if (!nl) return false;
  uint32_t first_end = (uint32_t)(nl - f->text);
  sm_range r0 = sm_file_range(&b->w.files[file], a, first_end);
  sh_field *v = PD_PUSH(arr->v, arr->n, arr->cap);
  memset(v, 0, sizeof *v);
  v->text = sh_intern(b->w.env, f->text + a + 1, first_end - a - 1);
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
      t->text = sh_intern(b->w.env, f->text + q, w - q);
      t->resolved = !memchr(t->text, '$', w - q) && !memchr(t->text, '\'', w - q);
      t->file = file;
      t->range = sm_file_range(&b->w.files[file], q, w);
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
static bool fill_array(sm_builder *b, int file, TSNode parent, uint32_t from, uint32_t to,
                       const char *name, bool cond, sh_fields *arr) {
  sh_file sf = sm_shfile(b, file);
  note_block nb = {0};
  uint32_t last_elem_line = UINT32_MAX;
  size_t last_line_first = arr->n; /* first field produced on last_elem_line */
  bool closed = false;
  uint32_t prev_end = UINT32_MAX; /* end byte of the last element, to glue the next to it */
  bool prev_fields = false;
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
      prev_end = UINT32_MAX;
      if (r.start_line == last_elem_line) {
        /* trailing comment: a NOTE explains the last flag on that line */
        char *txt = sm_node_text(b, file, c);
        if (is_note(txt)) {
          for (size_t k = arr->n; k-- > last_line_first;)
            if (sm_looks_like_flag(arr->v[k].text)) {
              const char *s = txt;
              while (*s == '#' || *s == ' ') s++;
              attach_note(b->w.env, &arr->v[k], s, file, r);
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
    sh_expand(b->w.env, &sf, c, name, cond, arr);
    if (ts_node_start_byte(c) == prev_end && prev_fields && arr->n > before && before > 0 &&
        !arr->v[before - 1].vanished && !arr->v[before].vanished)
      sh_fields_glue(b->w.env, arr, --before);
    prev_end = ts_node_end_byte(c);
    prev_fields = arr->n > before;
    on_path(b, arr, before);
    if (nb.active && nb.has_note && nb.last_line + 1 == r.start_line) {
      for (size_t k = before; k < arr->n; k++)
        if (sm_looks_like_flag(arr->v[k].text)) {
          attach_note(b->w.env, &arr->v[k], nb.text.data, nb.file, nb.range);
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
static void define_array(sm_builder *b, int file, TSNode parent, uint32_t from, uint32_t to,
                         const char *name, bool append, bool cond, sm_range range) {
  sh_fields *arr = sh_array_define(b->w.env, name, append);
  sm_array *a = PD_PUSH(b->w.arrays, b->w.narrays, b->w.arrays_cap);
  a->name = pd_xstrdup(name);
  a->file = file;
  a->range = range;
  a->append = append;
  a->conditional = cond;
  if (!strcmp(name, "MODEL_ARGS")) b->w.defined_model_args = true;
  fill_array(b, file, parent, from, to, sh_intern(b->w.env, name, strlen(name)), cond, arr);
}


/* ---- assignments, sources, commands ------------------------------------------------------- */

static void assign(sm_builder *b, int file, TSNode n, bool cond, bool exported) {
  TSNode name = bs_child(n, BSF_NAME);
  TSNode value = bs_child(n, BSF_VALUE);
  if (ts_node_is_null(name)) return;
  /* NAME+=...: the operator follows the name (ts_node_child(n, i) would be O(i) each) */
  bool append = false;
  {
    const sm_file *f = &b->w.files[file];
    uint32_t e = ts_node_end_byte(name);
    append = e + 1 < f->len && f->text[e] == '+' && f->text[e + 1] == '=';
  }
  if (bs_is(name, BS_SUBSCRIPT)) return; /* A[3]=x: element writes do not matter here */
  char *vname = sm_node_text(b, file, name);
  bool is_array = !ts_node_is_null(value) && bs_is(value, BS_ARRAY);
  sm_ref_uses(b, file, value, false);
  sm_ref_def(b, is_array ? SM_SYM_ARRAY : SM_SYM_VAR, append ? SM_REF_APPEND : SM_REF_DEF, cond || b->path_cert < SM_CERT_LITERAL,
             file, name, n);
  if (is_array) {
    define_array(b, file, value, 0, ts_node_child_count(value), vname, append, cond,
                 sh_node_range(n));
  } else {
    sh_file sf = sm_shfile(b, file);
    sm_cert cert = SM_CERT_LITERAL;
    const char *via = NULL, *unset = NULL;
    char *v = ts_node_is_null(value) ? pd_xstrdup("")
                                     : sh_expand_scalar_unset(b->w.env, &sf, value, &cert, &via, &unset);
    if (append) {
      const char *old, *oldvia;
      sm_cert oldcert;
      if (sh_var_get(b->w.env, vname, &old, &oldcert, &oldvia)) {
        char *j = pd_xasprintf("%s%s", old, v);
        free(v);
        v = j;
        if (oldcert < cert) {
          cert = oldcert;
          via = oldvia;
        }
      }
    }
    /* set in a branch that may not run, or reached only through a test on a default */
    sm_cert path = cond ? SM_CERT_BRANCH : b->path_cert;
    if (path < cert && sm_cert_known(cert)) {
      cert = path;
      via = cond ? NULL : b->path_var;
    }
    sh_var_set(b->w.env, vname, v, cert, via);
    if (unset && !append) sh_var_set_unset_from(b->w.env, vname, unset); /* the env's: stays put */
    sh_var_mark(b->w.env, vname, file, sh_node_range(n), exported);
    free(v);
  }
  free(vname);
}


/* `printf -v VAR FORMAT ARGS...`: VAR gets the output when every word is known. */
static void printf_to_var(sm_builder *b, int file, TSNode n, bool cond) {
  sh_file sf = sm_shfile(b, file);
  sh_fields words = {0};
  TSTreeCursor cur = ts_tree_cursor_new(n);
  bool more = ts_tree_cursor_goto_first_child(&cur);
  for (; more; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode c = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_named(c) && !bs_is(c, BS_COMMAND_NAME) &&
        !bs_is(c, BS_VARIABLE_ASSIGNMENT) && !bs_is(c, BS_FILE_REDIRECT) && !bs_is(c, BS_COMMENT))
      sh_expand(b->w.env, &sf, c, NULL, cond, &words);
  }
  ts_tree_cursor_delete(&cur);
  /* words: -v VAR FORMAT ARGS... */
  if (words.n < 3 || !words.v[1].resolved) {
    sh_fields_free(&words);
    return;
  }
  const char *var = words.v[1].text;
  sm_cert cert = cond ? SM_CERT_BRANCH : b->path_cert;
  const char *via = NULL;
  const char **args = pd_xmalloc(words.n * sizeof *args);
  bool known = true;
  for (size_t i = 2; i < words.n; i++) {
    args[i - 2] = words.v[i].text;
    known = known && words.v[i].resolved;
    if (words.v[i].cert < cert) {
      cert = words.v[i].cert;
      via = words.v[i].cert_var;
    }
  }
  pd_buf out = {0};
  if (known && sh_printf(args, words.n - 2, &out)) {
    sh_var_set(b->w.env, var, out.data ? out.data : "", cert, via);
  } else {
    sh_var_set(b->w.env, var, "", SM_CERT_COMMAND, NULL); /* set, value unknown */
  }
  sh_var_mark(b->w.env, var, file, sh_node_range(n), false);
  pd_buf_free(&out);
  free(args);
  sh_fields_free(&words);
}

/* A closing reserved word where this parser saw a command (`fi` with no `if`): bash refuses the
 * file at that token. */
static void stray_reserved(sm_builder *b, int file, TSNode name, const char *cname) {
  static const char *const words[] = {"fi", "done", "esac", "then", "do", "else", "elif", "}", "in"};
  TSNode w = ts_node_named_child(name, 0);
  if (ts_node_is_null(w) || !bs_is(w, BS_WORD)) return;
  /* a file with an error in its tree had bash's own reading (sm_syntax): that one holds */
  if (ts_node_has_error(ts_tree_root_node(b->w.trees[file]->tree))) return;
  for (size_t i = 0; i < b->w.nconds; i++)
    if (b->w.conds[i].bash && b->w.conds[i].file == file) return; /* bash stops at the first */
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    if (strcmp(cname, words[i])) continue;
    sm_add_cond(b, SM_ERROR, "syntax", file, sh_node_range(w),
                pd_xasprintf("bash: syntax error near unexpected token `%s`", cname));
    sm_cond_about(b, cname, NULL);
    b->w.conds[b->w.nconds - 1].bash = "token";
    b->w.syntax_conds++;
    return;
  }
}

void sm_command_argv(sm_builder *b, int file, TSNode n, bool cond, sh_fields *argv) {
  sh_file sf = sm_shfile(b, file);
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    TSNode c = ts_node_child(n, i);
    if (!ts_node_is_named(c) || bs_is(c, BS_VARIABLE_ASSIGNMENT) || bs_is(c, BS_FILE_REDIRECT) ||
        bs_is(c, BS_HERESTRING_REDIRECT) || bs_is(c, BS_COMMENT))
      continue;
    if (bs_is(c, BS_COMMAND_NAME)) c = ts_node_named_child(c, 0);
    if (!ts_node_is_null(c)) sh_expand(b->w.env, &sf, c, NULL, cond, argv);
  }
}

static void command(sm_builder *b, int file, TSNode n, bool cond) {
  TSNode name = bs_child(n, BSF_NAME);
  if (ts_node_is_null(name)) return;
  sm_ref_uses(b, file, n, false);
  TSNode arith = ts_node_named_child(name, 0);
  if (!ts_node_is_null(arith) && bs_is(arith, BS_ARITHMETIC_EXPANSION)) { /* (( expr )) */
    sh_file sf = sm_shfile(b, file);
    long long v;
    sm_cert c;
    const char *via;
    if (ts_node_named_child_count(arith) == 1)
      (void)sh_arith_eval(b->w.env, &sf, ts_node_named_child(arith, 0), &v, &c, &via);
    return;
  }
  char *cname = sm_node_text(b, file, name);
  stray_reserved(b, file, name, cname);
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
    sm_follow_source(b, file, n, args[0]);
    free(cname);
    return;
  }
  if (!strcmp(cname, "printf") && nargs >= 2) {
    char *a0 = sm_node_text(b, file, args[0]);
    if (!strcmp(a0, "-v")) {
      sm_ref_def(b, SM_SYM_VAR, SM_REF_DEF, cond || b->path_cert < SM_CERT_LITERAL, file, args[1], n);
      printf_to_var(b, file, n, cond);
    }
    free(a0);
  }
  int ffile;
  TSNode fbody;
  if (sh_func_get(b->w.env, cname, &ffile, &fbody)) {
    sm_ref_name(b, SM_SYM_FUNC, SM_REF_USE, file, ts_node_named_child(name, 0));
    if (b->call_depth < SM_MAX_CALL_DEPTH) {
      b->call_depth++;
      sm_walk_node(b, ffile, fbody, cond);
      b->call_depth--;
    }
    free(cname);
    return;
  }
  /* An ordinary command (echo, cat, mkdir) matters only through expansions with side effects
   * (${X:=v}, $((X=1))): without a `$` or backquote, and not named like a launcher, it cannot be
   * the train line and changes nothing, so its words are not expanded. */
  bool ordinary = !strpbrk(cname, "$`\"'\\") && !sm_is_launcher_name(cname);
  free(cname);
  if (ordinary) {
    size_t len;
    const char *t = sm_node_span(b, file, n, &len);
    if (!len || (!memchr(t, '$', len) && !memchr(t, '`', len))) return;
  }

  sh_fields argv = {0};
  sm_command_argv(b, file, n, cond, &argv);
  on_path(b, &argv, 0);
  sm_consider_train(b, file, n, &argv, cond);
  sh_fields_free(&argv);
}

static void for_loop(sm_builder *b, int file, TSNode n, bool cond) {
  TSNode var = bs_child(n, BSF_VARIABLE);
  TSNode body = bs_child(n, BSF_BODY);
  if (ts_node_is_null(var) || ts_node_is_null(body)) return;
  char *vname = sm_node_text(b, file, var);
  sh_file sf = sm_shfile(b, file);
  sh_fields items = {0};
  bool have_values = false;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    if (bs_child_in(n, i, BSF_VALUE)) {
      sm_ref_uses(b, file, ts_node_child(n, i), false);
      sh_expand(b->w.env, &sf, ts_node_child(n, i), NULL, cond, &items);
      have_values = true;
    }
  }
  bool all_known = have_values && items.n > 0;
  sm_ref_def(b, SM_SYM_VAR, SM_REF_DEF, cond || !all_known || b->path_cert < SM_CERT_LITERAL, file, var, n);
  for (size_t i = 0; i < items.n; i++) all_known = all_known && items.v[i].resolved;
  if (!have_values || items.n == 0) {
    sm_walk_node(b, file, body, true); /* body once, values unknown */
  } else {
    /* Known words: the body runs once per word, as certainly as the loop itself does. */
    for (size_t i = 0; i < items.n && b->w.loop_budget > 0; i++, b->w.loop_budget--) {
      if (items.v[i].vanished) continue;
      sh_var_set(b->w.env, vname, items.v[i].text,
                 items.v[i].resolved ? items.v[i].cert : SM_CERT_UNRESOLVED, items.v[i].cert_var);
      sm_walk_node(b, file, body, cond || !all_known);
    }
  }
  sh_fields_free(&items);
  free(vname);
}

static void walk_on_path(sm_builder *b, int file, TSNode n, bool cond, sm_cert path,
                         const char *via);

/* for ((init; test; update)): run as bash would while the test is known, up to the loop budget;
 * a test that is not known runs the body once, conditionally. */
static void c_style_for(sm_builder *b, int file, TSNode n, bool cond) {
  TSNode init = bs_child(n, BSF_INITIALIZER), test = bs_child(n, BSF_CONDITION);
  TSNode update = bs_child(n, BSF_UPDATE), body = bs_child(n, BSF_BODY);
  if (ts_node_is_null(body)) return;
  sh_file sf = sm_shfile(b, file);
  long long v;
  sm_cert c, path = SM_CERT_LITERAL;
  const char *via, *path_via = NULL;
  sm_ref_uses(b, file, init, true);
  sm_ref_uses(b, file, test, true);
  sm_ref_uses(b, file, update, true);
  if (!ts_node_is_null(init)) (void)sh_arith_eval(b->w.env, &sf, init, &v, &c, &via);
  for (;;) {
    if (b->w.loop_budget == 0 || ts_node_is_null(test) ||
        !sh_arith_eval(b->w.env, &sf, test, &v, &c, &via) || c < SM_CERT_DEFAULT) {
      sm_walk_node(b, file, body, true);
      return;
    }
    if (!v) return;
    if (c < path) {
      path = c;
      path_via = via;
    }
    b->w.loop_budget--;
    walk_on_path(b, file, body, cond, path, path_via);
    if (!ts_node_is_null(update)) (void)sh_arith_eval(b->w.env, &sf, update, &v, &c, &via);
  }
}

/* case WORD in ...: with a known subject only the first matching branch runs (as surely as the
 * subject is known: a default makes it the default's branch); otherwise all may. */
static void case_statement(sm_builder *b, int file, TSNode n, bool cond) {
  TSNode subject = bs_child(n, BSF_VALUE);
  sh_file sf = sm_shfile(b, file);
  sm_cert cert = SM_CERT_UNRESOLVED;
  const char *via;
  sm_ref_uses(b, file, subject, false);
  char *subj = ts_node_is_null(subject) ? NULL : sh_expand_scalar(b->w.env, &sf, subject, &cert, &via);
  bool known = subj && cert >= SM_CERT_DEFAULT;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode item = ts_node_named_child(n, i);
    if (!bs_is(item, BS_CASE_ITEM)) continue;
    for (uint32_t j = 0; j < ts_node_child_count(item); j++)
      if (bs_child_in(item, j, BSF_VALUE)) sm_ref_uses(b, file, ts_node_child(item, j), false);
    bool match = !known;
    for (uint32_t j = 0; known && !match && j < ts_node_child_count(item); j++) {
      if (!bs_child_in(item, j, BSF_VALUE)) continue;
      sm_cert pc;
      const char *pv;
      char *pat = sh_expand_scalar(b->w.env, &sf, ts_node_child(item, j), &pc, &pv);
      match = sm_cert_known(pc) && fnmatch(pat, subj, 0) == 0;
      free(pat);
    }
    if (!match) continue;
    for (uint32_t j = 0; j < ts_node_child_count(item); j++) {
      TSNode c = ts_node_child(item, j);
      if (bs_child_in(item, j, BSF_VALUE) || !ts_node_is_named(c)) continue;
      walk_on_path(b, file, c, known ? cond : true, cert, via);
    }
    if (known) break;
  }
  free(subj);
}

/* Inside an ERROR node: statements the parser still recognised are walked; a dangling
 * `NAME=( ...` keeps collecting elements; loose words form a command. */
static void recover(sm_builder *b, int file, TSNode n, bool cond) {
  uint32_t nc;
  TSNode *kids = sm_children(n, &nc);
  uint32_t words_from = UINT32_MAX;
  for (uint32_t i = 0; i < nc; i++) {
    TSNode c = kids[i];
    bs_kind t = bs_kind_of(c);
    if (t == BS_VARIABLE_NAME && i + 2 < nc &&
        (bs_is(kids[i + 1], BS_EQ) || bs_is(kids[i + 1], BS_PLUS_EQ)) &&
        bs_is(kids[i + 2], BS_LPAREN)) {
      char *name = sm_node_text(b, file, c);
      sm_ref_def(b, SM_SYM_ARRAY, bs_is(kids[i + 1], BS_PLUS_EQ) ? SM_REF_APPEND : SM_REF_DEF,
                 cond || b->path_cert < SM_CERT_LITERAL, file, c, c);
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
    if (ts_node_is_named(c) && t != BS_COMMENT) sm_walk_node(b, file, c, cond);
  }
  if (words_from != UINT32_MAX) {
    sh_file sf = sm_shfile(b, file);
    sh_fields argv = {0};
    for (uint32_t i = words_from; i < nc; i++) {
      TSNode c = kids[i];
      if (!ts_node_is_named(c) || bs_is(c, BS_COMMENT)) continue;
      sm_ref_uses(b, file, c, false);
      sh_expand(b->w.env, &sf, c, NULL, cond, &argv);
    }
    sm_consider_train(b, file, n, &argv, cond);
    sh_fields_free(&argv);
  }
  free(kids);
}

/* ---- control flow: what runs depends on tests whose outcome may be known ---- */

static void walk_children(sm_builder *b, int file, TSNode n, bool cond);
static sm_tri walk_status(sm_builder *b, int file, TSNode n, bool cond, sm_cert *cert,
                          const char **via);

/* Walks n on a path that a test on a default chose (the environment may choose otherwise);
 * via names the variable the test rested on. */
static void walk_on_path(sm_builder *b, int file, TSNode n, bool cond, sm_cert path,
                         const char *via) {
  sm_cert saved = b->path_cert;
  const char *saved_var = b->path_var;
  if (path < b->path_cert) {
    b->path_cert = path;
    b->path_var = via;
  }
  sm_walk_node(b, file, n, cond);
  b->path_cert = saved;
  b->path_var = saved_var;
}

/* a && b, a || b: b runs when a's status allows it; unknown statuses make b conditional. */
static sm_tri walk_list(sm_builder *b, int file, TSNode n, bool cond, sm_cert *cert,
                        const char **via) {
  TSNode kids[3];
  uint32_t k = 0;
  TSTreeCursor cur = ts_tree_cursor_new(n);
  bool more = ts_tree_cursor_goto_first_child(&cur);
  for (; more && k < 3; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode c = ts_tree_cursor_current_node(&cur);
    if (!bs_is(c, BS_COMMENT)) kids[k++] = c;
  }
  ts_tree_cursor_delete(&cur);
  *cert = SM_CERT_LITERAL;
  if (k != 3 || (!bs_is(kids[1], BS_AND_AND) && !bs_is(kids[1], BS_OR_OR))) {
    walk_children(b, file, n, cond);
    return SM_UNKNOWN;
  }
  bool and = bs_is(kids[1], BS_AND_AND);
  sm_cert lc;
  const char *lvia = NULL;
  sm_tri l = walk_status(b, file, kids[0], cond, &lc, &lvia);
  if (l != SM_UNKNOWN && lc < SM_CERT_DEFAULT) l = SM_UNKNOWN; /* rests on a branch or guess */
  if (l == (and ? SM_FALSE : SM_TRUE)) { /* decided: the right side does not run */
    *cert = lc;
    return l;
  }
  sm_cert saved = b->path_cert, rc;
  const char *saved_var = b->path_var, *rvia = NULL;
  if (l != SM_UNKNOWN && lc < b->path_cert) {
    b->path_cert = lc;
    b->path_var = lvia;
  }
  sm_tri r = walk_status(b, file, kids[2], cond || l == SM_UNKNOWN, &rc, &rvia);
  b->path_cert = saved;
  b->path_var = saved_var;
  *cert = rc < lc ? rc : lc;
  *via = rc < lc ? rvia : lvia;
  if (l == SM_UNKNOWN) return r == (and ? SM_FALSE : SM_TRUE) ? r : SM_UNKNOWN;
  return r;
}

/* Walks n and returns its exit status as far as it is known, and what it rests on. */
static sm_tri walk_status(sm_builder *b, int file, TSNode n, bool cond, sm_cert *cert,
                          const char **via) {
  *cert = SM_CERT_LITERAL;
  *via = NULL;
  bs_kind t = bs_kind_of(n);
  if (t == BS_REDIRECTED_STATEMENT) {
    /* `[ -n "$X" ] && ray status >/dev/null 2>&1` parses as the list redirected; the redirection
     * is the last command's and leaves the list's status as it is */
    TSNode body = bs_child(n, BSF_BODY);
    if (!ts_node_is_null(body) && bs_is(body, BS_LIST)) return walk_list(b, file, body, cond, cert, via);
  }
  if (t == BS_LIST) return walk_list(b, file, n, cond, cert, via);
  if (t == BS_VARIABLE_ASSIGNMENT || t == BS_DECLARATION_COMMAND) {
    sm_walk_node(b, file, n, cond);
    return SM_TRUE;
  }
  if (t == BS_TEST_COMMAND || t == BS_NEGATED_COMMAND || t == BS_COMMAND) {
    if (t == BS_COMMAND) sm_walk_node(b, file, n, cond);
    else sm_ref_uses(b, file, n, false);
    return sm_test_status(b, file, n, cert, via);
  }
  sm_walk_node(b, file, n, cond);
  return SM_UNKNOWN;
}

/* The status of a branch's condition statements, walked. */
typedef struct {
  sm_tri status;
  sm_cert cert;
  const char *via;
} cond_result;

static cond_result branch_condition(sm_builder *b, int file, const TSNode *stmts, size_t n,
                                    bool cond) {
  cond_result r = {SM_UNKNOWN, SM_CERT_LITERAL, NULL};
  for (size_t i = 0; i < n; i++) r.status = walk_status(b, file, stmts[i], cond, &r.cert, &r.via);
  if (r.status != SM_UNKNOWN && r.cert < SM_CERT_DEFAULT) r.status = SM_UNKNOWN;
  return r;
}

/* A test that chooses between launches reads a variable nothing set, unquoted: condition
 * test-unset (the launch then depends on the environment, and without it bash takes the branch
 * after the failed test). Tests that choose nothing about the launch are not this model's
 * business. */
static void unset_in_test(sm_builder *b, int file, TSNode stmt) {
  if (sm_names_train(b, file, stmt)) {
    const char *v = b->test_unset;
    sm_add_cond(b, SM_WARN, "test-unset", file, b->test_unset_range,
                pd_xasprintf("`$%s` is set by nothing the script runs; unquoted in `[ ]`, it is no word at all "
                             "when the environment does not set it, and the test fails with a usage error",
                             v));
    sm_cond_about(b, v, NULL);
  }
  free(b->test_unset);
  b->test_unset = NULL;
}

/* One if / elif branch: children of n after the keyword (condition statements up to `then`, the
 * body after it). Returns true when the branch certainly ran (the rest is skipped). */
static bool if_branch(sm_builder *b, int file, TSNode n, bool cond, bool *maybe) {
  TSNode *kids;
  uint32_t nk;
  kids = sm_children(n, &nk);
  TSNode *conds = pd_xmalloc((nk + 1) * sizeof *conds);
  size_t nc = 0;
  uint32_t i = 1; /* past `if` / `elif` */
  for (; i < nk && !bs_is(kids[i], BS_THEN); i++)
    if (ts_node_is_named(kids[i]) && !bs_is(kids[i], BS_COMMENT)) conds[nc++] = kids[i];
  bool reach = cond || *maybe;
  free(b->test_unset);
  b->test_unset = NULL;
  cond_result r = branch_condition(b, file, conds, nc, reach);
  if (b->test_unset) unset_in_test(b, file, bs_is(n, BS_IF_STATEMENT) ? n : ts_node_parent(n));
  bool ran = false;
  if (r.status != SM_FALSE) {
    bool body_cond = reach || r.status == SM_UNKNOWN;
    for (i++; i < nk; i++) {
      TSNode c = kids[i];
      if (!ts_node_is_named(c) || bs_is(c, BS_ELIF_CLAUSE) || bs_is(c, BS_ELSE_CLAUSE)) continue;
      walk_on_path(b, file, c, body_cond, r.cert, r.via);
    }
    if (r.status == SM_UNKNOWN) *maybe = true;
    else ran = true;
  } else {
    for (i++; i < nk; i++)
      if (ts_node_is_named(kids[i]) && !bs_is(kids[i], BS_ELIF_CLAUSE) && !bs_is(kids[i], BS_ELSE_CLAUSE))
        sm_skipped_trains(b, file, kids[i]);
  }
  free(conds);
  free(kids);
  return ran;
}

/* if / elif / else: a branch whose test is known runs alone; unknown tests make every branch
 * that may run conditional. */
static void if_statement(sm_builder *b, int file, TSNode n, bool cond) {
  bool maybe = false; /* an earlier branch may have run */
  bool done = if_branch(b, file, n, cond, &maybe);
  uint32_t nk;
  TSNode *kids = sm_children(n, &nk);
  for (uint32_t i = 0; i < nk; i++) {
    if (done && (bs_is(kids[i], BS_ELIF_CLAUSE) || bs_is(kids[i], BS_ELSE_CLAUSE))) {
      sm_skipped_trains(b, file, kids[i]); /* an earlier branch ran */
    } else if (bs_is(kids[i], BS_ELIF_CLAUSE)) {
      done = if_branch(b, file, kids[i], cond, &maybe);
    } else if (bs_is(kids[i], BS_ELSE_CLAUSE)) {
      uint32_t ne;
      TSNode *ek = sm_children(kids[i], &ne);
      for (uint32_t j = 1; j < ne; j++)
        if (ts_node_is_named(ek[j])) sm_walk_node(b, file, ek[j], cond || maybe);
      free(ek);
    }
  }
  free(kids);
}

/* Walks each named child; a tree cursor keeps this linear (ts_node_child is O(index)). */
static void walk_children(sm_builder *b, int file, TSNode n, bool cond) {
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      TSNode ch = ts_tree_cursor_current_node(&c);
      if (ts_node_is_named(ch)) sm_walk_node(b, file, ch, cond);
    } while (ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
}

void sm_walk_node(sm_builder *b, int file, TSNode n, bool cond) {
  bs_kind t = bs_kind_of(n);
  if (t == BS_VARIABLE_ASSIGNMENT) {
    assign(b, file, n, cond, false);
  } else if (t == BS_COMMAND) {
    command(b, file, n, cond);
  } else if (t == BS_DECLARATION_COMMAND) {
    char *kw = ts_node_child_count(n) ? sm_node_text(b, file, ts_node_child(n, 0)) : NULL;
    bool exported = kw && !strcmp(kw, "export");
    free(kw);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode c = ts_node_named_child(n, i);
      if (bs_is(c, BS_VARIABLE_ASSIGNMENT)) {
        assign(b, file, c, cond, exported);
      } else if (bs_is(c, BS_VARIABLE_NAME)) {
        sm_ref_name(b, SM_SYM_VAR, SM_REF_MENTION, file, c);
      }
      if (exported && bs_is(c, BS_VARIABLE_NAME)) { /* export NAME */
        char *v = sm_node_text(b, file, c);
        const char *val, *via;
        sm_cert cert;
        if (sh_var_get(b->w.env, v, &val, &cert, &via)) sh_var_mark(b->w.env, v, file, sh_node_range(n), true);
        free(v);
      }
    }
  } else if (t == BS_UNSET_COMMAND) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      sm_ref_name(b, SM_SYM_VAR, SM_REF_MENTION, file, ts_node_named_child(n, i));
      char *v = sm_node_text(b, file, ts_node_named_child(n, i));
      if (strcmp(v, "-f") != 0 && strcmp(v, "-v") != 0) sh_var_unset(b->w.env, v);
      free(v);
    }
  } else if (t == BS_FUNCTION_DEFINITION) {
    TSNode name = bs_child(n, BSF_NAME);
    TSNode body = bs_child(n, BSF_BODY);
    if (!ts_node_is_null(name) && !ts_node_is_null(body)) {
      b->unrepeatable = true; /* its body is a node of this build's tree */
      sm_ref_def(b, SM_SYM_FUNC, SM_REF_DEF, cond, file, name, n);
      char *fname = sm_node_text(b, file, name);
      sh_func_define(b->w.env, fname, file, body);
      free(fname);
    }
  } else if (t == BS_FOR_STATEMENT) {
    for_loop(b, file, n, cond);
  } else if (t == BS_ERROR) {
    recover(b, file, n, cond);
  } else if (t == BS_CASE_STATEMENT) {
    case_statement(b, file, n, cond);
  } else if (t == BS_IF_STATEMENT) {
    if_statement(b, file, n, cond);
  } else if (t == BS_LIST) {
    sm_cert c;
    const char *via;
    (void)walk_status(b, file, n, cond, &c, &via);
  } else if (t == BS_C_STYLE_FOR_STATEMENT) {
    c_style_for(b, file, n, cond);
  } else if (t == BS_ELIF_CLAUSE || t == BS_ELSE_CLAUSE || t == BS_WHILE_STATEMENT) {
    walk_children(b, file, n, true);
  } else if (t == BS_TEST_COMMAND) {
    sm_ref_uses(b, file, n, false);
  } else if (t == BS_HEREDOC_BODY || t == BS_HEREDOC_REDIRECT ||
             t == BS_COMMENT ||
             t == BS_COMMAND_SUBSTITUTION) {
    /* nothing to collect */
  } else {
    /* program, lists, pipelines, redirected statements, subshells, compound statements */
    walk_children(b, file, n, cond);
  }
}
