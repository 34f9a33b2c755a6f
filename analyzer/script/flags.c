/* flags: the train command's argv as argparse would see it (every occurrence in order, the
 * last one winning, JSON values parsed), and the lookups the audit makes on it. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"
#include "script/sm_int.h"

static void value_from_field(sm_value *v, const sh_field *f) {
  v->text = pd_xstrdup(f->text);
  v->resolved = f->resolved;
  v->cert = f->resolved ? f->cert : f->cert < SM_CERT_BRANCH ? f->cert : SM_CERT_UNRESOLVED;
  v->cert_var = f->cert_var ? pd_xstrdup(f->cert_var) : NULL;
  v->unset_var = f->unset_var ? pd_xstrdup(f->unset_var) : NULL;
  v->file = f->file;
  v->range = f->range;
}

/* A flag is as certain as its least certain value, and at most BRANCH when it is set only in a
 * branch that may not run. */
static void flag_certainty(sm_flag *fl) {
  fl->cert = fl->conditional ? SM_CERT_BRANCH : SM_CERT_LITERAL;
  fl->cert_var = NULL;
  for (size_t i = 0; i < fl->nvalues; i++)
    if (fl->values[i].cert < fl->cert) {
      fl->cert = fl->values[i].cert;
      fl->cert_var = fl->values[i].cert_var;
    }
}

/* The variable a word like ${NAME}, $NAME or "${NAME[@]}" names, or NULL. Caller frees. */
static char *word_variable(const char *w) {
  const char *p = strchr(w, '$');
  if (!p) return NULL;
  p++;
  if (*p == '{') p++;
  size_t n = 0;
  while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
  return n ? pd_xstrndup(p, n) : NULL;
}

static sm_range range_join(sm_range a, sm_range z) {
  sm_range r = a;
  if (z.end_byte > a.end_byte) {
    r.end_byte = z.end_byte;
    r.end_line = z.end_line;
    r.end_col = z.end_col;
  }
  return r;
}

typedef struct {
  const char *name;
  bool found;
  int file;
  sm_range range;
} var_place;

/* sh_var_foreach's visitor: where the scalar p->name was last assigned, if it is set. */
static void find_place(void *ctx, const char *name, const char *value, sm_cert cert, bool exported,
                       int file, sm_range range) {
  (void)value, (void)cert, (void)exported;
  var_place *p = ctx;
  if (!strcmp(name, p->name)) p->found = true, p->file = file, p->range = range;
}

void sm_flags_set_later(sm_builder *b, sm_model *m) {
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    for (size_t k = 0; k < fl->nvalues; k++) {
      const sm_value *v = &fl->values[k];
      if (!v->unset_var) continue;
      /* read through foreach, not sh_var_get: the walk is over and must not record a read */
      var_place p = {v->unset_var, false, -1, {0}};
      sh_var_foreach(b->w.env, find_place, &p);
      if (!p.found || p.file < 0 || (size_t)p.file >= b->w.nfiles) continue; /* never set, or by ${X:=d} */
      sm_add_cond(b, SM_WARN, "set-later", v->file, v->range,
                  pd_xasprintf("`$%s` is set only later (%s line %u): where %s's value expanded it, it "
                               "was still unset and gave nothing, so %s is `%s`",
                               v->unset_var, pd_path_base(b->w.files[p.file].path),
                               (unsigned)p.range.start_line + 1, fl->name, fl->name, v->text));
      sm_cond_about(b, v->unset_var, fl->name);
      sm_condition *c = &b->w.conds[b->w.nconds - 1];
      c->cert = fl->cert;
      c->flag_index = (long)i;
      break;
    }
  }
}

