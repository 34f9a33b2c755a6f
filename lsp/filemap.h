/* filemap: the files of one analysis (the script and what it sources) as LSP sees them:
 * their URIs and the conversion of analyzer ranges (byte offsets) to LSP ranges in the
 * negotiated encoding. Ranges are converted against the text the analyzer read, so they stay
 * consistent with the findings even when a file changed since. */
#ifndef PD_LSP_FILEMAP_H
#define PD_LSP_FILEMAP_H

#include <jansson.h>
#include <stddef.h>

#include "script/script.h"
#include "lsp/document.h"

typedef struct {
  char *uri;        /* owned */
  char *path;       /* owned, normalised (pd_path_normalize); NULL when the file has no path */
  const char *text; /* borrowed from the model */
  size_t len;
  doc_lines lines;
} fm_file;

/* Maps a path to the URI the client uses for it (an open document keeps the client's own
 * spelling). Returns a malloc'd string. */
typedef char *(*fm_uri_fn)(void *ctx, const char *path);

typedef struct {
  fm_file *files; /* one per sm_model.files */
  size_t nfiles;
  doc_encoding enc;
} fm_map;

/* Fills m for model; file 0 gets script_uri. The model must outlive m. Free with fm_free. */
void fm_init(fm_map *m, const sm_model *model, const char *script_uri, doc_encoding enc,
             fm_uri_fn uri_of, void *ctx);
void fm_free(fm_map *m);

/* Index of the file whose normalised path is `path`, or -1. */
int fm_find(const fm_map *m, const char *path);
/* {"start":{line,character},"end":{...}} of r in file `file`. New reference. */
json_t *fm_range(const fm_map *m, int file, sm_range r);
/* {"uri":..., "range":...}. New reference; NULL when file is out of range. */
json_t *fm_location(const fm_map *m, int file, sm_range r);
const char *fm_uri(const fm_map *m, int file);
/* Byte offset in file `file` of an LSP position. */
size_t fm_offset(const fm_map *m, int file, doc_pos p);

/* A JSON string of s, with bytes that are not UTF-8 replaced by U+FFFD (analyzer text can quote
 * files read from disk). New reference; s NULL gives "". */
json_t *fm_string(const char *s);

#endif
