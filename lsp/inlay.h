/* inlay: inlay hints with what the analyzer resolved, in a range of a document.
 *
 * - After a flag value written with an expansion (`--max-tokens-per-gpu ${MAX_TOKENS}`): the
 *   value argparse receives ("= 9216"), for the occurrence that reaches the train command.
 * - After the flags the derived layout comes from, on their winning occurrence: the tensor /
 *   pipeline / context parallel sizes get the data-parallel size and the actor GPU count ("DP 4
 *   of 8 GPUs"), `--resource` (or `--actor-num-nodes` / `--actor-num-gpus-per-node`) the world
 *   size ("world 8 GPUs: actor 8, rollout 8"), `--rollout-num-gpus-per-engine` the engines.
 * Nothing that is not known is hinted; a stale or half-typed document gets what can be
 * recovered. */
#ifndef PD_LSP_INLAY_H
#define PD_LSP_INLAY_H

#include <jansson.h>
#include <stddef.h>

#include "audit/audit.h"
#include "lsp/filemap.h"

/* InlayHint[] for bytes [a, b] of file `file` of the analysis. New reference. */
json_t *inl_hints(const au_result *r, const fm_map *m, int file, size_t a, size_t b, const char *lang);

#endif
