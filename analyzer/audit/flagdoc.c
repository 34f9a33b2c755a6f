/* flagdoc: the documentation of a flag, as hovers and `perf-doctor flags` show it: what the flag
 * catalog holds of it (the parser's own help, type, default, choices, where it is defined and at
 * which commit), what argparse made of this occurrence, and the curated note of
 * data/flag_notes.json where there is one. Every sentence is a message (en, zh); the help text
 * is the parsers' own words and stays as the source writes it. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit/au_int.h"
#include "base/alloc.h"
#include "base/data.h"

/* The notes file is read when a note is asked for (a hover, a completion item's documentation),
 * not at start: parsing it whole cost as much as an analysis on every start of the binary. A note
 * is found by its key (fmt: one `"--flag": {...}` per key, as the file is written) and only that
 * object is parsed. tests/audit checks the whole file's shape. */
struct au_flag_notes {
  char *text; /* the file, NUL-terminated */
  size_t len;
};

au_flag_notes *au_flag_notes_load(char ***errs, size_t *nerrs, size_t *cap) {
  au_flag_notes *n = pd_xcalloc(1, sizeof *n);
  n->text = pd_data_text("flag_notes.json", &n->len);
  if (!n->text) *PD_PUSH(*errs, *nerrs, *cap) = pd_xstrdup("flag_notes.json: missing from this build");
  return n;
}

void au_flag_notes_free(au_flag_notes *n) {
  if (!n) return;
  free(n->text);
  free(n);
}

/* The note object of flag (new reference), or NULL. */
static json_t *note_of(const au_flag_notes *n, const char *flag) {
  if (!n || !n->text || !flag || strncmp(flag, "--", 2)) return NULL;
  char *key = pd_xasprintf("\"%s\": {", flag);
  const char *at = strstr(n->text, key);
  json_t *o = NULL;
  if (at) {
    at += strlen(key) - 1;
    json_error_t e;
    o = json_loadb(at, n->len - (size_t)(at - n->text), JSON_DISABLE_EOF_CHECK, &e);
  }
  free(key);
  return o;
}

char *au_flag_note(const au_rules *rules, const char *flag, const char *lang) {
  json_t *e = note_of(au_rules_notes(rules), flag);
  if (!e) return NULL;
  const char *zh = lang && !strcmp(lang, "zh") ? json_string_value(json_object_get(e, "zh")) : NULL;
  const char *t = zh ? zh : json_string_value(json_object_get(e, "en"));
  char *copy = t ? pd_xstrdup(t) : NULL;
  json_decref(e);
  return copy;
}

static void msg1(pd_buf *b, const au_rules *rules, au_msg_id id, const char *lang, ax_value *a) {
  au_msg_append(b, au_rules_messages(rules), id, lang, NULL, a);
}

static au_msg_id parser_msg(fc_parser p) {
  return p == FC_MEGATRON ? AU_MSG_FLAG_PARSER_MEGATRON : p == FC_SGLANG ? AU_MSG_FLAG_PARSER_SGLANG
         : p == FC_PRE ? AU_MSG_FLAG_PARSER_PRE : AU_MSG_FLAG_PARSER_RELAX;
}

static void arity_line(pd_buf *b, const au_rules *rules, const fc_option *o, const char *lang) {
  int min, max;
  fc_arity(o, &min, &max);
  if (max == 0 || (min == 1 && max == 1)) return;
  ax_value n = ax_num(min);
  au_msg_id id = max < 0 ? (min ? AU_MSG_FLAG_NARGS_SOME : AU_MSG_FLAG_NARGS_ANY)
                 : min == 0 && max == 1 ? AU_MSG_FLAG_NARGS_OPT : AU_MSG_FLAG_NARGS_N;
  msg1(b, rules, id, lang, &n);
  pd_buf_puts(b, "\n\n");
}

static char *list_of(const char *const *v, size_t n) {
  pd_buf b = {0};
  for (size_t i = 0; i < n; i++) pd_buf_printf(&b, "%s`%s`", i ? ", " : "", v[i]);
  return pd_buf_take(&b);
}

