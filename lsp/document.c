#include "lsp/document.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* Length in bytes of the character at s[0] (n > 0 bytes available); 1 for invalid UTF-8. */
static size_t char_len(const unsigned char *s, size_t n) {
  size_t need;
  if (s[0] < 0x80) return 1;
  if ((s[0] & 0xE0) == 0xC0) need = 2;
  else if ((s[0] & 0xF0) == 0xE0) need = 3;
  else if ((s[0] & 0xF8) == 0xF0) need = 4;
  else return 1;
  if (need > n) return 1;
  for (size_t i = 1; i < need; i++)
    if ((s[i] & 0xC0) != 0x80) return 1;
  return need;
}

static uint32_t char_units(size_t bytes, doc_encoding enc) {
  if (enc == DOC_UTF8) return (uint32_t)bytes;
  if (enc == DOC_UTF16) return bytes == 4 ? 2 : 1;
  return 1;
}

uint32_t doc_units(const char *text, size_t n, doc_encoding enc) {
  if (enc == DOC_UTF8) return (uint32_t)n;
  const unsigned char *s = (const unsigned char *)text;
  uint32_t u = 0;
  for (size_t i = 0; i < n;) {
    size_t c = char_len(s + i, n - i);
    u += char_units(c, enc);
    i += c;
  }
  return u;
}

void doc_lines_build(doc_lines *l, const char *text, size_t len) {
  l->n = 0;
  *PD_PUSH(l->starts, l->n, l->cap) = 0;
  if (!len) return;
  if (!memchr(text, '\r', len)) { /* the usual case: memchr is ~10x a byte loop */
    for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p++)
      *PD_PUSH(l->starts, l->n, l->cap) = (size_t)(p - text) + 1;
    return;
  }
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n' || text[i] == '\r') {
      if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') i++;
      *PD_PUSH(l->starts, l->n, l->cap) = i + 1;
    }
  }
}

void doc_lines_free(doc_lines *l) {
  free(l->starts);
  memset(l, 0, sizeof *l);
}

/* End of line `line` before its terminator. */
static size_t line_end(const doc_lines *l, const char *text, size_t len, size_t line) {
  size_t e = line + 1 < l->n ? l->starts[line + 1] : len;
  if (line + 1 < l->n) {
    if (e > 0 && text[e - 1] == '\n') e--;
    if (e > l->starts[line] && text[e - 1] == '\r') e--;
  }
  return e;
}

size_t doc_lines_offset(const doc_lines *l, const char *text, size_t len, doc_encoding enc,
                        doc_pos p) {
  if (p.line >= l->n) return len;
  size_t b = l->starts[p.line], e = line_end(l, text, len, p.line);
  const unsigned char *s = (const unsigned char *)text;
  uint32_t u = 0;
  while (b < e) {
    size_t c = char_len(s + b, e - b);
    uint32_t cu = char_units(c, enc);
    if (u + cu > p.character) break; /* the target is inside (or at) this character */
    u += cu;
    b += c;
  }
  return b;
}

doc_pos doc_lines_position(const doc_lines *l, const char *text, size_t len, doc_encoding enc,
                           size_t offset) {
  if (offset > len) offset = len;
  /* Binary search for the last line starting at or before offset. */
  size_t lo = 0, hi = l->n;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->starts[mid] <= offset) lo = mid;
    else hi = mid;
  }
  size_t b = l->starts[lo], e = line_end(l, text, len, lo);
  if (offset > e) offset = e; /* inside the line terminator */
  const unsigned char *s = (const unsigned char *)text;
  uint32_t u = 0;
  while (b < offset) {
    size_t c = char_len(s + b, e - b);
    if (b + c > offset) break; /* inside a character: report its start */
    u += char_units(c, enc);
    b += c;
  }
  return (doc_pos){(uint32_t)lo, u};
}

doc_document *doc_new(const char *uri, const char *language_id, long long version,
                      const char *text, size_t len) {
  doc_document *d = pd_xcalloc(1, sizeof *d);
  d->uri = pd_xstrdup(uri);
  d->path = doc_uri_to_path(uri);
  d->language_id = pd_xstrdup(language_id ? language_id : "");
  d->version = version;
  doc_set_text(d, text, len);
  return d;
}

void doc_free(doc_document *d) {
  if (!d) return;
  free(d->uri);
  free(d->path);
  free(d->language_id);
  free(d->text);
  doc_lines_free(&d->lines);
  ts_tree_delete(d->tree);
  free(d);
}

static void reserve(doc_document *d, size_t len) {
  if (len + 1 > d->cap) {
    size_t c = d->cap ? d->cap : 256;
    while (c < len + 1) c *= 2;
    d->text = pd_xrealloc(d->text, c);
    d->cap = c;
  }
}

void doc_set_text(doc_document *d, const char *text, size_t len) {
  reserve(d, len);
  if (len) memcpy(d->text, text, len);
  d->text[len] = '\0';
  d->len = len;
  doc_lines_build(&d->lines, d->text, d->len);
  ts_tree_delete(d->tree);
  d->tree = NULL;
  d->tree_current = false;
  d->dirty_from = 0;
  d->edit_at = 0;
}

