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

struct au_messages {
  at_tpl *en[AU_MSG_COUNT], *zh[AU_MSG_COUNT];
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

static at_tpl *compile_one(json_t *v, size_t id, const char *lang, char ***errs, size_t *n,
                           size_t *cap) {
  if (!json_is_string(v)) return NULL;
  char *why = NULL;
  at_tpl *t = at_compile(json_string_value(v), msg_resolve, (void *)specs[id].args, &why);
  if (!t) push_err(errs, n, cap, pd_xasprintf("messages.json: %s (%s): %s", specs[id].key, lang, why));
  free(why);
  return t;
}

au_messages *au_messages_load(const char *text, size_t len, char ***errs, size_t *nerrs,
                              size_t *caperrs) {
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
    ms->en[i] = compile_one(json_object_get(m, "en"), i, "en", errs, nerrs, caperrs);
    ms->zh[i] = compile_one(json_object_get(m, "zh"), i, "zh", errs, nerrs, caperrs);
  }
  json_decref(root);
  return ms;
}

void au_messages_free(au_messages *ms) {
  if (!ms) return;
  for (size_t i = 0; i < AU_MSG_COUNT; i++) {
    at_free(ms->en[i]);
    at_free(ms->zh[i]);
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

static bool msg_call(void *ctx, int id, const char *fn, const ax_value *a, size_t n, ax_value *out) {
  const msg_ctx *c = ctx;
  return c->facts && c->facts->call(c->facts->ctx, id, fn, a, n, out);
}

void au_msg_append(pd_buf *b, const au_messages *ms, au_msg_id id, const char *lang,
                   const ax_env *facts, const ax_value *args) {
  if (!ms || id >= AU_MSG_COUNT) return;
  const at_tpl *t = lang && !strcmp(lang, "zh") && ms->zh[id] ? ms->zh[id] : ms->en[id];
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
