/* navigate: go to definition, references, the outline and rename, from the script model's
 * references (sm_ref: every definition, append, use and mention of a variable, array or
 * function, with the definitions that reach each use) across the files of one analysis (the
 * launch script and what it sources).
 *
 * - definition: from a use, the definitions that reach it (an array's `NAME=( ... )` and every
 *   `+=` since; a variable's last certain assignment and the conditional ones after it), else
 *   every definition of the name; from a definition or a mention, every definition of the name;
 *   from a `source` line, the file it sources.
 * - references: every place of the name (functions apart from variables and arrays).
 * - documentSymbol: the arrays with the flags argparse sees in them, the train command with the
 *   flags on its line, the functions; in source order.
 * - rename: a variable, array or function across the analysis' files. Refused, with the reason,
 *   when the old name is the environment's, exported, or written somewhere perf-doctor cannot
 *   see as this name (a string, an eval, a heredoc, code that never runs), when the new name is
 *   not a bash name, is one bash or the launched programs give a meaning to, or is already used,
 *   when a file has a syntax error, and when the renamed text would not parse.
 * Nothing here fails on a stale or half-typed document: no symbol means an empty answer. */
#ifndef PD_LSP_NAVIGATE_H
#define PD_LSP_NAVIGATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "audit/audit.h"
#include "lsp/filemap.h"

typedef struct {
  const au_result *r; /* the up-to-date analysis that covers the document */
  const fm_map *map;
  int file;           /* the document's index among the analysis' files */
  const char *lang;
} nav_request;

/* Location[] (empty when there is nothing to go to). New references. */
json_t *nav_definition(const nav_request *q, size_t at);
json_t *nav_references(const nav_request *q, size_t at, bool include_declaration);
/* DocumentSymbol[] of the document. */
json_t *nav_symbols(const nav_request *q);

/* prepareRename: {range, placeholder}, or NULL (a JSON null answer) when nothing there can be
 * renamed; NULL with *why (caller frees) when it cannot be renamed safely. p: a bash parser. */
json_t *nav_prepare_rename(const nav_request *q, size_t at, TSParser *p, char **why);
/* rename: a WorkspaceEdit, or NULL with *why (caller frees). p: a bash parser to check the
 * renamed texts with. */
json_t *nav_rename(const nav_request *q, size_t at, const char *new_name, TSParser *p, char **why);

#endif
