/* hover: what the analysis knows about the place under the cursor, as an LSP Hover.
 *
 * On a flag: its documentation (au_flag_markdown: the catalog's help, type, default, choices,
 * parser and commit, the curated note), the resolved value of the winning
 * occurrence, every place it is set (and which one wins), the baseline's value and other facts
 * (au_hover_facts with the flag as topic: for --resource that is the GPU plan), and the
 * findings that involve it. On a `source` command: the model's size and shape (topic
 * "source"). */
#ifndef PD_LSP_HOVER_H
#define PD_LSP_HOVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit/audit.h"
#include "lsp/filemap.h"

/* Hover at byte offset `at` of file `file` (index into the model's files); NULL when there is
 * nothing to say. markdown: the client renders MarkupKind markdown (else plaintext).
 * New reference. */
json_t *hov_hover(const au_result *r, const fm_map *m, int file, size_t at, const char *lang,
                  bool markdown);

#endif
