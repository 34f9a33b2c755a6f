#include "audit/messages.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/catalog.h"
#include "audit/template.h"

#define MSG_ARG_BASE 100000 /* ids of a message's own arguments: MSG_ARG_BASE + index */
#define MSG_MAX_ARGS 12

static const struct {
  const char *key, *args;
} specs[AU_MSG_COUNT] = {
#define AU_MSG_SPEC_(id, key, args) {key, args},
    AU_MESSAGES(AU_MSG_SPEC_)
#undef AU_MSG_SPEC_
};

/* Sources are kept as read and compiled on first use: a run renders a few dozen of the ~200
 * messages, in one language, so compiling all of them at start cost more than the audit itself.
 * au_messages_check compiles every one (the test suite runs it). The audit is single-threaded,
 * so filling the cache behind a const pointer is safe. */
enum { L_EN, L_ZH, NLANG };
struct au_messages {
  char *src[NLANG][AU_MSG_COUNT];
  at_tpl *tpl[NLANG][AU_MSG_COUNT];
  bool failed[NLANG][AU_MSG_COUNT];
};

/* The index of `name` in a comma-separated argument list, or -1. */
static int arg_index(const char *list, const char *name) {
  size_t n = strlen(name);
  int i = 0;
  for (const char *p = list; *p; i++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return i;
    if (!e) break;
    p = e + 1;
  }
  return -1;
}

static int msg_resolve(void *ctx, const char *name, bool is_call, size_t nargs, char **why) {
  const char *args = ctx;
  int i = is_call ? -1 : arg_index(args, name);
  if (i >= MSG_MAX_ARGS) { /* it would read past the arguments passed: refuse at load */
    *why = pd_xasprintf("'%s' is argument %d; a message takes at most %d", name, i + 1, MSG_MAX_ARGS);
    return -1;
  }
  if (i >= 0) return MSG_ARG_BASE + i;
  return ac_resolve(NULL, name, is_call, nargs, why);
}

static void push_err(char ***errs, size_t *n, size_t *cap, char *msg) { *PD_PUSH(*errs, *n, *cap) = msg; }

static at_tpl *compile_one(const char *src, size_t id, char **why) {
  return at_compile(src, msg_resolve, (void *)specs[id].args, why);
}

/* Every message is required in both languages: a user who reads Chinese must not meet an
 * English sentence because one translation was forgotten. */
au_messages *au_messages_load(const char *text, size_t len, char ***errs, size_t *nerrs,
                              size_t *caperrs) {
  static const char *const langs[NLANG] = {"en", "zh"};
  au_messages *ms = pd_xcalloc(1, sizeof *ms);
  json_error_t je;
  json_t *root = text ? json_loadb(text, len, 0, &je) : NULL;
  json_t *all = json_object_get(root, "messages");
  if (!json_is_object(all))
    push_err(errs, nerrs, caperrs, pd_xstrdup("messages.json: missing or not {\"messages\": {...}}"));
  for (size_t i = 0; i < AU_MSG_COUNT; i++) {
    json_t *m = json_object_get(all, specs[i].key);
    if (json_is_object(all) && !json_is_object(m)) {
      push_err(errs, nerrs, caperrs, pd_xasprintf("messages.json: %s is missing", specs[i].key));
      continue;
    }
    for (int l = 0; l < NLANG; l++) {
      const char *src = json_string_value(json_object_get(m, langs[l]));
      if (src) ms->src[l][i] = pd_xstrdup(src);
      else if (m) push_err(errs, nerrs, caperrs, pd_xasprintf("messages.json: %s has no \"%s\" text", specs[i].key, langs[l]));
    }
  }
  json_decref(root);
  return ms;
}

void au_messages_check(const au_messages *ms, char ***errs, size_t *nerrs, size_t *caperrs) {
  static const char *const langs[NLANG] = {"en", "zh"};
  for (size_t i = 0; ms && i < AU_MSG_COUNT; i++)
    for (int l = 0; l < NLANG; l++) {
      if (!ms->src[l][i]) continue;
      char *why = NULL;
      at_tpl *t = compile_one(ms->src[l][i], i, &why);
      if (!t) push_err(errs, nerrs, caperrs, pd_xasprintf("messages.json: %s (%s): %s", specs[i].key, langs[l], why));
      at_free(t);
      free(why);
    }
}

/* The compiled template of message id in language l, compiled now if it was not yet. */
static const at_tpl *template_of(const au_messages *cms, size_t id, int l) {
  au_messages *ms = (au_messages *)cms; /* the cache only: see the struct */
  if (!ms->tpl[l][id] && !ms->failed[l][id] && ms->src[l][id]) {
    char *why = NULL;
    ms->tpl[l][id] = compile_one(ms->src[l][id], id, &why);
    ms->failed[l][id] = !ms->tpl[l][id];
    free(why);
  }
  return ms->tpl[l][id];
}

void au_messages_free(au_messages *ms) {
  if (!ms) return;
  for (int l = 0; l < NLANG; l++)
    for (size_t i = 0; i < AU_MSG_COUNT; i++) {
      at_free(ms->tpl[l][i]);
      free(ms->src[l][i]);
    }
  free(ms);
}

typedef struct {
  const ax_env *facts;
  const ax_value *args;
} msg_ctx;

static bool msg_lookup(void *ctx, int id, const char *name, ax_value *out) {
  const msg_ctx *c = ctx;
  if (id >= MSG_ARG_BASE && id < MSG_ARG_BASE + MSG_MAX_ARGS) {
    *out = c->args ? c->args[id - MSG_ARG_BASE] : ax_null();
    return true;
  }
  return c->facts && c->facts->lookup(c->facts->ctx, id, name, out);
}

/* A message rendered without facts (a hover frame, a baseline row) still has the two functions
 * that need none: known(x) and def(x, d). */
static bool msg_call(void *ctx, int id, const char *fn, const ax_value *a, size_t n, ax_value *out) {
  const msg_ctx *c = ctx;
  if (c->facts) return c->facts->call(c->facts->ctx, id, fn, a, n, out);
  if (!strcmp(fn, "known") && n == 1) {
    *out = ax_bool(a[0].kind != AX_NULL);
    return true;
  }
  if (!strcmp(fn, "def") && n == 2) {
    *out = a[0].kind == AX_NULL ? a[1] : a[0];
    return true;
  }
  return false;
}

void au_msg_append(pd_buf *b, const au_messages *ms, au_msg_id id, const char *lang,
                   const ax_env *facts, const ax_value *args) {
  if (!ms || id >= AU_MSG_COUNT) return;
  const at_tpl *t = lang && !strcmp(lang, "zh") ? template_of(ms, id, L_ZH) : NULL;
  if (!t) t = template_of(ms, id, L_EN);
  if (!t) {
    pd_buf_puts(b, specs[id].key);
    return;
  }
  msg_ctx c = {facts, args};
  ax_env env = {msg_lookup, msg_call, &c};
  at_render(b, t, &env, NULL);
}

char *au_msg(const au_messages *ms, au_msg_id id, const char *lang, const ax_env *facts,
             const ax_value *args) {
  pd_buf b = {0};
  au_msg_append(&b, ms, id, lang, facts, args);
  return pd_buf_take(&b);
}

size_t au_msg_arity(au_msg_id id) {
  if (id >= AU_MSG_COUNT || !*specs[id].args) return 0;
  size_t n = 1;
  for (const char *c = specs[id].args; *c; c++) n += *c == ',';
  return n;
}
