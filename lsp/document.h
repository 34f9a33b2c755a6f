/* document: an open text document (text, version, line table, syntax tree kept incrementally)
 * and the conversions between LSP positions and byte offsets.
 *
 * LSP positions count lines split at "\n", "\r\n" or "\r", and characters in the negotiated
 * encoding (UTF-16 code units by default). Byte offsets index the UTF-8 text. Conversions clamp
 * rather than fail, as LSP 3.17 asks: a line past the end means the end of the text, a character
 * past the end of its line means the end of the line, and a position inside a multi-unit
 * character means that character's start. Invalid UTF-8 (possible in files read from disk)
 * counts one unit per byte. */
#ifndef PD_LSP_DOCUMENT_H
#define PD_LSP_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

typedef enum { DOC_UTF8, DOC_UTF16, DOC_UTF32 } doc_encoding;

typedef struct {
  uint32_t line, character;
} doc_pos;

/* Byte offsets where each line starts (starts[0] == 0). Zero-initialise, then doc_lines_build. */
typedef struct {
  size_t *starts;
  size_t n, cap;
} doc_lines;

void doc_lines_build(doc_lines *l, const char *text, size_t len);
void doc_lines_free(doc_lines *l);
size_t doc_lines_offset(const doc_lines *l, const char *text, size_t len, doc_encoding enc,
                        doc_pos p);
doc_pos doc_lines_position(const doc_lines *l, const char *text, size_t len, doc_encoding enc,
                           size_t offset);

/* Units of text[0..n) in enc. */
uint32_t doc_units(const char *text, size_t n, doc_encoding enc);

typedef struct {
  char *uri;
  char *path;        /* local path of a file: URI, NULL for other schemes */
  char *language_id;
  long long version;
  char *text;        /* NUL-terminated; may contain NUL bytes before len */
  size_t len, cap;
  doc_lines lines;
  TSTree *tree;      /* owned; edited with ts_tree_edit, brought up to date by doc_parse */
  bool tree_current; /* the tree matches the text */
  /* What a consumer of successive trees (a resumable build) needs to know about the last parse:
   * each new tree gets the next generation; the text before same_before is that of the previous
   * generation (its syntax too, except where the parser's lookahead reached past same_before;
   * the consumer checks the statements just before it). edit_at is where the last edit started. */
  unsigned long long gen;
  size_t same_before;
  size_t edit_at;
  size_t dirty_from; /* private: first byte edited since the last parse */
} doc_document;

/* A document with a copy of text[0..len). Caller frees with doc_free. */
doc_document *doc_new(const char *uri, const char *language_id, long long version,
                      const char *text, size_t len);
void doc_free(doc_document *d);

/* Replaces the text between two positions (in enc) with text[0..len), and records the edit in
 * the tree so that the next doc_parse reparses incrementally. Returns false, leaving the
 * document unchanged, when start is after end. */
bool doc_edit(doc_document *d, doc_encoding enc, doc_pos start, doc_pos end, const char *text,
              size_t len);
/* Replaces the whole text; the next doc_parse parses afresh. */
void doc_set_text(doc_document *d, const char *text, size_t len);
/* Brings the tree up to date with the text using p: incrementally, except that a text with
 * syntax errors is parsed afresh (so its tree is the one a fresh parse gives). Returns the tree
 * (owned by the document), or NULL when the parser gave up. */
const TSTree *doc_parse(doc_document *d, TSParser *p);

/* file:///a%20b/c.sh -> "/a b/c.sh"; NULL when uri is not a file URI. Caller frees. */
char *doc_uri_to_path(const char *uri);
/* "/a b/c.sh" -> file:///a%20b/c.sh. Caller frees. */
char *doc_path_to_uri(const char *path);

#endif
