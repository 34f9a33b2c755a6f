#include "base/msgcat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A template is kept as its text and read as it is rendered: a summary says a few dozen of the
 * catalog's few hundred messages, so reading each once when said costs less than compiling them
 * all when the catalog loads (and a compiled catalog from the build then loads in a few thousand
 * instructions). pd_msgcat_set reads the text once to refuse what rendering could not say. */

#define MAX_ARGS 16
#define FMT_MAX 16

/* One argument of a message's spec: where its name is in the spec's text, and its type. */
typedef struct {
  uint8_t off, len;
  char type;
} argspec;

typedef struct {
  argspec a[MAX_ARGS];
  uint8_t n;
  bool read; /* the spec has been read into this (on first use) */
  bool bad;  /* the spec itself is malformed: every template of the message is refused */
} argset;

typedef struct {
  const char *text; /* NULL when absent */
  bool owned;
} tpl;

struct pd_msgcat {
  const pd_msg_spec *specs;
  size_t n, nlangs;
  argset *args; /* per message, its spec read on first use (a message said is read once) */
  tpl *tpls;    /* [id * nlangs + lang] */
};

/* "name:t,name:t" in one pass; bad when it is not that (or too long to index in a byte). */
static void parse_args(const char *list, argset *s) {
  s->n = 0;
  s->read = true;
  s->bad = false;
  size_t i = 0, start = 0;
  while (list && list[i]) {
    while (list[i] && list[i] != ':' && list[i] != ',') i++;
    if (list[i] != ':' || i == start || s->n == MAX_ARGS || i > 250 || !list[i + 1] || !strchr("sif", list[i + 1]) ||
        (list[i + 2] && list[i + 2] != ',')) {
      s->bad = true;
      return;
    }
    s->a[s->n++] = (argspec){(uint8_t)start, (uint8_t)(i - start), list[i + 1]};
    i += list[i + 2] ? 3 : 2;
    start = i;
  }
}

pd_msgcat *pd_msgcat_new(const pd_msg_spec *specs, size_t n, size_t nlangs) {
  pd_msgcat *c = pd_xcalloc(1, sizeof *c);
  c->specs = specs;
  c->n = n;
  c->nlangs = nlangs ? nlangs : 1;
  c->tpls = pd_xcalloc((n ? n : 1) * c->nlangs, sizeof *c->tpls);
  c->args = pd_xcalloc(n ? n : 1, sizeof *c->args);
  return c;
}

/* Message id's arguments, its spec read the first time it is needed (catalogs are used by one
 * thread at a time: msgcat.h). */
static const argset *args_of(const pd_msgcat *c, size_t id) {
  argset *as = &c->args[id];
  if (!as->read) parse_args(c->specs[id].args, as);
  return as;
}

static void tpl_clear(tpl *t) {
  if (t->owned) free((char *)t->text);
  t->text = NULL;
  t->owned = false;
}

void pd_msgcat_free(pd_msgcat *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n * c->nlangs; i++) tpl_clear(&c->tpls[i]);
  free(c->tpls);
  free(c->args);
  free(c);
}

size_t pd_msgcat_count(const pd_msgcat *c) { return c ? c->n : 0; }

long pd_msgcat_find(const pd_msgcat *c, const char *key) {
  for (size_t i = 0; c && i < c->n; i++)
    if (!strcmp(c->specs[i].key, key)) return (long)i;
  return -1;
}

bool pd_msgcat_has(const pd_msgcat *c, size_t id, size_t lang) {
  return c && id < c->n && lang < c->nlangs && c->tpls[id * c->nlangs + lang].text;
}

const char *pd_msgcat_text(const pd_msgcat *c, size_t id, size_t lang) {
  return pd_msgcat_has(c, id, lang) ? c->tpls[id * c->nlangs + lang].text : NULL;
}

/* ---- reading a template: for checking (out NULL) and for rendering ---- */

/* A printf conversion for an argument of type `type` from spec[0..n) ("%.1f"), into out;
 * false when it is not one conversion of that type. */
static bool conversion(const char *spec, size_t n, char type, char *out) {
  if (n < 2 || n > FMT_MAX - 4 || spec[0] != '%') return false;
  size_t i = 1;
  while (i < n && strchr("-+ #0", spec[i])) i++;
  while (i < n && spec[i] >= '0' && spec[i] <= '9') i++;
  if (i < n && spec[i] == '.') {
    i++;
    while (i < n && spec[i] >= '0' && spec[i] <= '9') i++;
  }
  if (i + 1 != n) return false;
  char conv = spec[i];
  bool ok = type == 'f' ? (conv == 'f' || conv == 'e' || conv == 'g') : type == 'i' ? conv == 'd' : conv == 's';
  if (!ok) return false;
  memcpy(out, spec, n - 1);
  strcpy(out + n - 1, type == 'i' ? "lld" : (char[]){conv, 0});
  return true;
}

static int arg_of(const argset *as, const char *spec, const char *name, size_t n) {
  for (size_t i = 0; i < as->n; i++)
    if (as->a[i].len == n && !memcmp(spec + as->a[i].off, name, n)) return (int)i;
  return -1;
}

typedef struct {
  pd_buf *out;         /* NULL: only check */
  const pd_marg *args; /* rendering: the arguments, known to fit the spec */
  const char *spec;    /* the spec's text (the names the argset points into) */
} reader;

