/* flagbin: the catalog in the compact binary form the build embeds.
 *
 * Parsing flags.json with jansson costs about twice a whole `check` of one script, on every
 * start of the binary; the build therefore compiles it (flagc.c) into this form, which loads
 * with no parsing: strings are one NUL-separated table the options point into, lists are runs
 * of a table of 32-bit indexes, and each option is a fixed record of them.
 *
 *   header   "PDFC", version, options, string bytes, index words, dropped, uncovered, rejected,
 *            then the four origins (string offsets)
 *   strings  NUL-terminated, deduplicated
 *   indexes  u32 words: name lists, choice lists, deprecated-value triples (value, message, error)
 *   options  FB_FIELDS u32 words each
 *   dropped, uncovered: a string offset each; rejected: (name, replacement, forks) each
 * Words are in the byte order of the machine that built it; NONE (all ones) is a NULL string. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "flagcat/fc_int.h"

#define FB_MAGIC 0x43464450u /* "PDFC" */
#define FB_VERSION 2u
#define NONE 0xFFFFFFFFu

enum {
  F_NAMES, F_NNAMES, F_DEST, F_PARSER, F_IN, F_ACTION, F_NARGS, F_TYPE, F_TYPE_TEXT, F_CHOICES,
  F_NCHOICES, F_DEFAULT, F_COMPUTED, F_HELP, F_DEPRECATED, F_DEP, F_DEPV, F_NDEPV, F_SGLANG, F_FILE,
  F_LINE, F_RESET, F_REPLACED_BY, FB_FIELDS
};
enum { H_MAGIC, H_VERSION, H_NOPTS, H_STRLEN, H_NWORDS, H_NDROPPED, H_NUNCOVERED, H_NREJECTED,
       H_ORIGIN, FB_HEADER = H_ORIGIN + FC_NPARSERS };

/* ---- writing ---- */

typedef struct {
  pd_buf str;
  pd_map seen; /* string -> offset */
  uint32_t *words;
  size_t nwords, capwords;
} writer;

static uint32_t str_of(writer *w, const char *s) {
  if (!s) return NONE;
  bool added;
  pd_map_slot *slot = pd_map_put(&w->seen, s, &added);
  if (added) {
    slot->value = w->str.len;
    pd_buf_append(&w->str, s, strlen(s) + 1);
  }
  return (uint32_t)slot->value;
}

static uint32_t words_of(writer *w, const uint32_t *v, size_t n) {
  uint32_t at = (uint32_t)w->nwords;
  for (size_t i = 0; i < n; i++) *PD_PUSH(w->words, w->nwords, w->capwords) = v[i];
  return at;
}

static uint32_t list_of(writer *w, const char *const *v, size_t n) {
  uint32_t *ix = pd_xcalloc(n ? n : 1, sizeof *ix);
  for (size_t i = 0; i < n; i++) ix[i] = str_of(w, v[i]);
  uint32_t at = words_of(w, ix, n);
  free(ix);
  return at;
}

static void record(writer *w, const fc_option *o, uint32_t *r) {
  r[F_NAMES] = list_of(w, o->names, o->nnames), r[F_NNAMES] = (uint32_t)o->nnames;
  r[F_DEST] = str_of(w, o->dest), r[F_PARSER] = o->parser, r[F_IN] = o->in, r[F_ACTION] = o->action;
  r[F_NARGS] = (uint32_t)o->nargs, r[F_TYPE] = o->type, r[F_TYPE_TEXT] = str_of(w, o->type_text);
  r[F_CHOICES] = list_of(w, o->choices, o->nchoices), r[F_NCHOICES] = (uint32_t)o->nchoices;
  r[F_DEFAULT] = str_of(w, o->default_text), r[F_COMPUTED] = o->default_computed;
  r[F_HELP] = str_of(w, o->help), r[F_DEPRECATED] = str_of(w, o->deprecated), r[F_DEP] = o->dep;
  r[F_DEPV] = (uint32_t)w->nwords, r[F_NDEPV] = (uint32_t)o->ndep_values;
  for (size_t i = 0; i < o->ndep_values; i++) {
    uint32_t t[3] = {str_of(w, o->dep_values[i].value), str_of(w, o->dep_values[i].message), o->dep_values[i].error};
    words_of(w, t, 3);
  }
  r[F_SGLANG] = o->sglang, r[F_FILE] = str_of(w, o->file), r[F_LINE] = (uint32_t)o->line, r[F_RESET] = o->reset;
  r[F_REPLACED_BY] = str_of(w, o->replaced_by);
}

