/* edits: where a finding points and the mechanical fixes it offers: text edits that set, add
 * or remove a flag in the script or the model config, placed the way a person would write
 * them (a new array line with the same indent, or after the anchor on a command line). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "audit/edits.h"
#include "base/alloc.h"

const sm_flag *au_first_present(const sm_model *m, char *const *flags, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const sm_flag *f = sm_flag_get(m, flags[i]);
    if (f) return f;
  }
  return NULL;
}

static const char *file_text(const sm_model *m, int file, size_t *len) {
  if (file < 0 || (size_t)file >= m->nfiles) return NULL;
  *len = m->files[file].len;
  return m->files[file].text;
}

static void edit_push(au_finding *f, size_t *cap, const sm_model *m, int file, uint32_t start,
                      uint32_t end, char *text) {
  au_edit *e = PD_PUSH(f->edits, f->nedits, *cap);
  e->file = file;
  e->range = sm_range_at(m, file, start, end);
  e->new_text = text;
}

/* Where to add a flag: after the anchor's line inside an array, or right after it on a
 * command line. */
static void add_flag(au_finding *f, size_t *cap, const sm_model *m, const sm_flag *anchor,
                     const char *flag, const char *value) {
  size_t len;
  const char *t = file_text(m, anchor->file, &len);
  if (!t) return;
  char *word = value ? pd_xasprintf("%s %s", flag, value) : pd_xstrdup(flag);
  uint32_t end = anchor->full.end_byte;
  if (end > len) end = (uint32_t)len;
  uint32_t eol = end;
  while (eol < len && t[eol] != '\n') eol++;
  bool closes = memchr(t + end, ')', eol - end) != NULL;
  bool continued = false;
  for (uint32_t i = end; i < eol; i++)
    if (t[i] == '\\') continued = true;
  if (anchor->group && !closes && !continued) {
    uint32_t bol = anchor->full.start_byte;
    while (bol > 0 && t[bol - 1] != '\n') bol--;
    uint32_t ind = bol;
    while (ind < len && (t[ind] == ' ' || t[ind] == '\t')) ind++;
    char *indent = pd_xstrndup(t + bol, ind - bol);
    edit_push(f, cap, m, anchor->file, eol, eol, pd_xasprintf("\n%s%s", indent, word));
    free(indent);
  } else {
    edit_push(f, cap, m, anchor->file, end, end, pd_xasprintf(" %s", word));
  }
  free(word);
}

static void remove_occurrence(au_finding *f, size_t *cap, const sm_model *m, const sm_flag *fl) {
  size_t len;
  const char *t = file_text(m, fl->file, &len);
  if (!t) return;
  uint32_t s = fl->full.start_byte, e = fl->full.end_byte;
  if (e > len || s > e) return;
  uint32_t bol = s, eol = e;
  while (bol > 0 && (t[bol - 1] == ' ' || t[bol - 1] == '\t')) bol--;
  while (eol < len && (t[eol] == ' ' || t[eol] == '\t')) eol++;
  bool alone = (bol == 0 || t[bol - 1] == '\n') && (eol == len || t[eol] == '\n' || t[eol] == '#');
  if (alone) {
    /* the flag is the line's only word: drop the line, with a trailing comment that can
     * only be about the flag */
    while (eol < len && t[eol] != '\n') eol++;
    edit_push(f, cap, m, fl->file, bol, eol < len ? eol + 1 : eol, pd_xstrdup(""));
  } else {
    while (s > 0 && (t[s - 1] == ' ' || t[s - 1] == '\t') && !(s > 1 && t[s - 2] == '\n')) s--;
    edit_push(f, cap, m, fl->file, s, e, pd_xstrdup(""));
  }
}

static void remove_flag(au_finding *f, size_t *cap, const sm_model *m, const char *flag) {
  for (size_t i = 0; i < m->nflags; i++)
    if (!strcmp(m->flags[i].name, flag)) remove_occurrence(f, cap, m, &m->flags[i]);
}