static void render_arg(pd_buf *b, const char *fmt, const pd_marg *a) {
  if (a->type == 's') {
    if (!fmt[0] || !strcmp(fmt, "%s")) pd_buf_puts(b, a->v.s ? a->v.s : "");
    else pd_buf_printf(b, fmt, a->v.s ? a->v.s : "");
    return;
  }
  /* a number is formatted once into a small buffer (pd_buf_printf measures first, then writes) */
  char tmp[64];
  int n = a->type == 'i' ? snprintf(tmp, sizeof tmp, fmt, a->v.i) : snprintf(tmp, sizeof tmp, fmt, a->v.f);
  if (n >= 0 && (size_t)n < sizeof tmp) pd_buf_append(b, tmp, (size_t)n);
  else if (a->type == 'i') pd_buf_printf(b, fmt, a->v.i);
  else pd_buf_printf(b, fmt, a->v.f);
}

/* One placeholder's inside, body[0..n) (between the braces): rendered, or checked; NULL when it
 * is sound, else why (fresh). */
static char *placeholder(const reader *r, const argset *as, const char *body, size_t n) {
  size_t name_n = 0;
  while (name_n < n && body[name_n] != ':' && body[name_n] != '?') name_n++;
  int a = arg_of(as, r->spec, body, name_n);
  if (a < 0) return pd_xasprintf("{%.*s} names no argument of this message", (int)n, body);
  char type = as->a[a].type, fmt[FMT_MAX] = "";
  if (name_n == n) {
    strcpy(fmt, type == 'i' ? "%lld" : type == 'f' ? "%g" : "");
  } else if (body[name_n] == ':') {
    if (!conversion(body + name_n + 1, n - name_n - 1, type, fmt))
      return pd_xasprintf("{%.*s}: not one printf conversion for a%s argument", (int)n, body,
                          type == 's' ? " string" : type == 'i' ? "n integer" : " real");
  } else {
    const char *one = body + name_n + 1, *bar = memchr(one, '|', n - name_n - 1);
    if (type != 'i') return pd_xasprintf("{%.*s}: a plural choice needs an integer argument", (int)n, body);
    if (!bar) return pd_xasprintf("{%.*s}: a plural choice is {name?one|other}", (int)n, body);
    if (r->out) {
      if (r->args[a].v.i == 1) pd_buf_append(r->out, one, (size_t)(bar - one));
      else pd_buf_append(r->out, bar + 1, (size_t)(body + n - bar - 1));
    }
    return NULL;
  }
  if (r->out) render_arg(r->out, fmt, &r->args[a]);
  return NULL;
}

/* Reads template s: renders it into r->out, or only checks it. NULL, or why it is unsound (fresh;
 * when rendering, the rest of the text is then left out). */
static char *read_tpl(const reader *r, const argset *as, const char *s) {
  const char *lit = s;
  for (const char *p = s; *p;) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      if (r->out) pd_buf_append(r->out, lit, (size_t)(p - lit) + 1); /* through the first brace */
      p += 2;
      lit = p;
    } else if (*p == '}') {
      return pd_xasprintf("a lone '}' at offset %zu (write }} for a brace)", (size_t)(p - s));
    } else if (*p == '{') {
      const char *e = strchr(p + 1, '}');
      if (!e || memchr(p + 1, '{', (size_t)(e - p - 1)))
        return pd_xasprintf("an unclosed '{' at offset %zu (write {{ for a brace)", (size_t)(p - s));
      if (r->out) pd_buf_append(r->out, lit, (size_t)(p - lit));
      char *why = placeholder(r, as, p + 1, (size_t)(e - p - 1));
      if (why) return why;
      p = e + 1;
      lit = p;
    } else {
      p++;
    }
  }
  if (r->out) pd_buf_puts(r->out, lit);
  return NULL;
}

static bool slot_of(pd_msgcat *c, size_t id, size_t lang, char **why, tpl **slot) {
  *why = NULL;
  if (!c || id >= c->n || lang >= c->nlangs) {
    *why = pd_xstrdup("no such message or language");
    return false;
  }
  *slot = &c->tpls[id * c->nlangs + lang];
  tpl_clear(*slot);
  if (args_of(c, id)->bad) {
    *why = pd_xasprintf("the argument list \"%s\" is not name:type,... with types s, i, f", c->specs[id].args);
    return false;
  }
  return true;
}

bool pd_msgcat_set(pd_msgcat *c, size_t id, size_t lang, const char *text, char **why) {
  tpl *slot;
  if (!slot_of(c, id, lang, why, &slot)) return false;
  reader check = {NULL, NULL, c->specs[id].args};
  if (!text) *why = pd_xstrdup("no text");
  else *why = read_tpl(&check, args_of(c, id), text);
  if (*why) return false;
  *slot = (tpl){pd_xstrdup(text), true};
  return true;
}

void pd_msgcat_set_checked(pd_msgcat *c, size_t id, size_t lang, const char *text) {
  if (!c || id >= c->n || lang >= c->nlangs || !text) return;
  tpl *slot = &c->tpls[id * c->nlangs + lang];
  tpl_clear(slot);
  *slot = (tpl){text, false};
}

void pd_msgcat_render(pd_buf *b, const pd_msgcat *c, size_t id, size_t lang, const pd_marg *args,
                      size_t nargs) {
  if (!c || id >= c->n) return;
  const char *text = lang < c->nlangs ? c->tpls[id * c->nlangs + lang].text : NULL;
  const argset *as = args_of(c, id);
  bool fits = text && !as->bad && nargs == as->n;
  for (size_t i = 0; fits && i < nargs; i++) fits = args[i].type == as->a[i].type;
  if (!fits) { /* the key, or the key marked: what the arguments would have said is not said */
    pd_buf_printf(b, text ? "{?%s}" : "%s", c->specs[id].key);
    return;
  }
  reader r = {b, args, c->specs[id].args};
  char *why = read_tpl(&r, as, text);
  if (why) pd_buf_printf(b, "{?%s}", c->specs[id].key);
  free(why);
}