void sm_build_flags(sm_builder *b, sm_model *m, const sh_fields *argv) {
  size_t vcap = 0, flags_cap = 0;
  sm_flag *cur = NULL;
  for (size_t i = 0; i < argv->n; i++) {
    const sh_field *f = &argv->v[i];
    if (f->vanished && f->undefined_array) {
      sm_add_cond(b, SM_INFO, "spread-undefined", f->file, f->range,
               pd_xasprintf("%s: the array is never defined, so it expands to nothing", f->text));
      char *name = word_variable(f->text);
      sm_cond_about(b, name, NULL);
      free(name);
      continue;
    }
    if (f->vanished) {
      bool at_end = i + 1 >= argv->n;
      if (cur && cur->nvalues == 0 && (at_end || sm_looks_like_flag(argv->v[i + 1].text)))
        sm_add_cond(b, SM_WARN, "value-vanished", f->file, f->range,
                 pd_xasprintf("%s expands to nothing here, so %s gets no value (argparse %s)",
                              f->text, cur->name,
                              at_end ? "fails: expected one argument"
                                     : "fails or swallows the next flag"));
      if (cur && cur->nvalues == 0 && (at_end || sm_looks_like_flag(argv->v[i + 1].text))) {
        char *name = word_variable(f->text);
        sm_cond_about(b, name, cur->name);
        free(name);
        cur->value_vanished = true;
        b->w.conds[b->w.nconds - 1].flag_index = (long)(cur - m->flags);
      }
      continue;
    }
    if (f->resolved && sm_looks_like_flag(f->text)) {
      cur = PD_PUSH(m->flags, m->nflags, flags_cap);
      memset(cur, 0, sizeof *cur);
      vcap = 0;
      const char *eq = strchr(f->text, '=');
      cur->name = eq ? pd_xstrndup(f->text, (size_t)(eq - f->text)) : pd_xstrdup(f->text);
      cur->file = f->file;
      cur->range = f->range;
      cur->full = f->range;
      cur->group = f->group ? pd_xstrdup(f->group) : NULL;
      cur->conditional = f->conditional;
      cur->final_index = m->nflags - 1;
      if (f->note) {
        cur->note = pd_xstrdup(f->note);
        cur->note_file = f->note_file;
        cur->note_range = f->note_range;
      }
      cur->cert = f->cert; /* the flag word itself, for a switch */
      if (eq) {
        cur->inline_value = true;
        sm_value *v = PD_PUSH(cur->values, cur->nvalues, vcap);
        value_from_field(v, f);
        free(v->text);
        v->text = pd_xstrdup(eq + 1);
      }
      continue;
    }
    if (!cur) {
      sm_add_cond(b, SM_INFO, "stray-argument", f->file, f->range,
               pd_xasprintf("`%s` comes before any flag; argparse treats it as positional",
                            f->text));
      sm_cond_about(b, f->text, NULL);
      continue;
    }
    sm_value *v = PD_PUSH(cur->values, cur->nvalues, vcap);
    value_from_field(v, f);
    if (v->file == cur->file) cur->full = range_join(cur->full, v->range);
  }

  /* argparse: the last occurrence wins. Walking backwards with a table of names already seen
   * keeps this linear for scripts with tens of thousands of flags; the table stays for
   * sm_flag_get. */
  for (size_t i = m->nflags; i-- > 0;) {
    bool added;
    pd_map_slot *slot = pd_map_put(&m->flag_index, m->flags[i].name, &added);
    if (added) {
      slot->value = i;
    } else {
      m->flags[i].overridden = true;
      m->flags[i].final_index = slot->value;
    }
  }
  for (size_t i = 0; i < m->nflags; i++) {
    sm_cert word = m->flags[i].cert;
    flag_certainty(&m->flags[i]);
    if (word < m->flags[i].cert) m->flags[i].cert = word;
  }
  /* JSON values */
  for (size_t i = 0; i < m->nflags; i++) {
    sm_flag *fl = &m->flags[i];
    if (fl->nvalues != 1 || !fl->values[0].resolved) continue;
    const char *s = fl->values[0].text;
    while (isspace((unsigned char)*s)) s++;
    if (*s != '{' && *s != '[') continue;
    json_error_t err;
    fl->json = json_loads(s, JSON_DECODE_ANY, &err);
    if (!fl->json && *s == '{')
      sm_add_cond(b, SM_ERROR, "json-invalid", fl->values[0].file, fl->values[0].range,
               pd_xasprintf("%s: invalid JSON (%s at column %d)", fl->name, err.text,
                            err.column));
    if (!fl->json && *s == '{') sm_cond_about(b, NULL, fl->name);
  }
}

