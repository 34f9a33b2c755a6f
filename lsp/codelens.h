/* codelens: the memory budget at a glance, as a code lens at the top of a launch script.
 *
 * One lens on line 1 of the script itself (not of the files it sources): the estimated peak per
 * GPU against the device with its parts, the rollout engine's weights and KV cache, the
 * smallest GPU count that fits the layout, in the findings' certainty words (au_budget_line);
 * when the estimate is not made, why. Its command, LENS_COMMAND with the document's URI, opens
 * the breakdown: editors run it themselves (the VS Code extension and the Neovim plugin open the
 * markdown of CMD_MEMORY_BUDGET); a client that hands it back to the server gets that markdown. */
#ifndef PD_LSP_CODELENS_H
#define PD_LSP_CODELENS_H

#include <jansson.h>

#include "audit/audit.h"
#include "lsp/filemap.h"

#define LENS_COMMAND "perfDoctor.showMemoryBudget"

/* CodeLens[] of file `file` of the analysis (empty when it is not the launch script). uri: the
 * document's. New reference. */
json_t *lens_lenses(const au_result *r, const fm_map *m, int file, const char *uri, const char *lang);

#endif
