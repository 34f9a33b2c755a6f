/* pyopt: one add_argument(...) / reset_arg(...) call as a flag-catalog option object. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/str.h"
#include "pysrc/pyval.h"

typedef struct {
  const char *text;
  size_t len;
  json_t *names;
  TSNode kw[12];
  char *kwname[12];
  size_t nkw;
} call_args;

static TSNode keyword(const call_args *c, const char *name) {
  for (size_t i = 0; i < c->nkw; i++)
    if (!strcmp(c->kwname[i], name)) return c->kw[i];
  TSNode none;
  memset(&none, 0, sizeof none);
  return none;
}

/* Positional names and keyword values; skip: positional arguments before the names (reset_arg's
 * parser). */
static void split_args(call_args *c, TSNode args, size_t skip) {
  size_t pos = 0;
  uint32_t n = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < n; i++) {
    TSNode a = ts_node_named_child(args, i);
    const char *t = ts_node_type(a);
    if (!strcmp(t, "comment")) continue;
    if (!strcmp(t, "keyword_argument")) {
      if (c->nkw < sizeof c->kw / sizeof *c->kw) {
        c->kwname[c->nkw] = py_node_text(c->text, c->len, ts_node_child_by_field_name(a, "name", 4));
        c->kw[c->nkw++] = ts_node_child_by_field_name(a, "value", 5);
      }
      continue;
    }
    if (pos++ < skip) continue;
    json_t *v = py_literal(c->text, c->len, a);
    const char *s = json_string_value(v);
    if (s && s[0] == '-') json_array_append_new(c->names, json_string(s));
    json_decref(v);
  }
}

static void set_action(json_t *o, const call_args *c) {
  TSNode a = keyword(c, "action");
  if (ts_node_is_null(a)) {
    json_object_set_new(o, "action", json_string("store"));
    return;
  }
  json_t *v = py_literal(c->text, c->len, a);
  if (json_is_string(v)) {
    json_object_set_new(o, "action", json_incref(v));
  } else {
    char *src = py_node_text(c->text, c->len, a);
    char *other = pd_xasprintf("other:%s", src);
    json_object_set_new(o, "action", json_string(strstr(src, "BooleanOptionalAction") ? "boolean_optional" : other));
    free(other);
    free(src);
  }
  json_decref(v);
}

static const char *type_name(const char *src) {
  static const char *const plain[] = {"int", "float", "str", "bool"};
  for (size_t i = 0; i < 4; i++)
    if (!strcmp(src, plain[i])) return plain[i];
  if (pd_str_ends(src, "json.loads") || !strcmp(src, "loads")) return "json";
  if (!strcmp(src, "Path") || pd_str_ends(src, ".Path")) return "path";
  return NULL;
}

static void set_type(json_t *o, const call_args *c, const char *action) {
  TSNode t = keyword(c, "type");
  bool takes = !strcmp(action, "store") || !strcmp(action, "append") || !strcmp(action, "extend");
  if (ts_node_is_null(t)) {
    json_object_set_new(o, "type", json_string(takes ? "str" : "none"));
    return;
  }
  char *src = py_node_text(c->text, c->len, t);
  const char *known = type_name(src);
  char *other = pd_xasprintf("other:%s", src);
  json_object_set_new(o, "type", json_string(known ? known : other));
  free(other);
  free(src);
}

/* A literal's value as JSON, or {"computed": source} for anything evaluated at run time. */
static json_t *value_or_computed(const call_args *c, TSNode n) {
  json_t *v = py_literal(c->text, c->len, n);
  if (v) return v;
  char *src = py_node_text(c->text, c->len, n);
  json_t *o = json_pack("{s:s}", "computed", src);
  free(src);
  return o;
}

static json_t *choices_of(const call_args *c) {
  TSNode n = keyword(c, "choices");
  json_t *v = ts_node_is_null(n) ? NULL : py_literal(c->text, c->len, n);
  if (!json_is_array(v)) {
    json_decref(v);
    return json_null(); /* computed at run time (list(Enum), a variable): not checked */
  }
  json_t *out = json_array();
  size_t i;
  json_t *e;
  json_array_foreach(v, i, e) {
    if (json_is_string(e)) {
      json_array_append(out, e);
    } else {
      char *s = json_dumps(e, JSON_ENCODE_ANY);
      json_array_append_new(out, json_string(s ? s : ""));
      free(s);
    }
  }
  json_decref(v);
  return out;
}

