#include "pysrc/pysrc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/alloc.h"
#include "base/str.h"
#include "pysrc/pyval.h"

const TSLanguage *tree_sitter_python(void);

/* ---- one file ---- */

typedef struct {
  TSNode node;
  char *name;
} ps_def;

typedef struct {
  const char *file;
  const char *text;
  size_t len;
  json_t *options;
  const char **funcs; /* module-level function names whose calls count (NULL = all) */
  size_t nfuncs, capfuncs;
  ps_def *defs;       /* module-level function definitions */
  size_t ndefs, capdefs;
} ps_file;

static bool want_func(const ps_file *f, const char *name) {
  for (size_t i = 0; i < f->nfuncs; i++)
    if (!strcmp(f->funcs[i], name)) return true;
  return false;
}

static void add_func(ps_file *f, const char *name) {
  if (!want_func(f, name)) *PD_PUSH(f->funcs, f->nfuncs, f->capfuncs) = name;
}

/* The function definitions at the top level of the module (decorated ones too). */
static void collect_defs(ps_file *f, TSNode root) {
  uint32_t n = ts_node_named_child_count(root);
  for (uint32_t i = 0; i < n; i++) {
    TSNode d = ts_node_named_child(root, i);
    if (!strcmp(ts_node_type(d), "decorated_definition")) d = ts_node_child_by_field_name(d, "definition", 10);
    if (ts_node_is_null(d) || strcmp(ts_node_type(d), "function_definition")) continue;
    TSNode nm = ts_node_child_by_field_name(d, "name", 4);
    *PD_PUSH(f->defs, f->ndefs, f->capdefs) = (ps_def){d, py_node_text(f->text, f->len, nm)};
  }
}

/* Whether a function around n is named like `_pre_parse_mode` (Relax reads those options first,
 * with a parser of their own). */
static bool inside_pre_parse(const ps_file *f, TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    if (strcmp(ts_node_type(p), "function_definition")) continue;
    char *nm = py_node_text(f->text, f->len, ts_node_child_by_field_name(p, "name", 4));
    bool pre = strstr(nm, "pre_parse") != NULL;
    free(nm);
    if (pre) return true;
  }
  return false;
}

static void call_found(ps_file *f, TSNode call) {
  TSNode fn = ts_node_child_by_field_name(call, "function", 8);
  TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
  if (ts_node_is_null(fn) || ts_node_is_null(args)) return;
  const char *ty = ts_node_type(fn);
  py_call_kind kind = PY_CALL_NONE;
  if (!strcmp(ty, "attribute")) {
    char *attr = py_node_text(f->text, f->len, ts_node_child_by_field_name(fn, "attribute", 9));
    if (!strcmp(attr, "add_argument")) kind = PY_CALL_ADD;
    free(attr);
  } else if (!strcmp(ty, "identifier")) {
    char *name = py_node_text(f->text, f->len, fn);
    if (!strcmp(name, "reset_arg")) kind = PY_CALL_RESET;
    free(name);
  }
  if (kind == PY_CALL_NONE) return;
  json_t *o = py_option(f->text, f->len, args, kind, inside_pre_parse(f, call));
  if (!o) return;
  json_object_set_new(o, "file", json_string(f->file));
  json_object_set_new(o, "line", json_integer(ts_node_start_point(call).row + 1));
  json_array_append_new(f->options, o);
}

/* Every add_argument / reset_arg call under n; calls of module functions in `only` mode add
 * those functions to the list. */
static void walk(ps_file *f, TSNode n) {
  TSTreeCursor c = ts_tree_cursor_new(n);
  for (bool down = true;;) {
    TSNode x = ts_tree_cursor_current_node(&c);
    if (down && !strcmp(ts_node_type(x), "call")) {
      call_found(f, x);
      TSNode fn = ts_node_child_by_field_name(x, "function", 8);
      if (f->funcs && !ts_node_is_null(fn) && !strcmp(ts_node_type(fn), "identifier")) {
        char *name = py_node_text(f->text, f->len, fn);
        for (size_t i = 0; i < f->ndefs; i++)
          if (!strcmp(f->defs[i].name, name)) add_func(f, f->defs[i].name);
        free(name);
      }
    }
    if (down && ts_tree_cursor_goto_first_child(&c)) continue;
    if (ts_tree_cursor_goto_next_sibling(&c)) {
      down = true;
      continue;
    }
    if (!ts_tree_cursor_goto_parent(&c) || ts_node_eq(ts_tree_cursor_current_node(&c), n)) break;
    down = false;
  }
  ts_tree_cursor_delete(&c);
}

