#include "lsp/inlay.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define MAX_VALUE 48 /* characters of a value shown in a hint */

static json_t *hint(const fm_map *m, int file, sm_range after, const char *label) {
  json_t *range = fm_range(m, file, after);
  json_t *h = json_pack("{s:O,s:o,s:b}", "position", json_object_get(range, "end"), "label", fm_string(label),
                        "paddingLeft", 1);
  json_decref(range);
  return h;
}

/* The value word was written with an expansion and argparse gets something else. */
static bool expanded(const fm_map *m, const sm_value *v) {
  if (!v->resolved || !v->text || v->file < 0 || (size_t)v->file >= m->nfiles) return false;
  const fm_file *f = &m->files[v->file];
  if (v->range.end_byte > f->len || v->range.end_byte <= v->range.start_byte) return false;
  const char *w = f->text + v->range.start_byte;
  size_t n = v->range.end_byte - v->range.start_byte;
  return memchr(w, '$', n) != NULL;
}

static void value_hint(json_t *out, const au_result *r, const fm_map *m, const sm_value *v, const char *lang) {
  pd_buf t = {0};
  size_t n = strlen(v->text);
  pd_buf_append(&t, v->text, n > MAX_VALUE ? MAX_VALUE : n);
  if (n > MAX_VALUE) pd_buf_puts(&t, "…");
  ax_value a = ax_str(t.data ? t.data : "");
  char *label = au_say(r, AU_MSG_INLAY_VALUE, lang, &a);
  json_array_append_new(out, hint(m, v->file, v->range, label));
  free(label);
  pd_buf_free(&t);
}

json_t *inl_hints(const au_result *r, const fm_map *m, int file, size_t a, size_t b, const char *lang) {
  json_t *out = json_array();
  const sm_model *md = r ? r->model : NULL;
  if (!md || !r->facts) return out;
  for (size_t i = 0; i < md->nflags; i++) {
    const sm_flag *f = &md->flags[i];
    if (f->file != file || f->full.end_byte < a || f->full.start_byte > b) continue;
    for (size_t k = 0; k < f->nvalues; k++)
      if (f->values[k].file == file && expanded(m, &f->values[k])) value_hint(out, r, m, &f->values[k], lang);
    char *label = f->overridden ? NULL : au_layout_hint(r, f->name, lang);
    if (label) json_array_append_new(out, hint(m, file, f->full, label));
    free(label);
  }
  return out;
}
