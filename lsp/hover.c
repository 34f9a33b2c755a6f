#include "lsp/hover.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static bool contains(sm_range r, size_t at) { return at >= r.start_byte && at <= r.end_byte; }

/* Markdown emphasis and code marks out, for clients that render plain text. */
static void plain(pd_buf *b) {
  size_t w = 0;
  for (size_t i = 0; i < b->len; i++) {
    if (b->data[i] == '`' || (b->data[i] == '*' && i + 1 < b->len && b->data[i + 1] == '*')) {
      if (b->data[i] == '*') i++;
      continue;
    }
    b->data[w++] = b->data[i];
  }
  b->len = w;
  b->data[w] = '\0';
}

static bool hov_overlaps(int fa, sm_range a, int fb, sm_range b) {
  return fa == fb && a.start_byte <= b.end_byte && b.start_byte <= a.end_byte;
}

static const char *severity_tag(const au_finding *f) {
  if (f->borderline) return "INFO";
  return f->severity == AU_CRITICAL ? "CRITICAL" : f->severity == AU_WARN ? "WARN" : "INFO";
}

static const char *file_name(const sm_model *m, int file) {
  if (file < 0 || (size_t)file >= m->nfiles || !m->files[file].path) return "script";
  const char *p = m->files[file].path, *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* "line 12 of qwen3-4B.sh (MODEL_ARGS)" */
static void where(pd_buf *b, const sm_model *m, const sm_flag *f) {
  pd_buf_printf(b, "line %u", f->range.start_line + 1);
  if (f->file != 0) pd_buf_printf(b, " of %s", file_name(m, f->file));
  if (f->group) pd_buf_printf(b, " (%s)", f->group);
  else pd_buf_puts(b, " (launch line)");
  if (f->conditional) pd_buf_puts(b, ", conditional");
}

static void value_text(pd_buf *b, const sm_flag *f, bool md) {
  if (f->nvalues == 0) {
    pd_buf_puts(b, "on (switch)");
    return;
  }
  for (size_t i = 0; i < f->nvalues; i++) {
    const sm_value *v = &f->values[i];
    if (i) pd_buf_putc(b, ' ');
    pd_buf_printf(b, md ? "`%s`" : "%s", v->text ? v->text : "");
    if (!v->resolved) pd_buf_puts(b, " (unresolved)");
  }
}

static void flag_hover(pd_buf *b, const au_result *r, const sm_flag *occ, const char *lang, bool md) {
  const sm_model *m = r->model;
  const sm_flag *win = &m->flags[occ->final_index < m->nflags ? occ->final_index : 0];
  char *doc = au_flag_markdown(r->rules, m->catalog, occ->name, occ, lang);
  if (doc) pd_buf_printf(b, "%s\n\n", doc); /* it names the flag itself */
  else pd_buf_printf(b, md ? "**%s**\n\n" : "%s\n\n", occ->name);
  free(doc);

  pd_buf_puts(b, md ? "**Resolved value:** " : "Resolved value: ");
  value_text(b, win, md);
  pd_buf_puts(b, "\n\n");

  size_t count = 0;
  for (size_t i = 0; i < m->nflags; i++)
    if (!strcmp(m->flags[i].name, occ->name)) count++;
  if (count > 1 || occ->overridden) {
    pd_buf_puts(b, md ? "**Set in:**\n" : "Set in:\n");
    for (size_t i = 0; i < m->nflags; i++) {
      const sm_flag *f = &m->flags[i];
      if (strcmp(f->name, occ->name) != 0) continue;
      pd_buf_puts(b, "- ");
      where(b, m, f);
      pd_buf_puts(b, ": ");
      value_text(b, f, md);
      if (f == win) pd_buf_puts(b, md ? " **(wins: last occurrence)**" : " (wins: last occurrence)");
      else pd_buf_puts(b, " (overridden)");
      pd_buf_putc(b, '\n');
    }
    pd_buf_putc(b, '\n');
  } else if (occ->conditional) {
    pd_buf_puts(b, "Set only in a conditional branch or `${X:+...}` expansion.\n\n");
  }
  if (occ->note) pd_buf_printf(b, "%s %s\n\n", md ? "**Note:**" : "Note:", occ->note);

  char *facts = au_hover_facts(r, occ->name, lang);
  if (facts && *facts) pd_buf_printf(b, "%s\n\n", facts);
  free(facts);

  bool header = false;
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    bool involved = (f->flag && !strcmp(f->flag, occ->name)) ||
                    hov_overlaps(f->file, f->range, occ->file, occ->full);
    for (size_t k = 0; !involved && k < f->nrelated; k++)
      involved = hov_overlaps(f->related[k].file, f->related[k].range, occ->file, occ->full);
    if (!involved) continue;
    if (!header) pd_buf_puts(b, md ? "**Findings:**\n" : "Findings:\n");
    header = true;
    pd_buf_printf(b, "- [%s] %s — %s\n", severity_tag(f), f->rule, f->title ? f->title : "");
    /* the rule's explanation, as `perf-doctor explain` gives it first */
    if (f->why && *f->why) pd_buf_printf(b, "  %s\n", f->why);
    if (f->evidence)
      pd_buf_printf(b, md ? "  *Measured (trace, %s):* %s\n" : "  Measured (trace, %s): %s\n",
                    f->evidence_verdict ? f->evidence_verdict : "inconclusive", f->evidence);
  }
}

