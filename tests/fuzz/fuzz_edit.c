/* fuzz_edit: arbitrary edit sequences applied to an open document (doc_edit, doc_set_text,
 * incremental doc_parse), checked against independent references after every step:
 *  - the text equals a plain byte splice at the same places (positions are computed here from
 *    the documented rules: lines split at \n, \r\n or \r; characters counted in the chosen
 *    encoding; a byte that does not start a well-formed UTF-8 sequence counts as one unit);
 *  - the line table equals one built afresh;
 *  - at the end (and at random points), the incremental tree equals a fresh parse (node types
 *    and byte ranges), and the audit on the incremental tree equals the audit on a fresh parse.
 *
 * Input: byte 0 = encoding (bits 0-1), the next 2 bytes the initial text's length, the text,
 * then edits: [op][start:2][delete:1][ins_len:1][ins bytes].  op bit 0: parse after this edit;
 * bit 1: replace the whole text (doc_set_text) instead of a range edit. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "lsp/document.h"

static size_t ref_char_len(const unsigned char *s, size_t n) {
  unsigned need = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 1;
  if (need > n) return 1;
  for (unsigned i = 1; i < need; i++)
    if ((s[i] & 0xC0) != 0x80) return 1;
  return need;
}

static uint32_t ref_units(size_t bytes, doc_encoding enc) {
  if (enc == DOC_UTF8) return (uint32_t)bytes;
  if (enc == DOC_UTF16) return bytes == 4 ? 2 : 1;
  return 1;
}

/* Moves o back to the start of the character containing it, and out of a "\r\n" pair. */
static size_t ref_snap(const char *t, size_t len, size_t o) {
  const unsigned char *s = (const unsigned char *)t;
  size_t i = 0, last = 0;
  while (i < len && i < o) {
    last = i;
    i += ref_char_len(s + i, len - i);
  }
  if (i > o) o = last;
  if (o > 0 && o < len && t[o - 1] == '\r' && t[o] == '\n') o--;
  return o;
}

static doc_pos ref_pos(const char *t, size_t len, size_t o, doc_encoding enc) {
  const unsigned char *s = (const unsigned char *)t;
  doc_pos p = {0, 0};
  for (size_t i = 0; i < o;) {
    if (t[i] == '\n' || t[i] == '\r') {
      if (t[i] == '\r' && i + 1 < len && t[i + 1] == '\n') i++;
      i++;
      p.line++;
      p.character = 0;
      continue;
    }
    size_t c = ref_char_len(s + i, len - i);
    p.character += ref_units(c, enc);
    i += c;
  }
  return p;
}

/* Node types and byte ranges in preorder, without recursion (trees of deep nesting). */
static void dump(const TSTree *t, pd_buf *b) {
  TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    pd_buf_printf(b, "%s%s[%u,%u] ", ts_node_is_named(n) ? "" : "'", ts_node_type(n), ts_node_start_byte(n),
                  ts_node_end_byte(n));
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) {
        ts_tree_cursor_delete(&c);
        return;
      }
    }
  }
}

static void check_trees(doc_document *d, TSParser *p) {
  const TSTree *inc = doc_parse(d, p);
  TSParser *fp = sm_parser_new();
  TSTree *fresh = ts_parser_parse_string(fp, NULL, d->text, (uint32_t)d->len);
  ts_parser_delete(fp);
  if (!inc || !fresh) { /* the parser gives up on neither in practice; both or neither */
    if (!inc != !fresh) abort();
    ts_tree_delete(fresh);
    return;
  }
  pd_buf a = {0}, b = {0};
  dump(inc, &a);
  dump(fresh, &b);
  if (strcmp(a.data, b.data) != 0) {
    fprintf(stderr, "incremental tree differs from a fresh parse\n inc:   %.400s\n fresh: %.400s\n", a.data, b.data);
    abort();
  }
  pd_buf_free(&a);
  pd_buf_free(&b);
  ts_tree_delete(fresh);
}

static char *no_read(void *ctx, const char *path, size_t *len) {
  (void)ctx, (void)path, (void)len;
  return NULL;
}

