#include "lsp/filemap.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"

json_t *fm_string(const char *s) {
  if (!s) s = "";
  json_t *j = json_string(s);
  if (j) return j;
  pd_buf b = {0};
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    size_t n = strlen((const char *)p);
    /* Take the longest valid character at p, else replace one byte. */
    size_t len = 1;
    if (p[0] >= 0x80) {
      size_t need = (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
      bool ok = need && need <= n;
      for (size_t i = 1; ok && i < need; i++) ok = (p[i] & 0xC0) == 0x80;
      if (ok) {
        char tmp[5] = {0};
        memcpy(tmp, p, need);
        json_t *t = json_string(tmp); /* also rejects overlongs and surrogates */
        ok = t != NULL;
        json_decref(t);
      }
      if (!ok) {
        pd_buf_puts(&b, "\xEF\xBF\xBD");
        p++;
        continue;
      }
      len = need;
    }
    pd_buf_append(&b, (const char *)p, len);
    p += len;
  }
  j = json_string(b.data ? b.data : "");
  pd_buf_free(&b);
  return j ? j : json_string("");
}

void fm_init(fm_map *m, const sm_model *model, const char *script_uri, doc_encoding enc,
             fm_uri_fn uri_of, void *ctx) {
  m->enc = enc;
  m->nfiles = model->nfiles;
  m->files = pd_xcalloc(model->nfiles ? model->nfiles : 1, sizeof *m->files);
  for (size_t i = 0; i < model->nfiles; i++) {
    const sm_file *sf = &model->files[i];
    fm_file *f = &m->files[i];
    f->path = sf->path ? pd_path_normalize(sf->path) : NULL;
    if (i == 0) f->uri = pd_xstrdup(script_uri);
    else if (f->path) f->uri = uri_of(ctx, f->path);
    else f->uri = pd_xstrdup(script_uri);
    f->text = sf->text ? sf->text : "";
    f->len = sf->text ? sf->len : 0;
    doc_lines_build(&f->lines, f->text, f->len);
  }
}

void fm_free(fm_map *m) {
  for (size_t i = 0; i < m->nfiles; i++) {
    free(m->files[i].uri);
    free(m->files[i].path);
    doc_lines_free(&m->files[i].lines);
  }
  free(m->files);
  memset(m, 0, sizeof *m);
}

int fm_find(const fm_map *m, const char *path) {
  for (size_t i = 0; i < m->nfiles; i++)
    if (m->files[i].path && !strcmp(m->files[i].path, path)) return (int)i;
  return -1;
}

static json_t *position(const fm_file *f, doc_encoding enc, size_t offset) {
  doc_pos p = doc_lines_position(&f->lines, f->text, f->len, enc, offset);
  return json_pack("{s:I,s:I}", "line", (json_int_t)p.line, "character", (json_int_t)p.character);
}

json_t *fm_range(const fm_map *m, int file, sm_range r) {
  if (file < 0 || (size_t)file >= m->nfiles) file = 0;
  if (m->nfiles == 0)
    return json_pack("{s:{s:i,s:i},s:{s:i,s:i}}", "start", "line", 0, "character", 0, "end",
                     "line", 0, "character", 0);
  const fm_file *f = &m->files[file];
  uint32_t a = r.start_byte, b = r.end_byte < r.start_byte ? r.start_byte : r.end_byte;
  return json_pack("{s:o,s:o}", "start", position(f, m->enc, a), "end", position(f, m->enc, b));
}

json_t *fm_location(const fm_map *m, int file, sm_range r) {
  if (file < 0 || (size_t)file >= m->nfiles) return NULL;
  return json_pack("{s:s,s:o}", "uri", m->files[file].uri, "range", fm_range(m, file, r));
}

const char *fm_uri(const fm_map *m, int file) {
  if (file < 0 || (size_t)file >= m->nfiles) file = 0;
  return m->nfiles ? m->files[file].uri : "";
}

size_t fm_offset(const fm_map *m, int file, doc_pos p) {
  if (file < 0 || (size_t)file >= m->nfiles) return 0;
  const fm_file *f = &m->files[file];
  return doc_lines_offset(&f->lines, f->text, f->len, m->enc, p);
}