void fc_to_binary(const fc_catalog *c, pd_buf *out) {
  writer w = {0};
  uint32_t *recs = pd_xcalloc(c->nopts ? c->nopts * FB_FIELDS : 1, sizeof *recs);
  for (size_t i = 0; i < c->nopts; i++) record(&w, &c->opts[i], recs + i * FB_FIELDS);
  uint32_t *tail = NULL;
  size_t ntail = 0, captail = 0;
  size_t it = 0;
  const char *key;
  size_t v;
  size_t ndropped = 0;
  while (pd_map_next(&c->dropped, &it, &key, &v)) *PD_PUSH(tail, ntail, captail) = str_of(&w, key), ndropped++;
  for (size_t i = 0; i < c->nuncovered; i++) *PD_PUSH(tail, ntail, captail) = str_of(&w, c->uncovered[i]);
  for (size_t i = 0; i < c->nrejected; i++) {
    *PD_PUSH(tail, ntail, captail) = str_of(&w, c->rejected[i].name);
    *PD_PUSH(tail, ntail, captail) = str_of(&w, c->rejected[i].replacement);
    *PD_PUSH(tail, ntail, captail) = c->rejected[i].in;
  }
  uint32_t h[FB_HEADER] = {FB_MAGIC, FB_VERSION, (uint32_t)c->nopts, 0, 0, (uint32_t)ndropped,
                           (uint32_t)c->nuncovered, (uint32_t)c->nrejected};
  for (int p = 0; p < FC_NPARSERS; p++) h[H_ORIGIN + p] = str_of(&w, c->origin[p]);
  h[H_STRLEN] = (uint32_t)w.str.len, h[H_NWORDS] = (uint32_t)w.nwords;
  pd_buf_append(out, (const char *)h, sizeof h);
  pd_buf_append(out, w.str.data ? w.str.data : "", w.str.len);
  pd_buf_append(out, (const char *)w.words, w.nwords * sizeof *w.words);
  pd_buf_append(out, (const char *)recs, c->nopts * FB_FIELDS * sizeof *recs);
  pd_buf_append(out, (const char *)tail, ntail * sizeof *tail);
  free(tail);
  free(recs);
  free(w.words);
  pd_buf_free(&w.str);
  pd_map_free(&w.seen);
}

/* ---- reading ---- */

typedef struct {
  const unsigned char *data;
  size_t len;
  const char *strs;
  uint32_t strlen, nwords;
  const unsigned char *words, *recs, *tail;
  bool bad;
} reader;

static uint32_t u32_at(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v); /* the embedded bytes are not aligned */
  return v;
}

static const char *str_at(reader *r, uint32_t off) {
  if (off == NONE) return NULL;
  if (off >= r->strlen) {
    r->bad = true;
    return "";
  }
  return r->strs + off;
}

static uint32_t word_at(reader *r, uint32_t i) {
  if (i >= r->nwords) {
    r->bad = true;
    return NONE;
  }
  return u32_at(r->words + (size_t)i * 4);
}

static const char **strings(reader *r, uint32_t at, uint32_t n) {
  if (!n) return NULL;
  const char **v = pd_xcalloc(n, sizeof *v);
  for (uint32_t i = 0; i < n; i++) v[i] = str_at(r, word_at(r, at + i));
  return v;
}