static char *audit_json(doc_document *d, const TSTree *t) {
  static au_rules *rules; /* read-only once loaded, as in the server */
  if (!rules) {
    char **errs = NULL;
    size_t nerrs = 0;
    rules = au_rules_load(NULL, &errs, &nerrs);
    free(errs);
  }
  sm_reader rd = {no_read, NULL};
  au_config cfg = {0};
  cfg.rules = rules;
  cfg.reader = &rd;
  cfg.workspace_root = "/fuzz-ws";
  au_result *r = au_run("/fuzz-ws/run-qwen3-4B-8xgpu.sh", d->text, d->len, t, &cfg);
  json_t *j = au_report_json(r);
  json_t *m = sm_to_json(r->model);
  json_object_set_new(j, "model", m);
  char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(j);
  au_result_free(r);
  return s;
}

static void check_lines(const doc_document *d) {
  doc_lines l = {0};
  doc_lines_build(&l, d->text, d->len);
  if (l.n != d->lines.n || memcmp(l.starts, d->lines.starts, l.n * sizeof *l.starts) != 0) {
    fprintf(stderr, "line table differs from one built afresh (%zu vs %zu lines)\n", d->lines.n, l.n);
    abort();
  }
  doc_lines_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3 || size > (1u << 16)) return -1;
  doc_encoding enc = (doc_encoding)(data[0] % 3);
  size_t n0 = ((size_t)data[1] << 8 | data[2]) % (size - 2);
  const char *in = (const char *)data + 3;
  size_t pos = 3 + n0;
  doc_document *d = doc_new("file:///fuzz-ws/run-qwen3-4B-8xgpu.sh", "shellscript", 1, in, n0);
  pd_buf ref = {0};
  pd_buf_append(&ref, in, n0);
  if (!ref.data) pd_buf_puts(&ref, "");
  TSParser *p = sm_parser_new();
  doc_parse(d, p);
  while (pos + 5 <= size) {
    uint8_t op = data[pos];
    size_t start = ((size_t)data[pos + 1] << 8 | data[pos + 2]) % (ref.len + 1);
    size_t del = data[pos + 3];
    size_t k = data[pos + 4];
    pos += 5;
    if (k > size - pos) k = size - pos;
    const char *ins = (const char *)data + pos;
    pos += k;
    if (op & 2) {
      doc_set_text(d, ins, k);
      ref.len = 0;
      pd_buf_append(&ref, ins, k);
    } else {
      start = ref_snap(ref.data, ref.len, start);
      size_t end = ref_snap(ref.data, ref.len, start + del > ref.len ? ref.len : start + del);
      doc_pos ps = ref_pos(ref.data, ref.len, start, enc), pe = ref_pos(ref.data, ref.len, end, enc);
      if (!doc_edit(d, enc, ps, pe, ins, k)) {
        fprintf(stderr, "doc_edit refused an ordered range\n");
        abort();
      }
      pd_buf nb = {0};
      pd_buf_append(&nb, ref.data, start);
      pd_buf_append(&nb, ins, k);
      pd_buf_append(&nb, ref.data + end, ref.len - end);
      if (!nb.data) pd_buf_puts(&nb, "");
      pd_buf_free(&ref);
      ref = nb;
    }
    if (d->len != ref.len || memcmp(d->text, ref.data, ref.len) != 0 || d->text[d->len] != '\0') {
      fprintf(stderr, "document text diverged from the reference splice (encoding %d)\n", (int)enc);
      abort();
    }
    check_lines(d);
    if (op & 1) doc_parse(d, p);
  }
  check_trees(d, p);
  char *a = audit_json(d, doc_parse(d, p));
  char *b = audit_json(d, NULL);
  if (strcmp(a, b) != 0) {
    fprintf(stderr, "audit on the incremental tree differs from a fresh one\n inc:   %.600s\n fresh: %.600s\n", a, b);
    abort();
  }
  free(a);
  free(b);
  pd_buf_free(&ref);
  ts_parser_delete(p);
  doc_free(d);
  return 0;
}
