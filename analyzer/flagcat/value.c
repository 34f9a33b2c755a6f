/* value: whether argparse accepts a value, the way Python converts it: int() and float() with
 * their own syntax (surrounding spaces, `_` between digits, "inf" and "nan"), json.loads, then
 * the choices. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/str.h"
#include "flagcat/flagcat.h"

/* digits with single underscores between them, as Python's int() and float() take them */
static const char *digits(const char *p) {
  if (!isdigit((unsigned char)*p)) return NULL;
  while (isdigit((unsigned char)*p) || (*p == '_' && isdigit((unsigned char)p[1]))) p++;
  return p;
}

static const char *trim(const char *s, size_t *n) {
  while (isspace((unsigned char)*s)) s++;
  size_t k = strlen(s);
  while (k && isspace((unsigned char)s[k - 1])) k--;
  *n = k;
  return s;
}

static bool py_int(const char *text) {
  size_t n;
  const char *s = trim(text, &n);
  const char *end = s + n, *p = s;
  if (p < end && (*p == '+' || *p == '-')) p++;
  const char *q = p < end ? digits(p) : NULL;
  return q && q == end;
}

static bool py_float(const char *text) {
  size_t n;
  const char *s = trim(text, &n);
  const char *end = s + n, *p = s;
  if (p < end && (*p == '+' || *p == '-')) p++;
  size_t rest = (size_t)(end - p);
  if ((rest == 3 && (!strncasecmp(p, "inf", 3) || !strncasecmp(p, "nan", 3))) ||
      (rest == 8 && !strncasecmp(p, "infinity", 8)))
    return true;
  bool mant = false;
  const char *q = digits(p);
  if (q) p = q, mant = true;
  if (p < end && *p == '.') {
    p++;
    q = digits(p);
    if (q) p = q, mant = true;
  }
  if (!mant) return false;
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    q = digits(p);
    if (!q) return false;
    p = q;
  }
  return p == end;
}

static bool py_json(const char *text) {
  json_error_t e;
  json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
  if (v) {
    json_decref(v);
    return true;
  }
  /* json.loads also takes NaN and Infinity, which jansson refuses */
  size_t n;
  const char *s = trim(text, &n);
  return (n == 3 && !strncmp(s, "NaN", 3)) || (n == 8 && !strncmp(s, "Infinity", 8)) ||
         (n == 9 && !strncmp(s, "-Infinity", 9));
}

static bool same_number(const char *a, const char *b) {
  double x, y;
  char *ta = pd_xstrdup(a), *tb = pd_xstrdup(b);
  for (char *p = ta; *p; p++) if (*p == '_') memmove(p, p + 1, strlen(p));
  for (char *p = tb; *p; p++) if (*p == '_') memmove(p, p + 1, strlen(p));
  size_t na, nb;
  const char *sa = trim(ta, &na), *sb = trim(tb, &nb);
  char *ca = pd_xstrndup(sa, na), *cb = pd_xstrndup(sb, nb);
  bool same = pd_parse_double(ca, &x) && pd_parse_double(cb, &y) && x == y;
  free(ca), free(cb), free(ta), free(tb);
  return same;
}

static bool in_choices(const fc_option *o, const char *text) {
  bool numeric = o->type == FC_T_INT || o->type == FC_T_FLOAT;
  for (size_t i = 0; i < o->nchoices; i++)
    if (numeric ? same_number(o->choices[i], text) : !strcmp(o->choices[i], text)) return true;
  return false;
}

static char *choice_list(const fc_option *o) {
  pd_buf b = {0};
  for (size_t i = 0; i < o->nchoices; i++) pd_buf_printf(&b, "%s'%s'", i ? ", " : "", o->choices[i]);
  return pd_buf_take(&b);
}

fc_value_check fc_check_value(const fc_option *o, const char *text, char **why) {
  *why = NULL;
  bool ok = true;
  const char *tname = "int";
  switch (o->type) {
  case FC_T_INT: ok = py_int(text); break;
  case FC_T_FLOAT: ok = py_float(text), tname = "float"; break;
  case FC_T_JSON: ok = py_json(text), tname = "loads"; break;
  default: break;
  }
  if (!ok) {
    *why = pd_xasprintf("invalid %s value: '%s'", tname, text);
    return FC_VALUE_BAD_TYPE;
  }
  if (o->nchoices && !in_choices(o, text)) {
    char *list = choice_list(o);
    *why = pd_xasprintf("invalid choice: '%s' (choose from %s)", text, list);
    free(list);
    return FC_VALUE_BAD_CHOICE;
  }
  return FC_VALUE_OK;
}

const char *fc_nearest_choice(const fc_option *o, const char *text) {
  const char *best = NULL, *prefix = NULL;
  size_t best_d = 3, nprefix = 0;
  for (size_t i = 0; i < o->nchoices; i++) {
    const char *ch = o->choices[i];
    if (!strcasecmp(ch, text)) return ch;
    if (strlen(text) >= 2 && pd_str_starts(ch, text)) prefix = ch, nprefix++; /* "ful" */
    size_t d = pd_edit_distance(text, ch, 2);
    if (d < best_d) best_d = d, best = ch;
  }
  return nprefix == 1 ? prefix : best;
}
