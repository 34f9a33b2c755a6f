#include "trace/messages.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/data.h"

#define FILE_NAME "trace_messages.json"

static const pd_msg_spec specs[TM_COUNT] = {
#define TR_MSG_SPEC_(id, key, args) {key, args},
    TR_MESSAGES(TR_MSG_SPEC_)
#undef TR_MSG_SPEC_
};

static const char *const lang_names[TR_NLANGS] = {"en", "zh"};

struct tr_msgs {
  pd_msgcat *cat;
};

int tr_lang_of(const char *lang) { return lang && !strcmp(lang, "zh") ? TR_ZH : TR_EN; }

static void add_err(char ***errs, size_t *n, size_t *cap, char *msg) {
  if (errs) *PD_PUSH(*errs, *n, *cap) = msg;
  else free(msg);
}

/* One message's object: every language present and compiled. */
static void load_one(tr_msgs *m, size_t id, const json_t *o, char ***errs, size_t *n, size_t *cap) {
  for (int l = 0; l < TR_NLANGS; l++) {
    const char *text = json_string_value(json_object_get(o, lang_names[l]));
    char *why = NULL;
    if (!text)
      add_err(errs, n, cap, pd_xasprintf(FILE_NAME ": %s has no %s text", specs[id].key, lang_names[l]));
    else if (!pd_msgcat_set(m->cat, id, (size_t)l, text, &why))
      add_err(errs, n, cap, pd_xasprintf(FILE_NAME ": %s (%s): %s", specs[id].key, lang_names[l], why));
    free(why);
  }
}

tr_msgs *tr_msgs_load(const char *text, size_t len, char ***errs, size_t *nerrs) {
  size_t cap = errs && *errs ? *nerrs : 0, dummy = 0;
  if (!nerrs) nerrs = &dummy;
  tr_msgs *m = pd_xcalloc(1, sizeof *m);
  m->cat = pd_msgcat_new(specs, TM_COUNT, TR_NLANGS);
  json_error_t je;
  json_t *root = text ? json_loadb(text, len, 0, &je) : NULL;
  const json_t *all = json_object_get(root, "messages");
  if (!json_is_object(all)) {
    add_err(errs, nerrs, &cap, pd_xstrdup(FILE_NAME ": not {\"messages\": {...}}"));
    json_decref(root);
    return m;
  }
  bool *seen = pd_xcalloc(TM_COUNT, sizeof *seen);
  const char *key;
  json_t *o;
  json_object_foreach((json_t *)all, key, o) {
    long id = pd_msgcat_find(m->cat, key);
    if (id < 0) {
      add_err(errs, nerrs, &cap, pd_xasprintf(FILE_NAME ": %s is not a message of the trace layer", key));
      continue;
    }
    seen[id] = true;
    load_one(m, (size_t)id, o, errs, nerrs, &cap);
  }
  for (size_t i = 0; i < TM_COUNT; i++)
    if (!seen[i]) add_err(errs, nerrs, &cap, pd_xasprintf(FILE_NAME ": %s is missing", specs[i].key));
  free(seen);
  json_decref(root);
  return m;
}

/* ---- the compiled form: "PDTM1\0", then per message of the list, in its order, the key and
 * each language's text, every string NUL-terminated. Loading it parses no JSON. ---- */

static const char BIN_MAGIC[] = "PDTM1";

void tr_msgs_to_binary(const tr_msgs *m, pd_buf *out) {
  pd_buf_append(out, BIN_MAGIC, sizeof BIN_MAGIC);
  for (size_t i = 0; i < TM_COUNT; i++) {
    pd_buf_append(out, specs[i].key, strlen(specs[i].key) + 1);
    for (int l = 0; l < TR_NLANGS; l++) {
      const char *t = pd_msgcat_text(m->cat, i, (size_t)l);
      pd_buf_append(out, t ? t : "", strlen(t ? t : "") + 1);
    }
  }
}

/* The NUL-terminated string at *at in p[0..n), advancing *at past it; NULL past the end. */
static const char *next_str(const unsigned char *p, size_t n, size_t *at) {
  const unsigned char *z = *at < n ? memchr(p + *at, 0, n - *at) : NULL;
  if (!z) return NULL;
  const char *s = (const char *)p + *at;
  *at = (size_t)(z - p) + 1;
  return s;
}

tr_msgs *tr_msgs_from_binary(const unsigned char *p, size_t n, char ***errs, size_t *nerrs) {
  size_t cap = errs && *errs ? *nerrs : 0, dummy = 0, at = 0;
  if (!nerrs) nerrs = &dummy;
  tr_msgs *m = pd_xcalloc(1, sizeof *m);
  m->cat = pd_msgcat_new(specs, TM_COUNT, TR_NLANGS);
  const char *magic = next_str(p, n, &at);
  if (!magic || strcmp(magic, BIN_MAGIC) != 0) {
    add_err(errs, nerrs, &cap, pd_xstrdup(FILE_NAME ": the compiled catalog has no PDTM1 header"));
    return m;
  }
  for (size_t i = 0; i < TM_COUNT; i++) {
    const char *key = next_str(p, n, &at);
    if (!key || strcmp(key, specs[i].key) != 0) {
      add_err(errs, nerrs, &cap, pd_xasprintf(FILE_NAME ": the compiled catalog has %s where %s belongs", key ? key : "nothing", specs[i].key));
      return m;
    }
    for (int l = 0; l < TR_NLANGS; l++) {
      const char *text = next_str(p, n, &at);
      char *why = NULL;
      if (text && *text && !pd_msgcat_set(m->cat, i, (size_t)l, text, &why))
        add_err(errs, nerrs, &cap, pd_xasprintf(FILE_NAME ": %s (%s): %s", key, lang_names[l], why));
      free(why);
    }
  }
  return m;
}

tr_msgs *tr_msgs_builtin(char ***errs, size_t *nerrs) {
  size_t len = 0;
  const unsigned char *bin = pd_data_bytes("trace_messages.bin", &len);
  if (bin) return tr_msgs_from_binary(bin, len, errs, nerrs);
  char *text = pd_data_text(FILE_NAME, &len); /* a build that did not embed the data */
  tr_msgs *m = tr_msgs_load(text, len, errs, nerrs);
  free(text);
  return m;
}

void tr_msgs_free(tr_msgs *m) {
  if (!m) return;
  pd_msgcat_free(m->cat);
  free(m);
}

void tr_say(pd_buf *b, const tr_text *t, tr_msg_id id, const pd_marg *args, size_t nargs) {
  if (!t || !t->msgs) return;
  pd_msgcat_render(b, t->msgs->cat, id, (size_t)t->lang, args, nargs);
}

char *tr_said(const tr_text *t, tr_msg_id id, const pd_marg *args, size_t nargs) {
  pd_buf b = {0};
  tr_say(&b, t, id, args, nargs);
  return pd_buf_take(&b);
}

const tr_text *tr_text_or_builtin(const tr_text *t, tr_text *own) {
  own->msgs = NULL;
  own->lang = t ? t->lang : TR_EN;
  if (t && t->msgs) return t;
  own->msgs = tr_msgs_builtin(NULL, NULL);
  return own;
}

void tr_text_release(tr_text *own) {
  tr_msgs_free((tr_msgs *)own->msgs);
  own->msgs = NULL;
}

const char *tr_msgs_text(const tr_msgs *m, tr_msg_id id, int lang) {
  return m ? pd_msgcat_text(m->cat, id, (size_t)lang) : NULL;
}
