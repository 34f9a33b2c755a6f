#include "lsp/completion.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"

enum { CMP_MAX_ITEMS = 200, CMP_KIND_PROPERTY = 10, CMP_KIND_ENUM_MEMBER = 20, CMP_TAG_DEPRECATED = 1 };

static bool word_char(char c) {
  return !strchr(" \t\r\n\"'()\\;|&<>`$", c) && c != '\0';
}

/* ---- where the cursor is ---- */

static bool named_args(const char *text, size_t len, TSNode assign) {
  TSNode name = ts_node_child_by_field_name(assign, "name", 4);
  if (ts_node_is_null(name)) return false;
  uint32_t a = ts_node_start_byte(name), z = ts_node_end_byte(name);
  if (z > len || a >= z) return false;
  char *s = pd_xstrndup(text + a, z - a);
  bool ok = strstr(s, "ARGS") != NULL;
  free(s);
  return ok;
}

/* By the syntax tree: 1 = in a launch list, 0 = not (a comment, a string, another command),
 * -1 = undecided (the tree has an error around the cursor). */
static int by_tree(const cmp_request *q, const char *text, size_t len, size_t at) {
  if (!q->tree) return -1;
  uint32_t b = at ? (uint32_t)at - 1 : 0;
  TSNode n = ts_node_descendant_for_byte_range(ts_tree_root_node(q->tree), b, b);
  for (; !ts_node_is_null(n); n = ts_node_parent(n)) {
    const char *t = ts_node_type(n);
    if (!strcmp(t, "comment")) return 0;
    if (!strcmp(t, "string") || !strcmp(t, "raw_string") || !strcmp(t, "ansi_c_string") ||
        !strcmp(t, "heredoc_body") || !strcmp(t, "translated_string"))
      return at > ts_node_start_byte(n) && at < ts_node_end_byte(n) ? 0 : 1;
    if (!strcmp(t, "ERROR")) return -1;
    if (!strcmp(t, "array")) {
      TSNode p = ts_node_parent(n);
      return !ts_node_is_null(p) && !strcmp(ts_node_type(p), "variable_assignment") &&
             named_args(text, len, p);
    }
    if (!strcmp(t, "command")) {
      uint32_t a = ts_node_start_byte(n);
      return a < at && pd_mem_has(text + a, at - a, "relax.entrypoints.train");
    }
  }
  return 0;
}

/* By the text alone: the cursor is after an unclosed `NAME...ARGS...=(` and not in a comment. */
static bool by_text(const char *text, size_t at) {
  size_t bol = at;
  while (bol > 0 && text[bol - 1] != '\n') bol--;
  for (size_t i = bol; i < at; i++)
    if (text[i] == '#' && (i == bol || text[i - 1] == ' ' || text[i - 1] == '\t')) return false;
  int depth = 0;
  for (size_t i = at; i-- > 0;) {
    if (text[i] == ')') depth++;
    if (text[i] != '(') continue;
    if (depth-- > 0) continue;
    size_t e = i;
    if (e == 0 || text[e - 1] != '=') return false;
    e--;
    if (e > 0 && text[e - 1] == '+') e--;
    size_t s = e;
    while (s > 0 && (word_char(text[s - 1]) && text[s - 1] != '=')) s--;
    return pd_mem_has(text + s, e - s, "ARGS");
  }
  return false;
}

/* The word being typed ends at `at`; *start is where it begins. The word before it (a flag, for
 * choices) is copied to *prev (caller frees), or NULL. */
static void words_at(const char *text, size_t at, size_t *start, char **prev) {
  size_t s = at;
  while (s > 0 && word_char(text[s - 1])) s--;
  *start = s;
  *prev = NULL;
  size_t e = s;
  /* back over blanks, newlines (arrays span lines) and backslash continuations */
  while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\n' ||
                   text[e - 1] == '\r' || (text[e - 1] == '\\' && e < s && text[e] == '\n')))
    e--;
  size_t b = e;
  while (b > 0 && word_char(text[b - 1])) b--;
  if (e > b) *prev = pd_xstrndup(text + b, e - b);
}

/* ---- items ---- */

static au_msg_id parser_label(fc_parser p) {
  return p == FC_MEGATRON ? AU_MSG_FLAG_PARSER_MEGATRON : p == FC_SGLANG ? AU_MSG_FLAG_PARSER_SGLANG
         : p == FC_PRE ? AU_MSG_FLAG_PARSER_PRE : AU_MSG_FLAG_PARSER_RELAX;
}

static json_t *edit_range(const cmp_request *q, size_t start, size_t at) {
  return fm_range(q->map, q->file, sm_range_at(q->r->model, q->file, (uint32_t)start, (uint32_t)at));
}