static void set_default(json_t *o, const call_args *c, const char *action) {
  TSNode d = keyword(c, "default");
  if (!ts_node_is_null(d)) json_object_set_new(o, "default", value_or_computed(c, d));
  else if (!strcmp(action, "store_true")) json_object_set_new(o, "default", json_false());
  else if (!strcmp(action, "store_false")) json_object_set_new(o, "default", json_true());
  else json_object_set_new(o, "default", json_null());
}

static bool mentions_deprecated(const char *s) {
  for (; s && *s; s++)
    if (!strncasecmp(s, "deprecated", 10)) return true;
  return false;
}

static void set_help(json_t *o, const call_args *c) {
  TSNode h = keyword(c, "help");
  json_t *v = ts_node_is_null(h) ? json_string("") : py_literal(c->text, c->len, h);
  if (!json_is_string(v)) {
    json_decref(v);
    char *src = py_node_text(c->text, c->len, h);
    v = json_string(src);
    free(src);
  }
  const char *s = json_string_value(v);
  TSNode dep = keyword(c, "deprecated");
  json_t *dv = ts_node_is_null(dep) ? NULL : py_literal(c->text, c->len, dep);
  if (json_is_true(dv) || mentions_deprecated(s))
    json_object_set_new(o, "deprecated", json_string(s && *s ? s : "deprecated"));
  json_decref(dv);
  json_object_set_new(o, "help", v);
}

/* "--no-x" for every long name "--x" (argparse.BooleanOptionalAction adds them). */
static void negations(json_t *names) {
  size_t n = json_array_size(names);
  for (size_t i = 0; i < n; i++) {
    const char *s = json_string_value(json_array_get(names, i));
    if (s && s[0] == '-' && s[1] == '-') {
      char *no = pd_xasprintf("--no-%s", s + 2);
      json_array_append_new(names, json_string(no));
      free(no);
    }
  }
}

static char *dest_of(const call_args *c) {
  json_t *d = py_literal(c->text, c->len, keyword(c, "dest"));
  char *out = json_is_string(d) ? pd_xstrdup(json_string_value(d)) : NULL;
  json_decref(d);
  if (out) return out;
  const char *first = json_string_value(json_array_get(c->names, 0));
  for (size_t i = 0; i < json_array_size(c->names); i++) {
    const char *s = json_string_value(json_array_get(c->names, i));
    if (s[1] == '-') {
      first = s;
      break;
    }
  }
  while (*first == '-') first++;
  out = pd_xstrdup(first);
  for (char *p = out; *p; p++)
    if (*p == '-') *p = '_';
  return out;
}

json_t *py_option(const char *text, size_t len, TSNode args, py_call_kind kind, bool pre) {
  call_args c;
  memset(&c, 0, sizeof c);
  c.text = text;
  c.len = len;
  c.names = json_array();
  split_args(&c, args, kind == PY_CALL_RESET ? 1 : 0);
  json_t *o = NULL;
  if (json_array_size(c.names)) {
    o = json_object();
    set_action(o, &c);
    const char *action = json_string_value(json_object_get(o, "action"));
    if (!action) action = "store"; /* a NUL inside the source text cut the name short */
    if (!strcmp(action, "boolean_optional")) negations(c.names);
    json_object_set_new(o, "names", json_incref(c.names));
    char *dest = dest_of(&c);
    json_object_set_new(o, "dest", json_string(dest));
    free(dest);
    json_object_set_new(o, "parser", json_string(kind == PY_CALL_RESET ? "megatron" : pre ? "pre" : "relax"));
    json_object_set_new(o, "in", json_pack("[s]", "checkout"));
    TSNode nargs = keyword(&c, "nargs");
    json_object_set_new(o, "nargs", ts_node_is_null(nargs) ? json_null() : value_or_computed(&c, nargs));
    set_type(o, &c, action);
    json_object_set_new(o, "choices", choices_of(&c));
    set_default(o, &c, action);
    set_help(o, &c);
    if (kind == PY_CALL_RESET) json_object_set_new(o, "reset", json_true());
  }
  for (size_t i = 0; i < c.nkw; i++) free(c.kwname[i]);
  json_decref(c.names);
  return o;
}
