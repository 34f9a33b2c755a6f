/* traces: the trace measures the language server attaches to findings as evidence.
 *
 * A document's trace is, in order: the one linked to it with perfDoctor.linkTrace, the
 * `traceDir` setting (editor or project config), or the script's own
 * `traces/<tb-experiment-name>/train_trace/` when that folder exists under a workspace root
 * (Relax writes it relative to the Ray job's working directory, usually the checkout). A trace
 * is summarised once and kept until its file or folder changes (modification time and size), so
 * typing does not re-read it. */
#ifndef PD_LSP_TRACES_H
#define PD_LSP_TRACES_H

#include <stdbool.h>

#include "audit/audit.h"
#include "evidence/evidence.h"

typedef struct tc_cache tc_cache;

tc_cache *tc_new(void);
void tc_free(tc_cache *c);

/* The measures of the trace at path (a file or folder), summarised now or taken from the cache;
 * NULL with *err (borrowed, kept with the entry) when it cannot be read, said in lang. gpu: as
 * `trace --gpu`. */
const evd_trace *tc_get(tc_cache *c, const char *path, const char *gpu, const char *lang, const char **err);

/* The default trace folder of a script: <root>/traces/<tb-experiment-name>/train_trace when it
 * exists for one of the roots; NULL otherwise (caller frees). */
char *tc_default_dir(const sm_model *m, char *const *roots, size_t nroots);

#endif