/* The line of the innermost bracket left open at the end of the text (what Python reports as
 * "'(' was never closed"), or 0 when every bracket is closed. Strings and comments are skipped. */
static unsigned unclosed_bracket(const char *t, size_t n, char *which) {
  unsigned line = 1, stack[64], depth = 0;
  char kind[64];
  for (size_t i = 0; i < n; i++) {
    char c = t[i];
    if (c == '\n') line++;
    else if (c == '#') while (i + 1 < n && t[i + 1] != '\n') i++;
    else if (c == '\'' || c == '"') {
      bool triple = i + 2 < n && t[i + 1] == c && t[i + 2] == c;
      size_t j = i + (triple ? 3 : 1);
      for (; j < n; j++) {
        if (t[j] == '\\') { j++; continue; }
        if (t[j] == '\n') { if (!triple) break; line++; }
        if (t[j] == c && (!triple || (j + 2 < n && t[j + 1] == c && t[j + 2] == c))) break;
      }
      i = triple && j < n ? j + 2 : j;
    } else if (strchr("([{", c)) {
      if (depth < 64) stack[depth] = line, kind[depth] = c;
      depth++;
    } else if (strchr(")]}", c) && depth) {
      depth--;
    }
  }
  if (!depth) return 0;
  unsigned d = depth > 64 ? 63 : depth - 1;
  *which = kind[d];
  return stack[d];
}

/* The first error node under n (the deepest one where an error starts), or a null node. */
static TSNode first_error(TSNode n) {
  if (!ts_node_has_error(n)) { TSNode z; memset(&z, 0, sizeof z); return z; }
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode e = first_error(ts_node_child(n, i));
    if (!ts_node_is_null(e)) return e;
  }
  return n;
}

/* The first syntax error of the file: "file:line: ..." (caller frees), or NULL. */
static char *syntax_error(const ps_file *f, TSNode root) {
  if (!ts_node_has_error(root)) return NULL;
  char which = '(';
  unsigned line = unclosed_bracket(f->text, f->len, &which);
  if (line)
    return pd_xasprintf("%s:%u: Python syntax error: '%c' was never closed, so the file does not parse",
                        f->file, line, which);
  TSNode e = first_error(root);
  return pd_xasprintf("%s:%u: Python syntax error (%s): the file does not parse", f->file,
                      ts_node_start_point(e).row + 1,
                      ts_node_is_missing(e) ? "a token is missing" : "unexpected text");
}

bool ps_read_options(const char *file, const char *text, size_t len, const char *const *only,
                     size_t nonly, json_t *options, char **err) {
  *err = NULL;
  size_t bad = pd_utf8_bad(text, len);
  if (bad < len) { /* Python refuses such a file too (SyntaxError: Non-UTF-8 code) */
    *err = pd_xasprintf("%s: byte %zu is not UTF-8, so Python cannot read the file", file, bad);
    return false;
  }
  TSParser *p = ts_parser_new();
  if (!p || !ts_parser_set_language(p, tree_sitter_python())) {
    if (p) ts_parser_delete(p);
    *err = pd_xasprintf("%s: the tree-sitter runtime rejected the Python grammar", file);
    return false;
  }
  TSTree *t = ts_parser_parse_string(p, NULL, text, (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len));
  TSNode root = ts_tree_root_node(t);
  ps_file f = {file, text, len, options, NULL, 0, 0, NULL, 0, 0};
  *err = syntax_error(&f, root);
  collect_defs(&f, root);
  if (!only) {
    walk(&f, root);
  } else {
    f.funcs = pd_xcalloc(1, sizeof *f.funcs);
    f.capfuncs = 1;
    for (size_t i = 0; i < nonly; i++)
      for (size_t d = 0; d < f.ndefs; d++)
        if (!strcmp(f.defs[d].name, only[i])) add_func(&f, f.defs[d].name);
    /* the list grows while it is walked: functions the wanted ones call */
    for (size_t i = 0; i < f.nfuncs; i++)
      for (size_t d = 0; d < f.ndefs; d++)
        if (!strcmp(f.defs[d].name, f.funcs[i])) walk(&f, f.defs[d].node);
  }
  for (size_t i = 0; i < f.ndefs; i++) free(f.defs[i].name);
  free(f.defs);
  free(f.funcs);
  ts_tree_delete(t);
  ts_parser_delete(p);
  return *err == NULL;
}
