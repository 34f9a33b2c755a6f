/* codeaction: the code actions offered for a range of a document.
 *
 * - quickfix: each finding with a mechanical fix under the range gets a WorkspaceEdit from the
 *   analyzer's edits (isPreferred when the analyzer marks it the one obvious fix);
 * - quickfix: "add a NOTE to accept this setting" inserts `# NOTE(perf-doctor): ...` on its own
 *   line above the flag (or above the command when the flag sits on a continued line);
 * - refactor.rewrite: "insert a bounded Train Actor profiling block" after the last flag that
 *   reaches the train command: the flags of the profiling plan (audit/profile.h), the same the
 *   `profile` command prints;
 * - source.fixAll.perfDoctor: every safe finding's edits that do not overlap one another.
 * No edit is offered unless the edited text parses with no more syntax errors than before, and
 * the NOTE and profiling edits are checked by rebuilding the script model. */
#ifndef PD_LSP_CODEACTION_H
#define PD_LSP_CODEACTION_H

#include <jansson.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "audit/audit.h"
#include "lsp/diagnostics.h"
#include "lsp/filemap.h"

typedef struct {
  const json_t *only;       /* context.only: the kinds wanted; NULL = all */
  TSParser *parser;         /* used to check edits; borrowed */
  const sm_options *sm;     /* options to rebuild the model of an edited script */
  const dg_options *dg;     /* to echo the diagnostic each quick fix resolves */
  const char *lang;         /* "zh" or English: titles and the NOTE text */
} act_options;

/* What does not depend on the requested range, kept with one analysis so that the requests a
 * client sends at every cursor move stay cheap: syntax error counts, actions already checked.
 * Valid for the analysis (result, map and options) it was first used with. Caller frees with
 * act_cache_free. */
typedef struct act_cache act_cache;
act_cache *act_cache_new(const fm_map *m, size_t nfindings);
void act_cache_free(act_cache *c);

/* Code actions for bytes [a, b] of file `file` of the analysis (CodeAction[]). New reference. */
json_t *act_actions(const au_result *r, const fm_map *m, int file, size_t a, size_t b,
                    const act_options *o, act_cache *cache);

#endif