static void read_option(reader *r, fc_option *o, const unsigned char *rec) {
  uint32_t f[FB_FIELDS];
  for (int i = 0; i < FB_FIELDS; i++) f[i] = u32_at(rec + (size_t)i * 4);
  o->names = strings(r, f[F_NAMES], f[F_NNAMES]), o->nnames = f[F_NNAMES];
  o->dest = str_at(r, f[F_DEST]);
  o->parser = f[F_PARSER] < FC_NPARSERS ? (fc_parser)f[F_PARSER] : (r->bad = true, FC_RELAX);
  o->in = f[F_IN], o->action = (fc_action)f[F_ACTION], o->nargs = (int)f[F_NARGS];
  o->type = (fc_type)f[F_TYPE], o->type_text = str_at(r, f[F_TYPE_TEXT]);
  o->choices = strings(r, f[F_CHOICES], f[F_NCHOICES]), o->nchoices = f[F_NCHOICES];
  o->default_text = str_at(r, f[F_DEFAULT]), o->default_computed = f[F_COMPUTED] != 0;
  o->help = str_at(r, f[F_HELP]), o->deprecated = str_at(r, f[F_DEPRECATED]);
  o->dep = (fc_deprecation)f[F_DEP];
  fc_dep_value *dv = f[F_NDEPV] ? pd_xcalloc(f[F_NDEPV], sizeof *dv) : NULL;
  for (uint32_t i = 0; i < f[F_NDEPV]; i++)
    dv[i] = (fc_dep_value){str_at(r, word_at(r, f[F_DEPV] + 3 * i)), str_at(r, word_at(r, f[F_DEPV] + 3 * i + 1)),
                           word_at(r, f[F_DEPV] + 3 * i + 2) != 0};
  o->dep_values = dv, o->ndep_values = f[F_NDEPV];
  o->sglang = (fc_sglang_parser)f[F_SGLANG], o->file = str_at(r, f[F_FILE]);
  o->line = (long)f[F_LINE], o->reset = f[F_RESET] != 0;
  o->replaced_by = str_at(r, f[F_REPLACED_BY]);
  if (!o->nnames || !o->names[0] || !o->default_text || !o->help) r->bad = true;
}

static void read_tail(reader *r, fc_catalog *c, uint32_t ndropped, uint32_t nunc, uint32_t nrej) {
  const unsigned char *t = r->tail;
  for (uint32_t i = 0; i < ndropped; i++, t += 4) {
    bool added;
    const char *name = str_at(r, u32_at(t));
    if (name) pd_map_put(&c->dropped, name, &added)->value = i;
  }
  c->uncovered = pd_xcalloc(nunc ? nunc : 1, sizeof *c->uncovered);
  for (uint32_t i = 0; i < nunc; i++, t += 4) c->uncovered[c->nuncovered++] = str_at(r, u32_at(t));
  c->rejected = pd_xcalloc(nrej ? nrej : 1, sizeof *c->rejected);
  for (uint32_t i = 0; i < nrej; i++, t += 12)
    c->rejected[c->nrejected++] = (fc_rejected_flag){str_at(r, u32_at(t)), str_at(r, u32_at(t + 4)), u32_at(t + 8)};
}

fc_catalog *fc_from_binary(const unsigned char *data, size_t len, const char *origin, char **err) {
  *err = NULL;
  uint32_t h[FB_HEADER];
  if (len < sizeof h) goto bad;
  for (int i = 0; i < FB_HEADER; i++) h[i] = u32_at(data + (size_t)i * 4);
  if (h[H_MAGIC] != FB_MAGIC || h[H_VERSION] != FB_VERSION) goto bad;
  uint64_t need = sizeof h + (uint64_t)h[H_STRLEN] + 4ull * h[H_NWORDS] + 4ull * FB_FIELDS * h[H_NOPTS] +
                  4ull * (h[H_NDROPPED] + h[H_NUNCOVERED]) + 12ull * h[H_NREJECTED];
  if (need != len || (h[H_STRLEN] && data[sizeof h + h[H_STRLEN] - 1] != '\0')) goto bad;
  reader r = {data, len, (const char *)data + sizeof h, h[H_STRLEN], h[H_NWORDS], NULL, NULL, NULL, false};
  r.words = data + sizeof h + h[H_STRLEN];
  r.recs = r.words + 4ull * h[H_NWORDS];
  r.tail = r.recs + 4ull * FB_FIELDS * h[H_NOPTS];
  fc_catalog *c = pd_xcalloc(1, sizeof *c);
  c->opts = pd_xcalloc(h[H_NOPTS] ? h[H_NOPTS] : 1, sizeof *c->opts);
  c->cap = h[H_NOPTS] ? h[H_NOPTS] : 1;
  for (uint32_t i = 0; i < h[H_NOPTS]; i++) read_option(&r, &c->opts[c->nopts++], r.recs + (size_t)i * 4 * FB_FIELDS);
  read_tail(&r, c, h[H_NDROPPED], h[H_NUNCOVERED], h[H_NREJECTED]);
  for (int p = 0; p < FC_NPARSERS; p++) {
    const char *o = str_at(&r, h[H_ORIGIN + p]);
    c->origin[p] = o ? o : "no source named";
  }
  if (r.bad) {
    fc_free(c);
    goto bad;
  }
  fc_index(c);
  return c;
bad:
  *err = pd_xasprintf("%s: not a flag catalog of this build (bad header, size or offsets)", origin);
  return NULL;
}