/* The anchor for an added flag: the first present `near` flag, else the finding's flag, else
 * the last flag of the script itself (not of the model config). */
static const sm_flag *anchor_for(const sm_model *m, const ac_edit *ed, const sm_flag *located) {
  const sm_flag *a = au_first_present(m, ed->near, ed->nnear);
  if (a) return a;
  if (located) return located;
  for (size_t i = m->nflags; i-- > 0;)
    if (m->flags[i].file == 0 && !m->flags[i].conditional) return &m->flags[m->flags[i].final_index];
  return NULL;
}

/* The case's edits that apply to this script, and a Fix line that says what they do. */
void au_build_edits(au_finding *f, const sm_model *m, const ac_case *c, const ax_env *env,
                    const sm_flag *located, const char *lang, const au_messages *ms) {
  size_t cap = 0;
  pd_buf sum = {0};
  for (size_t i = 0; i < c->nedits; i++) {
    const ac_edit *ed = &c->edits[i];
    if (ed->cond && ax_truth(ax_eval(ed->cond, env)) != 1) continue;
    bool unknown = false;
    char *value = NULL;
    if (ed->value) {
      pd_buf vb = {0};
      at_render(&vb, ed->value, env, &unknown);
      value = pd_buf_take(&vb);
    }
    if (unknown) {
      /* a value that cannot be computed is not offered as a mechanical fix */
      free(value);
      continue;
    }
    if (ed->op == AC_REPLACE) { /* the text the finding points at */
      if (value) {
        edit_push(f, &cap, m, f->file, f->range.start_byte, f->range.end_byte, pd_xstrdup(value));
        if (sum.len) au_msg_append(&sum, ms, AU_MSG_FIX_SEP, lang, env, NULL);
        ax_value arg = ax_str(value);
        au_msg_append(&sum, ms, AU_MSG_FIX_REPLACE, lang, env, &arg);
      }
      free(value);
      continue;
    }
    /* `remove` without a flag: the occurrence the finding is about (a condition's flag) */
    bool own = ed->op == AC_REMOVE && !ed->flag[0] && located;
    const sm_flag *cur = own ? located : sm_flag_get(m, ed->flag);
    size_t before = f->nedits;
    if (own) {
      remove_occurrence(f, &cap, m, located);
    } else if (ed->op == AC_REMOVE) {
      if (cur) remove_flag(f, &cap, m, ed->flag);
    } else if (cur && ed->op == AC_SET && value) {
      /* setting a flag to the value it already has is not a fix */
      if (cur->nvalues == 1 && !strcmp(cur->values[0].text, value)) {
        free(value);
        continue;
      }
      if (cur->nvalues) {
        edit_push(f, &cap, m, cur->file, cur->values[0].range.start_byte,
                  cur->values[cur->nvalues - 1].range.end_byte, pd_xstrdup(value));
      } else {
        edit_push(f, &cap, m, cur->file, cur->range.end_byte, cur->range.end_byte,
                  pd_xasprintf(" %s", value));
      }
    } else if (!cur || (ed->op == AC_SET && !value)) {
      const sm_flag *anchor = anchor_for(m, ed, located);
      if (anchor && !cur) add_flag(f, &cap, m, anchor, ed->flag, value);
    }
    if (f->nedits > before) {
      if (sum.len) au_msg_append(&sum, ms, AU_MSG_FIX_SEP, lang, env, NULL);
      char *edit = pd_xasprintf("%s%s%s", own ? located->name : ed->flag, value ? " " : "", value ? value : "");
      ax_value arg = ax_str(edit);
      au_msg_id verb = ed->op == AC_REMOVE ? AU_MSG_FIX_REMOVE : cur ? AU_MSG_FIX_SET : AU_MSG_FIX_ADD;
      au_msg_append(&sum, ms, verb, lang, env, &arg);
      free(edit);
    }
    free(value);
  }
  if (sum.len) {
    char *s = pd_buf_take(&sum);
    s[0] = (char)toupper((unsigned char)s[0]);
    free(f->fix);
    f->fix = s;
  }
  pd_buf_free(&sum);
}
