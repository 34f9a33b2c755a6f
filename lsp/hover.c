#include "lsp/hover.h"

#include <stdio.h>
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

/* One sentence of the message catalog in the client's language (args as text, up to three). */
static void say(pd_buf *b, const au_result *r, const char *lang, au_msg_id id, const char *a0,
                const char *a1, const char *a2) {
  const char *args[3] = {a0, a1, a2};
  au_text_append(b, r->rules, id, lang, args);
}

/* "line 12 of qwen3-4B.sh (MODEL_ARGS)" */
static void where(pd_buf *b, const au_result *r, const char *lang, const sm_flag *f) {
  char line[16];
  snprintf(line, sizeof line, "%u", f->range.start_line + 1);
  if (f->file != 0) say(b, r, lang, AU_MSG_UI_FILE_LINE, file_name(r->model, f->file), line, NULL);
  else say(b, r, lang, AU_MSG_UI_LINE, line, NULL, NULL);
  if (f->group) say(b, r, lang, AU_MSG_UI_GROUP, f->group, NULL, NULL);
  else say(b, r, lang, AU_MSG_UI_LAUNCH_LINE, NULL, NULL, NULL);
  if (f->conditional) say(b, r, lang, AU_MSG_UI_CONDITIONAL, NULL, NULL, NULL);
}

static void value_text(pd_buf *b, const au_result *r, const char *lang, const sm_flag *f) {
  if (f->nvalues == 0) {
    say(b, r, lang, AU_MSG_UI_SWITCH_ON, NULL, NULL, NULL);
    return;
  }
  for (size_t i = 0; i < f->nvalues; i++) {
    const sm_value *v = &f->values[i];
    if (i) pd_buf_putc(b, ' ');
    pd_buf_printf(b, "`%s`", v->text ? v->text : "");
    if (!v->resolved) say(b, r, lang, AU_MSG_UI_UNRESOLVED, NULL, NULL, NULL);
  }
}

static void set_in(pd_buf *b, const au_result *r, const char *lang, const sm_flag *occ,
                   const sm_flag *win) {
  const sm_model *m = r->model;
  say(b, r, lang, AU_MSG_UI_SET_IN, NULL, NULL, NULL);
  pd_buf_putc(b, '\n');
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *f = &m->flags[i];
    if (strcmp(f->name, occ->name) != 0) continue;
    pd_buf_puts(b, "- ");
    where(b, r, lang, f);
    pd_buf_puts(b, ": ");
    value_text(b, r, lang, f);
    say(b, r, lang, f == win ? AU_MSG_UI_WINS : AU_MSG_UI_OVERRIDDEN, NULL, NULL, NULL);
    pd_buf_putc(b, '\n');
  }
  pd_buf_putc(b, '\n');
}

static bool involves(const au_finding *f, const sm_flag *occ) {
  if ((f->flag && !strcmp(f->flag, occ->name)) || hov_overlaps(f->file, f->range, occ->file, occ->full))
    return true;
  for (size_t k = 0; k < f->nrelated; k++)
    if (hov_overlaps(f->related[k].file, f->related[k].range, occ->file, occ->full)) return true;
  return false;
}

static void findings(pd_buf *b, const au_result *r, const char *lang, const sm_flag *occ) {
  bool header = false;
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    if (!involves(f, occ)) continue;
    if (!header) {
      say(b, r, lang, AU_MSG_UI_FINDINGS, NULL, NULL, NULL);
      pd_buf_putc(b, '\n');
    }
    header = true;
    say(b, r, lang, AU_MSG_UI_FINDING, severity_tag(f), f->rule, f->title ? f->title : "");
    pd_buf_putc(b, '\n');
    /* the rule's explanation, as `perf-doctor explain` gives it first */
    if (f->why && *f->why) pd_buf_printf(b, "  %s\n", f->why);
    if (f->evidence) {
      say(b, r, lang, AU_MSG_UI_MEASURED, f->evidence_verdict ? f->evidence_verdict : "inconclusive",
          f->evidence, NULL);
      pd_buf_putc(b, '\n');
    }
  }
}

