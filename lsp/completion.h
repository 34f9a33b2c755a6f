/* completion: flag names and choice values while a launch line is edited.
 *
 * Inside an `*ARGS*=( ... )` array (or `+=( ... )`) and on the train command
 * (`... relax.entrypoints.train ...`): a word that starts with `-` completes to the options of the
 * analysis' flag catalog whose names contain the typed letters in order (prefix matches first,
 * flags the script already sets last); the word after a flag that has choices completes to its
 * choices. Nothing in comments or strings, nothing elsewhere. Items carry their type, default
 * and parser as `detail`; their documentation (au_flag_markdown) comes with completionItem/resolve,
 * so that a list of hundreds of items stays small. A half-typed script whose array the parser
 * cannot close is recognised from the text. */
#ifndef PD_LSP_COMPLETION_H
#define PD_LSP_COMPLETION_H

#include <jansson.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "audit/audit.h"
#include "lsp/filemap.h"

typedef struct {
  const au_result *r;   /* the up-to-date analysis that covers the document */
  const fm_map *map;
  int file;             /* the document's index among the analysis' files */
  const TSTree *tree;   /* the document's syntax tree (may be NULL: the text decides) */
  const char *uri;      /* the document's URI, kept in items for resolve */
  const char *lang;     /* "zh" or English: the items' details */
} cmp_request;

/* The CompletionList at byte offset `at` of the file (never NULL: an empty list when there is
 * nothing to offer). New reference. */
json_t *cmp_complete(const cmp_request *q, size_t at);

/* The item with its documentation filled in (rules and catalog of the analysis; lang of the
 * settings). Returns a new reference; the item passed is not changed. */
json_t *cmp_resolve(const au_result *r, const json_t *item, const char *lang);

#endif
