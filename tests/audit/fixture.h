/* fixture: shared helpers of the audit tests. A case takes a fixture script from
 * tests/fixtures/audit/scripts/training/ and applies text operations before auditing it:
 *   add <words...>    insert a line at the top of the script's EXTRA_ARGS array (so of two adds, the first comes last and wins in argparse)
 *   del <--flag>      delete every line whose first word is the flag
 *   sub <old> => <new> replace the first occurrence of a text (\\n = newline, in either)
 * The audit runs on the edited text under the fixture's own path, so the model config is found
 * the same way as for the real file. */
#ifndef PD_TEST_AUDIT_FIXTURE_H
#define PD_TEST_AUDIT_FIXTURE_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/facts.h"
#include "base/alloc.h"
#include "base/path.h"

#define FX_DIR PD_TESTS_DIR "/fixtures/audit/scripts/training/"

static inline char *fx_path(const char *rel) { return pd_xasprintf("%s%s", FX_DIR, rel); }

/* "\n" stands for a newline (in both texts of a sub: to insert lines, to match across them). */
static inline char *fx_unescape(const char *s) {
  pd_buf b = {0};
  for (const char *q = s; *q; q++) {
    if (q[0] == '\\' && q[1] == 'n') {
      pd_buf_putc(&b, '\n');
      q++;
    } else {
      pd_buf_putc(&b, *q);
    }
  }
  return b.data ? pd_buf_take(&b) : pd_xstrdup("");
}

/* Applies one operation; returns the new text (the old one is freed) or NULL on a bad op. */
static inline char *fx_apply(char *text, const char *op) {
  while (*op == ' ') op++;
  if (!strncmp(op, "add ", 4)) {
    const char *at = strstr(text, "EXTRA_ARGS=(\n");
    if (!at) return free(text), NULL;
    size_t off = (size_t)(at - text) + strlen("EXTRA_ARGS=(\n");
    char *out = pd_xasprintf("%.*s   %s\n%s", (int)off, text, op + 4, text + off);
    free(text);
    return out;
  }
  if (!strncmp(op, "del ", 4)) {
    const char *flag = op + 4;
    size_t fl = strlen(flag);
    pd_buf b = {0};
    const char *p = text;
    bool hit = false;
    while (*p) {
      const char *eol = strchr(p, '\n');
      size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);
      const char *w = p;
      while (w < p + n && (*w == ' ' || *w == '\t')) w++;
      bool match = !strncmp(w, flag, fl) && (w[fl] == ' ' || w[fl] == '\n' || w[fl] == '\\' || w[fl] == '\0');
      if (match) hit = true;
      else pd_buf_append(&b, p, n);
      p += n;
    }
    free(text);
    if (!hit) {
      pd_buf_free(&b);
      return NULL;
    }
    return pd_buf_take(&b);
  }
  if (!strncmp(op, "sub ", 4)) {
    const char *sep = strstr(op, " =>");
    if (!sep || (sep[3] != ' ' && sep[3] != '\0')) return free(text), NULL;
    char *raw = pd_xstrndup(op + 4, (size_t)(sep - op - 4));
    char *old = fx_unescape(raw);
    char *neu = fx_unescape(sep[3] ? sep + 4 : sep + 3);
    free(raw);
    char *at = strstr(text, old);
    char *out = NULL;
    if (at) out = pd_xasprintf("%.*s%s%s", (int)(at - text), text, neu, at + strlen(old));
    free(old);
    free(neu);
    free(text);
    return out;
  }
  free(text);
  return NULL;
}

/* Audits fixture rel after applying ops ("op | op | ..."); NULL when the fixture or an op
 * fails. *text_out (optional) receives the edited text. */
static inline au_result *fx_run_as(const char *rel, const char *as, const char *ops,
                                   const au_config *cfg, char **text_out);
static inline au_result *fx_run(const char *rel, const char *ops, const au_config *cfg, char **text_out) {
  return fx_run_as(rel, NULL, ops, cfg, text_out);
}

/* fx_run, auditing the edited text as if it were the file `as` in the fixture's directory (to
 * test what a file name states); as NULL = the fixture's own name. */
static inline au_result *fx_run_as(const char *rel, const char *as, const char *ops,
                                   const au_config *cfg, char **text_out) {
  char *path = fx_path(rel);
  size_t len = 0;
  char *text = pd_read_file(path, 1 << 24, &len);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", path);
    free(path);
    return NULL;
  }
  char *list = pd_xstrdup(ops ? ops : "");
  for (char *save = NULL, *op = strtok_r(list, "|", &save); op && text; op = strtok_r(NULL, "|", &save)) {
    char *end = op + strlen(op);
    while (end > op && isspace((unsigned char)end[-1])) *--end = '\0';
    while (isspace((unsigned char)*op)) op++;
    if (!*op) continue;
    char *next = fx_apply(text, op);
    if (!next) fprintf(stderr, "%s: operation failed: %s\n", rel, op);
    text = next;
  }
  free(list);
  au_result *r = NULL;
  if (as) {
    char *dir = pd_path_dirname(path);
    free(path);
    path = pd_xasprintf("%s/%s", dir, as);
    free(dir);
  }
  if (text) r = au_run(path, text, strlen(text), NULL, cfg);
  if (r && af_order_errors(r->facts)) /* a fact computed outside its declared step (facts.h) */
    fprintf(stderr, "%s: %zu facts out of their declared step\n", path, af_order_errors(r->facts)), abort();
  if (text_out) *text_out = text;
  else free(text);
  free(path);
  return r;
}

static inline const au_finding *fx_find(const au_result *r, const char *rule) {
  for (size_t i = 0; r && i < r->nfindings; i++)
    if (!strcmp(r->findings[i].rule, rule)) return &r->findings[i];
  return NULL;
}

/* Applies a finding's edits (all in one file) to text; caller frees. Edits are applied from
 * the end so earlier byte offsets stay valid. */
static inline char *fx_apply_edits(const char *text, const au_finding *f, int file) {
  char *out = pd_xstrdup(text);
  for (size_t k = f->nedits; k-- > 0;) {
    /* the edits are produced in order; apply the one with the largest start first */
    size_t best = f->nedits;
    for (size_t i = 0; i < f->nedits; i++) {
      if (f->edits[i].file != file || f->edits[i].new_text == NULL) continue;
      if (best == f->nedits || f->edits[i].range.start_byte > f->edits[best].range.start_byte) best = i;
    }
    (void)k;
    if (best == f->nedits) break;
    au_edit *e = &f->edits[best];
    char *next = pd_xasprintf("%.*s%s%s", (int)e->range.start_byte, out, e->new_text, out + e->range.end_byte);
    free(out);
    out = next;
    /* mark as applied (tests own the result; this is a copy of the pointer, freed by au_result_free) */
    e->file = -1;
  }
  return out;
}

#endif