/* Tree-sitter's point of a byte offset: rows end at '\n' only, columns count bytes. */
static TSPoint ts_point(const char *text, size_t offset) {
  TSPoint p = {0, 0};
  size_t row_start = 0;
  for (const char *q = text; (q = memchr(q, '\n', offset - (size_t)(q - text))) != NULL; q++) {
    p.row++;
    row_start = (size_t)(q - text) + 1;
  }
  p.column = (uint32_t)(offset - row_start);
  return p;
}

static TSPoint ts_point_after(TSPoint p, const char *text, size_t len) {
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n') {
      p.row++;
      p.column = 0;
    } else {
      p.column++;
    }
  }
  return p;
}

bool doc_edit(doc_document *d, doc_encoding enc, doc_pos start, doc_pos end, const char *text,
              size_t len) {
  size_t a = doc_lines_offset(&d->lines, d->text, d->len, enc, start);
  size_t b = doc_lines_offset(&d->lines, d->text, d->len, enc, end);
  if (start.line > end.line || (start.line == end.line && start.character > end.character))
    return false;
  if (b < a) b = a; /* both clamped into the same place */
  if (d->tree) {
    TSInputEdit e;
    e.start_byte = (uint32_t)a;
    e.old_end_byte = (uint32_t)b;
    e.new_end_byte = (uint32_t)(a + len);
    e.start_point = ts_point(d->text, a);
    e.old_end_point = ts_point_after(e.start_point, d->text + a, b - a);
    e.new_end_point = ts_point_after(e.start_point, text, len);
    ts_tree_edit(d->tree, &e);
  }
  size_t n = d->len - (b - a) + len;
  reserve(d, n);
  memmove(d->text + a + len, d->text + b, d->len - b);
  if (len) memcpy(d->text + a, text, len);
  d->len = n;
  d->text[n] = '\0';
  doc_lines_build(&d->lines, d->text, d->len);
  d->tree_current = false;
  if (a < d->dirty_from) d->dirty_from = a;
  d->edit_at = a;
  return true;
}

/* tree-sitter-bash 0.23.3's scanner keeps heredocs from earlier states when it deserialises a
 * shorter list, so its state leaks from one parse into the next; setting the language again
 * recreates the scanner, making each parse independent of the parser's history. */
static TSTree *parse(TSParser *p, const TSTree *old, const char *text, size_t len) {
  ts_parser_set_language(p, ts_parser_language(p));
  return ts_parser_parse_string(p, old, text, (uint32_t)len);
}

const TSTree *doc_parse(doc_document *d, TSParser *p) {
  if (d->tree_current) return d->tree;
  TSTree *t = parse(p, d->tree, d->text, d->len);
  size_t same = d->tree ? d->dirty_from : 0;
  if (t && d->tree && ts_node_has_error(ts_tree_root_node(t))) {
    /* Error recovery depends on which old subtrees the parser reused, so a broken text can get
     * a different tree than a fresh parse would give (and so different diagnostics). Broken
     * texts are therefore parsed afresh; valid ones keep the incremental tree. */
    ts_tree_delete(t);
    t = parse(p, NULL, d->text, d->len);
    same = 0;
  }
  d->gen++;
  d->same_before = same;
  d->dirty_from = SIZE_MAX;
  ts_tree_delete(d->tree);
  d->tree = t;
  d->tree_current = t != NULL;
  return t;
}

static int uri_hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *doc_uri_to_path(const char *uri) {
  if (strncmp(uri, "file://", 7) != 0) return NULL;
  const char *s = uri + 7;
  if (*s != '/') { /* file://host/path: only the local host is ours */
    if (strncmp(s, "localhost/", 10) != 0) return NULL;
    s += 9;
  }
  pd_buf b = {0};
  for (; *s && *s != '?' && *s != '#'; s++) {
    int h, l;
    if (*s == '%' && (h = uri_hexval(s[1])) >= 0 && (l = uri_hexval(s[2])) >= 0) {
      char c = (char)(h * 16 + l);
      if (c == '\0') { /* a NUL cannot be part of a path */
        pd_buf_free(&b);
        return NULL;
      }
      pd_buf_putc(&b, c);
      s += 2;
    } else {
      pd_buf_putc(&b, *s);
    }
  }
  return pd_buf_take(&b);
}

char *doc_path_to_uri(const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  pd_buf b = {0};
  pd_buf_puts(&b, "file://");
  for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
    unsigned char c = *s;
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                strchr("/-._~!$&'()*+,;=:@", c);
    if (keep) {
      pd_buf_putc(&b, (char)c);
    } else {
      pd_buf_putc(&b, '%');
      pd_buf_putc(&b, hex[c >> 4]);
      pd_buf_putc(&b, hex[c & 15]);
    }
  }
  return pd_buf_take(&b);
}
