#include "trace/messages.h"

#include <jansson.h>
#include <stdint.h>
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

/* ---- the compiled form: the header "PDTM", the version, the count of messages and of languages
 * (u32 words in the byte order of the machine that built it), then per message of the list, in its
 * order, the offsets of its key and of each language's text, then those strings NUL-terminated.
 * Loading it parses nothing: each text is a pointer into it. ---- */

#define BIN_MAGIC 0x4d544450u /* "PDTM" */
#define BIN_VERSION 1u
enum { BIN_HEADER = 4, BIN_ROW = 1 + TR_NLANGS };

static void put_u32(pd_buf *b, uint32_t v) { pd_buf_append(b, (const char *)&v, sizeof v); }

void tr_msgs_to_binary(const tr_msgs *m, pd_buf *out) {
  pd_buf strings = {0};
  put_u32(out, BIN_MAGIC);
  put_u32(out, BIN_VERSION);
  put_u32(out, TM_COUNT);
  put_u32(out, TR_NLANGS);
  for (size_t i = 0; i < TM_COUNT; i++)
    for (int l = -1; l < TR_NLANGS; l++) {
      const char *t = l < 0 ? specs[i].key : pd_msgcat_text(m->cat, i, (size_t)l);
      put_u32(out, (uint32_t)strings.len);
      pd_buf_append(&strings, t ? t : "", strlen(t ? t : "") + 1);
    }
  pd_buf_append(out, strings.data ? strings.data : "", strings.len);
  pd_buf_free(&strings);
}

/* The string at offset off of the pool p[0..n), or NULL when it is not one (out of range or not
 * NUL-terminated by the end of the pool, which the builder guarantees for the last one). */
static const char *pool_str(const unsigned char *p, size_t n, uint32_t off) {
  return off < n && p[n - 1] == 0 ? (const char *)p + off : NULL;
}

tr_msgs *tr_msgs_from_binary(const unsigned char *p, size_t n, char ***errs, size_t *nerrs) {
  size_t cap = errs && *errs ? *nerrs : 0, dummy = 0;
  if (!nerrs) nerrs = &dummy;
  tr_msgs *m = pd_xcalloc(1, sizeof *m);
  m->cat = pd_msgcat_new(specs, TM_COUNT, TR_NLANGS);
  const size_t table = (BIN_HEADER + (size_t)TM_COUNT * BIN_ROW) * sizeof(uint32_t);
  uint32_t head[BIN_HEADER] = {0};
  if (n >= sizeof head) memcpy(head, p, sizeof head);
  if (n <= table || head[0] != BIN_MAGIC || head[1] != BIN_VERSION || head[2] != TM_COUNT || head[3] != TR_NLANGS) {
    add_err(errs, nerrs, &cap, pd_xstrdup(FILE_NAME ": the compiled catalog is not one of this build's list"));
    return m;
  }
  const unsigned char *pool = p + table;
  size_t npool = n - table;
  for (size_t i = 0; i < TM_COUNT; i++) {
    uint32_t row[BIN_ROW];
    memcpy(row, p + (BIN_HEADER + i * BIN_ROW) * sizeof(uint32_t), sizeof row);
    const char *key = pool_str(pool, npool, row[0]);
    if (!key || strcmp(key, specs[i].key) != 0) {
      add_err(errs, nerrs, &cap, pd_xasprintf(FILE_NAME ": the compiled catalog has %s where %s belongs", key ? key : "nothing", specs[i].key));
      return m;
    }
    for (int l = 0; l < TR_NLANGS; l++) { /* checked when the build compiled them (tmsgc) */
      const char *text = pool_str(pool, npool, row[1 + l]);
      if (text && *text) pd_msgcat_set_checked(m->cat, i, (size_t)l, text);
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

char *tr_said_in(int lang, tr_msg_id id, const pd_marg *args, size_t nargs) {
  tr_text want = {NULL, lang}, own;
  char *out = tr_said(tr_text_or_builtin(&want, &own), id, args, nargs);
  tr_text_release(&own);
  return out;
}

void tr_text_release(tr_text *own) {
  tr_msgs_free((tr_msgs *)own->msgs);
  own->msgs = NULL;
}

const char *tr_msgs_text(const tr_msgs *m, tr_msg_id id, int lang) {
  return m ? pd_msgcat_text(m->cat, id, (size_t)lang) : NULL;
}
