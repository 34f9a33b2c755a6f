#include "base/msgcat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define MAX_ARGS 16
#define FMT_MAX 16

typedef enum { P_TEXT, P_ARG, P_PLURAL } part_kind;

/* One piece of a compiled template: literal text, an argument, or a plural choice. Text pieces
 * point into the template's own copy of its source. */
typedef struct {
  part_kind kind;
  const char *s;       /* P_TEXT: the text; P_PLURAL: the "one" text */
  size_t n;
  const char *other;   /* P_PLURAL: the "other" text */
  size_t n_other;
  int arg;             /* P_ARG, P_PLURAL: the argument's index */
  char fmt[FMT_MAX];   /* P_ARG: the printf conversion ("%lld" for integers), "" for as-is */
} part;

typedef struct {
  char *src; /* the template text with "{{" and "}}" kept (text parts skip the second brace) */
  part *parts;
  size_t n;
} tpl;

typedef struct {
  const char *name;
  size_t len;
  char type;
} argspec;

typedef struct {
  argspec a[MAX_ARGS];
  size_t n;
  bool bad; /* the spec itself is malformed: every template of the message is refused */
} argset;

struct pd_msgcat {
  const pd_msg_spec *specs;
  size_t n, nlangs;
  argset *args;  /* per message */
  tpl **tpls;    /* [id * nlangs + lang], NULL when absent */
  pd_map keys;   /* key -> id */
};

static argset parse_args(const char *list) {
  argset s = {.n = 0};
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *colon = memchr(p, ':', len);
    if (!colon || s.n == MAX_ARGS || colon + 2 != p + len || !strchr("sif", colon[1]) || colon == p) {
      s.bad = true;
      break;
    }
    s.a[s.n++] = (argspec){p, (size_t)(colon - p), colon[1]};
    p = e ? e + 1 : p + len;
  }
  return s;
}

pd_msgcat *pd_msgcat_new(const pd_msg_spec *specs, size_t n, size_t nlangs) {
  pd_msgcat *c = pd_xcalloc(1, sizeof *c);
  c->specs = specs;
  c->n = n;
  c->nlangs = nlangs ? nlangs : 1;
  c->args = pd_xcalloc(n ? n : 1, sizeof *c->args);
  c->tpls = pd_xcalloc((n ? n : 1) * c->nlangs, sizeof *c->tpls);
  for (size_t i = 0; i < n; i++) {
    c->args[i] = parse_args(specs[i].args);
    pd_map_put(&c->keys, specs[i].key, NULL)->value = i;
  }
  return c;
}

static void tpl_free(tpl *t) {
  if (!t) return;
  free(t->src);
  free(t->parts);
  free(t);
}

void pd_msgcat_free(pd_msgcat *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n * c->nlangs; i++) tpl_free(c->tpls[i]);
  free(c->tpls);
  free(c->args);
  pd_map_free(&c->keys);
  free(c);
}

size_t pd_msgcat_count(const pd_msgcat *c) { return c ? c->n : 0; }

long pd_msgcat_find(const pd_msgcat *c, const char *key) {
  size_t v;
  return c && pd_map_get(&c->keys, key, &v) ? (long)v : -1;
}

bool pd_msgcat_has(const pd_msgcat *c, size_t id, size_t lang) {
  return c && id < c->n && lang < c->nlangs && c->tpls[id * c->nlangs + lang];
}

const char *pd_msgcat_text(const pd_msgcat *c, size_t id, size_t lang) {
  return pd_msgcat_has(c, id, lang) ? c->tpls[id * c->nlangs + lang]->src : NULL;
}

static part *add_part(tpl *t, size_t *cap, part_kind k) {
  part *p = PD_PUSH(t->parts, t->n, *cap);
  memset(p, 0, sizeof *p);
  p->kind = k;
  return p;
}

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

static int arg_of(const argset *as, const char *name, size_t n) {
  for (size_t i = 0; i < as->n; i++)
    if (as->a[i].len == n && !memcmp(as->a[i].name, name, n)) return (int)i;
  return -1;
}

/* One placeholder's inside, body[0..n) (between the braces), as a part; NULL on success, else
 * why (fresh). */
