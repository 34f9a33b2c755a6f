#include "audit/suppress.h"

#include <ctype.h>
#include <string.h>

/* Whether `rules` (the text after `=`, up to the end of the line) names rule id. */
static bool names_rule(const char *rules, const char *end, const char *id) {
  size_t n = strlen(id);
  for (const char *p = rules; p < end;) {
    while (p < end && (*p == ',' || *p == ' ' || *p == '\t')) p++;
    const char *q = p;
    while (q < end && *q != ',' && !isspace((unsigned char)*q)) q++;
    if ((size_t)(q - p) == n && !strncmp(p, id, n)) return true;
    if ((size_t)(q - p) == 3 && !strncmp(p, "all", 3)) return true;
    if (q == p) break;
    p = q;
  }
  return false;
}

/* Whether a `# perf-doctor: <key>=...` directive naming id is on line `line` of the text (any
 * line when line < 0). */
static bool directive(const char *text, size_t len, const char *key, long line, const char *id) {
  const char *end = text + len;
  long at = 0;
  size_t klen = strlen(key);
  for (const char *p = text; p < end; at++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    if (line < 0 || at == line) {
      for (const char *h = memchr(p, '#', (size_t)(eol - p)); h; h = memchr(h + 1, '#', (size_t)(eol - h - 1))) {
        const char *q = h + 1;
        while (q < eol && *q == ' ') q++;
        if ((size_t)(eol - q) < 12 || strncmp(q, "perf-doctor:", 12)) continue;
        q += 12;
        while (q < eol && *q == ' ') q++;
        if ((size_t)(eol - q) > klen && !strncmp(q, key, klen) && q[klen] == '=' &&
            names_rule(q + klen + 1, eol, id))
          return true;
      }
      if (line >= 0) return false;
    }
    p = eol + 1;
  }
  return false;
}

static bool suppressed(const sm_model *m, const au_finding *f) {
  if (f->file < 0 || (size_t)f->file >= m->nfiles) return false;
  const sm_file *src = &m->files[f->file];
  long line = (long)f->range.start_line;
  if (directive(src->text, src->len, "disable", line, f->rule)) return true;
  if (line > 0 && directive(src->text, src->len, "disable", line - 1, f->rule)) return true;
  return directive(src->text, src->len, "disable-file", -1, f->rule) ||
         (f->file != 0 && directive(m->files[0].text, m->files[0].len, "disable-file", -1, f->rule));
}

void as_apply(au_result *r) {
  for (size_t i = 0; i < r->nfindings; i++)
    r->findings[i].suppressed = suppressed(r->model, &r->findings[i]);
}