static void flag_hover(pd_buf *b, const au_result *r, const sm_flag *occ, const char *lang) {
  const sm_model *m = r->model;
  const sm_flag *win = &m->flags[occ->final_index < m->nflags ? occ->final_index : 0];
  char *doc = au_flag_markdown(r->rules, m->catalog, occ->name, occ, lang);
  if (doc) pd_buf_printf(b, "%s\n\n", doc); /* it names the flag itself */
  else pd_buf_printf(b, "**%s**\n\n", occ->name);
  free(doc);

  pd_buf value = {0};
  value_text(&value, r, lang, win);
  say(b, r, lang, AU_MSG_UI_RESOLVED, value.data ? value.data : "", NULL, NULL);
  pd_buf_free(&value);
  pd_buf_puts(b, "\n\n");

  size_t count = 0;
  for (size_t i = 0; i < m->nflags; i++)
    if (!strcmp(m->flags[i].name, occ->name)) count++;
  if (count > 1 || occ->overridden) {
    set_in(b, r, lang, occ, win);
  } else if (occ->conditional) {
    say(b, r, lang, AU_MSG_UI_BRANCH_ONLY, NULL, NULL, NULL);
    pd_buf_puts(b, "\n\n");
  }
  if (occ->note) {
    say(b, r, lang, AU_MSG_UI_NOTE, occ->note, NULL, NULL);
    pd_buf_puts(b, "\n\n");
  }

  char *facts = au_hover_facts(r, occ->name, lang);
  if (facts && *facts) pd_buf_printf(b, "%s\n\n", facts);
  free(facts);
  findings(b, r, lang, occ);
}

static void source_hover(pd_buf *b, const au_result *r, const char *lang) {
  say(b, r, lang, AU_MSG_UI_MODEL_CONFIG, r->model->ctx.model, NULL, NULL);
  pd_buf_puts(b, "\n\n");
  char *facts = au_hover_facts(r, "source", lang);
  if (facts && *facts) pd_buf_printf(b, "%s\n", facts);
  free(facts);
}

/* "line 7, qwen3-4B.sh line 2": where the definitions of ref's name are. */
static void places(pd_buf *b, const au_result *r, const sm_ref *ref, const char *lang, int here) {
  const sm_model *m = r->model;
  size_t n = 0;
  sm_refs_ready(m);
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

/* A catalog sentence with typed arguments (au_say). */
static void say_ax(pd_buf *b, const au_result *r, au_msg_id id, const char *lang, const ax_value *a) {
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
    say_ax(b, r, AU_MSG_HOVER_FUNCTION, lang, &name);
  } else if (ref->kind == SM_SYM_ARRAY || (!sm_var_get(m, ref->name) && where.len)) {
    size_t flags = 0;
    for (size_t i = 0; i < m->nflags; i++) flags += m->flags[i].group && !strcmp(m->flags[i].group, ref->name);
    ax_value a[2] = {name, ax_num((double)flags)};
    say_ax(b, r, AU_MSG_HOVER_ARRAY, lang, a);
  } else {
    const sm_var *v = sm_var_get(m, ref->name);
    if (!v || !where.len) {
      say_ax(b, r, AU_MSG_HOVER_VAR_ENV, lang, &name);
    } else if (!v->known) {
      say_ax(b, r, AU_MSG_HOVER_VAR_UNKNOWN, lang, &name);
    } else {
      ax_value a[2] = {name, ax_str(v->value)};
      say_ax(b, r, AU_MSG_HOVER_VAR_VALUE, lang, a);
      if (v->cert == SM_CERT_DEFAULT) say_ax(b, r, AU_MSG_HOVER_VAR_DEFAULT, lang, NULL);
      else if (v->cert == SM_CERT_BRANCH) say_ax(b, r, AU_MSG_HOVER_VAR_BRANCH, lang, NULL);
    }
  }
  if (where.len) {
    pd_buf_puts(b, "\n\n");
    ax_value a = ax_str(where.data);
    say_ax(b, r, AU_MSG_HOVER_SET_AT, lang, &a);
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
    flag_hover(&b, r, f, lang);
    range = f->full;
    break;
  }
  if (b.len == 0) {
    /* A `source` command: the model config's says what the model is; any other names its file. */
    if (model->source_file == file && contains(model->source_range, at)) {
      range = model->source_range;
      source_hover(&b, r, lang);
    }
    for (size_t k = 1; b.len == 0 && k < model->nfiles; k++)
      if (model->files[k].parent == file && contains(model->files[k].source_range, at)) {
        range = model->files[k].source_range;
        char *rel = sm_rel_path(model, (int)k);
        ax_value a[2] = {ax_str(rel), ax_num((double)model->files[k].nlines)};
        say_ax(&b, r, AU_MSG_HOVER_SOURCED, lang, a);
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