static json_t *flag_item(const cmp_request *q, const fc_option *o, const char *name, size_t start,
                         size_t at, int rank) {
  char *parser = au_text(q->r->rules, parser_label(o->parser), q->lang, NULL);
  const char *args[3] = {fc_type_name(o), o->default_text, parser};
  char *detail = au_text(q->r->rules, AU_MSG_UI_COMPLETION_FLAG, q->lang, args);
  free(parser);
  char *sort = pd_xasprintf("%d%s", rank, name);
  json_t *it = json_pack("{s:s,s:i,s:s,s:s,s:s,s:{s:o,s:s},s:{s:s,s:s}}", "label", name, "kind",
                         CMP_KIND_PROPERTY, "detail", detail, "filterText", name, "sortText", sort,
                         "textEdit", "range", edit_range(q, start, at), "newText", name, "data",
                         "uri", q->uri, "flag", name);
  if (o->deprecated) json_object_set_new(it, "tags", json_pack("[i]", CMP_TAG_DEPRECATED));
  free(detail);
  free(sort);
  return it;
}

/* rank of name for the typed word: 0 = it starts so, 1 = the letters come in order, -1 = no */
static int match(const char *name, const char *typed) {
  if (pd_str_starts(name, typed)) return 0;
  const char *a = name, *b = typed;
  while (*a == '-') a++;
  while (*b == '-') b++;
  if (*b && *a != *b) return -1;
  for (; *a && *b; a++)
    if (*a == *b) b++;
  return *b ? -1 : 1;
}

static json_t *complete_flags(const cmp_request *q, const char *typed, size_t start, size_t at) {
  const fc_catalog *cat = q->r->model->catalog;
  json_t *items = json_array();
  size_t total = 0;
  for (size_t i = 0; i < fc_count(cat); i++) {
    const fc_option *o = fc_at(cat, i);
    for (size_t k = 0; k < o->nnames; k++) {
      int rank = match(o->names[k], typed);
      if (rank < 0) continue;
      total++;
      if (json_array_size(items) >= CMP_MAX_ITEMS) continue;
      /* what the script sets already sorts last: a flag is rarely given twice */
      if (sm_flag_get(q->r->model, o->names[k])) rank += 2;
      json_array_append_new(items, flag_item(q, o, o->names[k], start, at, rank));
    }
  }
  return json_pack("{s:b,s:o}", "isIncomplete", total > CMP_MAX_ITEMS, "items", items);
}

static json_t *complete_choices(const cmp_request *q, const fc_option *o, const char *flag,
                                const char *typed, size_t start, size_t at) {
  json_t *items = json_array();
  for (size_t i = 0; i < o->nchoices; i++) {
    if (!pd_str_starts(o->choices[i], typed)) continue;
    const char *args[1] = {flag};
    char *detail = !strcmp(o->choices[i], o->default_text)
                       ? au_text(q->r->rules, AU_MSG_UI_COMPLETION_DEFAULT_CHOICE, q->lang, args)
                       : pd_xstrdup(flag);
    json_array_append_new(items, json_pack("{s:s,s:i,s:s,s:{s:o,s:s},s:{s:s,s:s,s:s}}", "label",
                                           o->choices[i], "kind", CMP_KIND_ENUM_MEMBER, "detail", detail,
                                           "textEdit", "range", edit_range(q, start, at), "newText",
                                           o->choices[i], "data", "uri", q->uri, "flag", flag,
                                           "choice", o->choices[i]));
    free(detail);
  }
  return json_pack("{s:b,s:o}", "isIncomplete", 0, "items", items);
}

json_t *cmp_complete(const cmp_request *q, size_t at) {
  const sm_model *m = q->r ? q->r->model : NULL;
  if (!m || !m->catalog || q->file < 0 || (size_t)q->file >= m->nfiles)
    return json_pack("{s:b,s:[]}", "isIncomplete", 0, "items");
  const sm_file *f = &m->files[q->file];
  if (at > f->len) at = f->len;
  int where = by_tree(q, f->text, f->len, at);
  if (where < 0) where = by_text(f->text, at);
  if (!where) return json_pack("{s:b,s:[]}", "isIncomplete", 0, "items");
  size_t start;
  char *prev;
  words_at(f->text, at, &start, &prev);
  char *typed = pd_xstrndup(f->text + start, at - start);
  json_t *out = NULL;
  if (typed[0] == '-') {
    out = complete_flags(q, typed, start, at);
  } else if (prev && prev[0] == '-') {
    const fc_option *o = fc_find(m->catalog, prev);
    if (o && o->nchoices) out = complete_choices(q, o, prev, typed, start, at);
  }
  free(typed);
  free(prev);
  return out ? out : json_pack("{s:b,s:[]}", "isIncomplete", 0, "items");
}

json_t *cmp_resolve(const au_result *r, const json_t *item, const char *lang) {
  json_t *out = json_deep_copy(item);
  const json_t *data = json_object_get(item, "data");
  const char *flag = json_string_value(json_object_get(data, "flag"));
  if (!r || !flag || !json_is_object(out)) return out;
  char *md = au_flag_markdown(r->rules, r->model->catalog, flag, NULL, lang);
  if (md) json_object_set_new(out, "documentation", json_pack("{s:s,s:s}", "kind", "markdown", "value", md));
  free(md);
  return out;
}