static void catalog_part(pd_buf *b, const au_rules *rules, const fc_catalog *cat, const fc_option *o,
                         const char *name, const char *lang) {
  int min, max;
  fc_arity(o, &min, &max);
  ax_value h[3] = {ax_str(name), ax_str(fc_type_name(o)), ax_str(o->default_text)};
  msg1(b, rules, max == 0 ? AU_MSG_FLAG_HEAD_SWITCH : AU_MSG_FLAG_HEAD, lang, h);
  pd_buf_puts(b, "\n\n");
  if (o->help[0]) pd_buf_printf(b, "%s\n\n", o->help);
  if (o->nchoices) {
    char *l = list_of(o->choices, o->nchoices);
    ax_value a = ax_str(l);
    msg1(b, rules, AU_MSG_FLAG_CHOICES, lang, &a);
    pd_buf_puts(b, "\n\n");
    free(l);
  }
  arity_line(b, rules, o, lang);
  if (o->nnames > 1) {
    char *l = list_of(o->names, o->nnames);
    ax_value a = ax_str(l);
    msg1(b, rules, AU_MSG_FLAG_SPELLINGS, lang, &a);
    pd_buf_puts(b, "\n\n");
    free(l);
  }
  if (o->deprecated) {
    ax_value a = ax_str(o->deprecated);
    msg1(b, rules, AU_MSG_FLAG_DEPRECATED, lang, &a);
    pd_buf_puts(b, "\n\n");
  }
  if (o->in && o->in != (FC_IN_INFRA | FC_IN_STUDIO) && !(o->in & FC_IN_CHECKOUT)) {
    ax_value a = ax_str(o->in & FC_IN_INFRA ? "redai-infra/Relax" : "redai-studio/Relax");
    msg1(b, rules, AU_MSG_FLAG_ONE_FORK, lang, &a);
    pd_buf_puts(b, "\n\n");
  }
  pd_buf pb = {0};
  msg1(&pb, rules, parser_msg(o->parser), lang, NULL);
  char *where = o->file ? (o->line ? pd_xasprintf("%s:%ld", o->file, o->line) : pd_xstrdup(o->file))
                        : pd_xstrdup("");
  ax_value s[3] = {ax_str(pb.data ? pb.data : ""), ax_str(fc_origin(cat, o->parser)), ax_str(where)};
  msg1(b, rules, where[0] ? AU_MSG_FLAG_SOURCE_AT : AU_MSG_FLAG_SOURCE, lang, s);
  pd_buf_puts(b, "\n\n");
  free(where);
  pd_buf_free(&pb);
}

/* What argparse made of the occurrence, when it is not plainly accepted. */
static void occurrence_part(pd_buf *b, const au_rules *rules, const sm_flag *occ, const char *lang) {
  if (!occ || !occ->opt) return;
  if (occ->argp == SM_ARGP_UNCHECKED) {
    const char *var = NULL;
    for (size_t i = 0; i < occ->nvalues && !var; i++)
      if (!occ->values[i].resolved || !sm_cert_known(occ->values[i].cert))
        var = occ->values[i].cert_var ? occ->values[i].cert_var : occ->values[i].text;
    ax_value a = ax_str(var ? var : occ->name);
    msg1(b, rules, AU_MSG_FLAG_UNCHECKED, lang, &a);
    pd_buf_puts(b, "\n\n");
  } else if (occ->argp != SM_ARGP_OK) {
    ax_value a = ax_str(sm_argp_name(occ->argp));
    msg1(b, rules, AU_MSG_FLAG_REFUSED, lang, &a);
    pd_buf_puts(b, "\n\n");
  }
}

char *au_flag_markdown(const au_rules *rules, const fc_catalog *cat, const char *name,
                       const sm_flag *occ, const char *lang) {
  if (!name) return NULL;
  if (!cat) cat = au_rules_flags(rules);
  const fc_option *o = fc_find(cat, name);
  pd_buf b = {0};
  if (o) {
    catalog_part(&b, rules, cat, o, name, lang);
    occurrence_part(&b, rules, occ, lang);
  } else if (cat) {
    ax_value a[2] = {ax_str(name), ax_str(fc_origin(cat, FC_MEGATRON))};
    msg1(&b, rules, fc_dropped(cat, name) ? AU_MSG_FLAG_DROPPED : AU_MSG_FLAG_UNKNOWN, lang, a);
    pd_buf_puts(&b, "\n\n");
    const char *near[3];
    size_t n = fc_suggest(cat, name, near, 3);
    if (n) {
      char *l = list_of(near, n);
      ax_value s = ax_str(l);
      msg1(&b, rules, AU_MSG_FLAG_SUGGEST, lang, &s);
      pd_buf_puts(&b, "\n\n");
      free(l);
    }
  }
  char *note = au_flag_note(rules, name, lang);
  if (note) {
    ax_value a = ax_str(note);
    msg1(&b, rules, AU_MSG_FLAG_NOTE, lang, &a);
    pd_buf_puts(&b, "\n\n");
  }
  free(note);
  if (!b.len) {
    pd_buf_free(&b);
    return NULL;
  }
  while (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
  return pd_buf_take(&b);
}