static void source_hover(pd_buf *b, const au_result *r, const char *lang, bool md) {
  const sm_context *c = &r->model->ctx;
  pd_buf_printf(b, md ? "**Model config:** %s\n\n" : "Model config: %s\n\n", c->model ? c->model : "(not resolved)");
  char *facts = au_hover_facts(r, "source", lang);
  if (facts && *facts) pd_buf_printf(b, "%s\n", facts);
  free(facts);
}

/* "line 7, qwen3-4B.sh line 2": where the definitions of ref's name are. */
static void places(pd_buf *b, const au_result *r, const sm_ref *ref, const char *lang, int here) {
  const sm_model *m = r->model;
  size_t n = 0;
  for (size_t i = 0; i < m->nrefs && n < 8; i++) {
    const sm_ref *x = &m->refs[i];
    if ((x->role != SM_REF_DEF && x->role != SM_REF_APPEND) || strcmp(x->name, ref->name) ||
        (x->kind == SM_SYM_FUNC) != (ref->kind == SM_SYM_FUNC))
      continue;
    ax_value a[2] = {ax_str(file_name(m, x->file)), ax_num((double)x->range.start_line + 1)};
    char *p = x->file == here ? au_say(r, AU_MSG_SETTING_LINE, lang, a + 1) : au_say(r, AU_MSG_SETTING_FILE_LINE, lang, a);
    pd_buf_printf(b, "%s%s", n++ ? ", " : "", p);
    free(p);
  }
}

static void say(pd_buf *b, const au_result *r, au_msg_id id, const char *lang, const ax_value *a) {
  char *s = au_say(r, id, lang, a);
  pd_buf_puts(b, s);
  free(s);
}

/* A variable, array or function under the cursor: its value (the one the script leaves), where it
 * is set, or that it comes from the environment. */
static void ref_hover(pd_buf *b, const au_result *r, const sm_ref *ref, const char *lang) {
  const sm_model *m = r->model;
  ax_value name = ax_str(ref->name);
  pd_buf where = {0};
  places(&where, r, ref, lang, ref->file);
  if (ref->kind == SM_SYM_FUNC) {
    say(b, r, AU_MSG_HOVER_FUNCTION, lang, &name);
  } else if (ref->kind == SM_SYM_ARRAY || (!sm_var_get(m, ref->name) && where.len)) {
    size_t flags = 0;
    for (size_t i = 0; i < m->nflags; i++) flags += m->flags[i].group && !strcmp(m->flags[i].group, ref->name);
    ax_value a[2] = {name, ax_num((double)flags)};
    say(b, r, AU_MSG_HOVER_ARRAY, lang, a);
  } else {
    const sm_var *v = sm_var_get(m, ref->name);
    if (!v || !where.len) {
      say(b, r, AU_MSG_HOVER_VAR_ENV, lang, &name);
    } else if (!v->known) {
      say(b, r, AU_MSG_HOVER_VAR_UNKNOWN, lang, &name);
    } else {
      ax_value a[2] = {name, ax_str(v->value)};
      say(b, r, AU_MSG_HOVER_VAR_VALUE, lang, a);
      if (v->cert == SM_CERT_DEFAULT) say(b, r, AU_MSG_HOVER_VAR_DEFAULT, lang, NULL);
      else if (v->cert == SM_CERT_BRANCH) say(b, r, AU_MSG_HOVER_VAR_BRANCH, lang, NULL);
    }
  }
  if (where.len) {
    pd_buf_puts(b, "\n\n");
    ax_value a = ax_str(where.data);
    say(b, r, AU_MSG_HOVER_SET_AT, lang, &a);
  }
  pd_buf_free(&where);
}

json_t *hov_hover(const au_result *r, const fm_map *m, int file, size_t at, const char *lang,
                  bool markdown) {
  const sm_model *model = r->model;
  if (!model) return NULL;
  pd_buf b = {0};
  int rfile = file;
  sm_range range = {0};
  /* The innermost thing under the cursor: a variable, array or function name, else a flag
   * occurrence (the flag word or its values). */
  const sm_ref *ref = sm_ref_at(model, file, (uint32_t)at);
  if (ref) {
    ref_hover(&b, r, ref, lang);
    range = ref->whole.start_byte <= ref->range.start_byte && ref->whole.end_byte >= ref->range.end_byte ? ref->whole : ref->range;
  }
  for (size_t i = 0; !ref && i < model->nflags; i++) {
    const sm_flag *f = &model->flags[i];
    if (f->file != file || !contains(f->full, at)) continue;
    flag_hover(&b, r, f, lang, markdown);
    range = f->full;
    break;
  }
  if (b.len == 0) {
    /* A `source` command: the model config's says what the model is; any other names its file. */
    if (model->source_file == file && contains(model->source_range, at)) {
      range = model->source_range;
      source_hover(&b, r, lang, markdown);
    }
    for (size_t k = 1; b.len == 0 && k < model->nfiles; k++)
      if (model->files[k].parent == file && contains(model->files[k].source_range, at)) {
        range = model->files[k].source_range;
        char *rel = sm_rel_path(model, (int)k);
        ax_value a[2] = {ax_str(rel), ax_num((double)model->files[k].nlines)};
        say(&b, r, AU_MSG_HOVER_SOURCED, lang, a);
        free(rel);
      }
  }
  if (b.len == 0) {
    pd_buf_free(&b);
    return NULL;
  }
  /* Trim trailing blank lines. */
  while (b.len > 0 && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
  if (!markdown) plain(&b);
  json_t *h = json_pack("{s:{s:s,s:o},s:o}", "contents", "kind", markdown ? "markdown" : "plaintext",
                        "value", fm_string(b.data), "range", fm_range(m, rfile, range));
  pd_buf_free(&b);
  return h;
}