static char *placeholder(tpl *t, size_t *cap, const argset *as, const char *body, size_t n) {
  size_t name_n = 0;
  while (name_n < n && body[name_n] != ':' && body[name_n] != '?') name_n++;
  int a = arg_of(as, body, name_n);
  if (a < 0) return pd_xasprintf("{%.*s} names no argument of this message", (int)n, body);
  char type = as->a[a].type;
  if (name_n == n) {
    part *p = add_part(t, cap, P_ARG);
    p->arg = a;
    if (type == 'i') strcpy(p->fmt, "%lld");
    else if (type == 'f') strcpy(p->fmt, "%g");
    return NULL;
  }
  if (body[name_n] == ':') {
    part *p = add_part(t, cap, P_ARG);
    p->arg = a;
    if (!conversion(body + name_n + 1, n - name_n - 1, type, p->fmt))
      return pd_xasprintf("{%.*s}: not one printf conversion for a%s argument", (int)n, body,
                          type == 's' ? " string" : type == 'i' ? "n integer" : " real");
    return NULL;
  }
  const char *one = body + name_n + 1, *bar = memchr(one, '|', n - name_n - 1);
  if (type != 'i') return pd_xasprintf("{%.*s}: a plural choice needs an integer argument", (int)n, body);
  if (!bar) return pd_xasprintf("{%.*s}: a plural choice is {name?one|other}", (int)n, body);
  part *p = add_part(t, cap, P_PLURAL);
  p->arg = a;
  p->s = one;
  p->n = (size_t)(bar - one);
  p->other = bar + 1;
  p->n_other = (size_t)(body + n - bar - 1);
  return NULL;
}

static tpl *compile(const char *text, const argset *as, char **why) {
  tpl *t = pd_xcalloc(1, sizeof *t);
  t->src = pd_xstrdup(text);
  size_t cap = 0;
  const char *s = t->src, *lit = s;
  char *err = NULL;
  while (*s && !err) {
    if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
      part *p = add_part(t, &cap, P_TEXT);
      p->s = lit;
      p->n = (size_t)(s - lit) + 1; /* through the first brace */
      s += 2;
      lit = s;
    } else if (*s == '}') {
      err = pd_xasprintf("a lone '}' at offset %zu (write }} for a brace)", (size_t)(s - t->src));
    } else if (*s == '{') {
      const char *e = strchr(s + 1, '}');
      const char *open = memchr(s + 1, '{', e ? (size_t)(e - s - 1) : strlen(s + 1));
      if (!e || open) {
        err = pd_xasprintf("an unclosed '{' at offset %zu (write {{ for a brace)", (size_t)(s - t->src));
        break;
      }
      if (s > lit) {
        part *p = add_part(t, &cap, P_TEXT);
        p->s = lit;
        p->n = (size_t)(s - lit);
      }
      err = placeholder(t, &cap, as, s + 1, (size_t)(e - s - 1));
      s = e + 1;
      lit = s;
    } else {
      s++;
    }
  }
  if (!err && s > lit) {
    part *p = add_part(t, &cap, P_TEXT);
    p->s = lit;
    p->n = (size_t)(s - lit);
  }
  if (err) {
    *why = err;
    tpl_free(t);
    return NULL;
  }
  return t;
}

bool pd_msgcat_set(pd_msgcat *c, size_t id, size_t lang, const char *text, char **why) {
  *why = NULL;
  if (!c || id >= c->n || lang >= c->nlangs || !text) {
    *why = pd_xstrdup("no such message or language");
    return false;
  }
  tpl **slot = &c->tpls[id * c->nlangs + lang];
  tpl_free(*slot);
  *slot = NULL;
  if (c->args[id].bad) {
    *why = pd_xasprintf("the argument list \"%s\" is not name:type,... with types s, i, f", c->specs[id].args);
    return false;
  }
  *slot = compile(text, &c->args[id], why);
  return *slot != NULL;
}

static void render_arg(pd_buf *b, const part *p, const pd_marg *a) {
  if (a->type == 's') {
    if (!p->fmt[0] || !strcmp(p->fmt, "%s")) pd_buf_puts(b, a->v.s ? a->v.s : "");
    else pd_buf_printf(b, p->fmt, a->v.s ? a->v.s : "");
  } else if (a->type == 'i') {
    pd_buf_printf(b, p->fmt, a->v.i);
  } else {
    pd_buf_printf(b, p->fmt, a->v.f);
  }
}

void pd_msgcat_render(pd_buf *b, const pd_msgcat *c, size_t id, size_t lang, const pd_marg *args,
                      size_t nargs) {
  if (!c || id >= c->n) return;
  const tpl *t = lang < c->nlangs ? c->tpls[id * c->nlangs + lang] : NULL;
  if (!t) {
    pd_buf_puts(b, c->specs[id].key);
    return;
  }
  const argset *as = &c->args[id];
  bool fits = nargs == as->n;
  for (size_t i = 0; fits && i < nargs; i++) fits = args[i].type == as->a[i].type;
  for (size_t i = 0; i < t->n; i++) {
    const part *p = &t->parts[i];
    if (p->kind == P_TEXT) {
      pd_buf_append(b, p->s, p->n);
    } else if (!fits) {
      pd_buf_printf(b, "{?%s}", c->specs[id].key);
    } else if (p->kind == P_PLURAL) {
      bool one = args[p->arg].v.i == 1;
      pd_buf_append(b, one ? p->s : p->other, one ? p->n : p->n_other);
    } else {
      render_arg(b, p, &args[p->arg]);
    }
  }
}