/* The audit asks for ~1,000 names per model: the index build_flags left makes each O(1). */
static const sm_flag *last_of(const sm_model *m, const char *name) {
  size_t i;
  return pd_map_get(&m->flag_index, name, &i) ? &m->flags[i] : NULL;
}

const sm_flag *sm_flag_get(const sm_model *m, const char *name) { return last_of(m, name); }

const char *sm_flag_str(const sm_model *m, const char *name) {
  const sm_flag *f = last_of(m, name);
  if (!f) return NULL;
  return f->nvalues ? f->values[0].text : "";
}

bool sm_flag_long(const sm_model *m, const char *name, long *out) {
  const sm_flag *f = last_of(m, name);
  if (!f || f->nvalues < 1 || !f->values[0].resolved) return false;
  double d;
  if (pd_parse_long(f->values[0].text, out)) return true;
  if (pd_parse_double(f->values[0].text, &d) && d == (double)(long)d) { /* "1e3" */
    *out = (long)d;
    return true;
  }
  return false;
}

bool sm_flag_double(const sm_model *m, const char *name, double *out) {
  const sm_flag *f = last_of(m, name);
  if (!f || f->nvalues < 1 || !f->values[0].resolved) return false;
  return pd_parse_double(f->values[0].text, out);
}

/* A switch given a word: argparse's view when the catalog knows the option. */
static bool on_by_catalog(const sm_flag *f, bool *on) {
  if (!f->opt) return false;
  int min, max;
  fc_arity(f->opt, &min, &max);
  if (max == 0) return false; /* a switch: present, unless a later --no- form negates it */
  if (f->opt->type != FC_T_BOOL) return false;
  /* type=bool: Python's bool() of the word, True for every non-empty one */
  *on = f->nvalues && f->values[0].resolved && f->values[0].text[0];
  return true;
}

bool sm_flag_on(const sm_model *m, const char *name) {
  const sm_flag *f = last_of(m, name);
  if (!f) return false;
  bool by_type;
  if (on_by_catalog(f, &by_type)) return by_type;
  char *no = pd_str_starts(name, "--") ? pd_xasprintf("--no-%s", name + 2) : NULL;
  const sm_flag *nf = no ? last_of(m, no) : NULL;
  free(no);
  long pos = (long)(f - m->flags), neg = nf ? (long)(nf - m->flags) : -1;
  /* Without a catalog entry, `--flag false` reads as off (what its author meant); argparse's
   * own reading needs the option's action, which only the catalog knows. */
  if (!f->opt && f->nvalues == 1 && f->values[0].resolved &&
      (!strcmp(f->values[0].text, "false") || !strcmp(f->values[0].text, "False") ||
       !strcmp(f->values[0].text, "0")))
    return false;
  return pos > neg;
}

/* Line and byte column of a byte offset (clamped to the file), by binary search in the file's
 * line starts: edits and findings ask for many positions in long files. */
static void pos_at(const sm_file *f, uint32_t byte, uint32_t *line, uint32_t *col) {
  if (byte > f->len) byte = (uint32_t)f->len;
  size_t lo = 0, hi = f->nlines;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->lines[mid] <= byte) lo = mid;
    else hi = mid;
  }
  *line = (uint32_t)lo;
  *col = byte - (f->nlines ? f->lines[lo] : 0);
}

sm_range sm_file_range(const sm_file *f, uint32_t start_byte, uint32_t end_byte) {
  sm_range r = {start_byte, end_byte, 0, 0, 0, 0};
  pos_at(f, end_byte, &r.end_line, &r.end_col);
  if (start_byte >= end_byte || start_byte >= f->len) {
    r.start_line = r.end_line;
    r.start_col = r.end_col;
  } else {
    pos_at(f, start_byte, &r.start_line, &r.start_col);
  }
  return r;
}

sm_range sm_range_at(const sm_model *m, int file, uint32_t start_byte, uint32_t end_byte) {
  if (file < 0 || (size_t)file >= m->nfiles) return (sm_range){start_byte, end_byte, 0, 0, 0, 0};
  return sm_file_range(&m->files[file], start_byte, end_byte);
}

const sm_flag *sm_flag_broken(const sm_model *m, const char *name) {
  size_t i;
  return m->broken.n && pd_map_get(&m->broken, name, &i) ? &m->flags[i] : NULL;
}
