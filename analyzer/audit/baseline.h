/* baseline: reference launch configs (analyzer/data/baselines.json, derived from
 * shared/reference/baselines.md) used as anchors in findings and hovers.
 *
 * A script matches a baseline row when the model (file name or sourced config) and the device
 * class agree and the GPU count is within 4x (the same order of magnitude); among matches the
 * closest GPU count wins, then the same mode, then a reference row over a variant. A setting
 * "deviates by two steps or more" when it is at least 4x away on a power-of-two ladder (TP, PP,
 * CP, EP, ETP, engine width, token budget, response length) or 0.1 away for the SGLang memory
 * fraction (steps of 0.05). */
#ifndef PD_AUDIT_BASELINE_H_
#define PD_AUDIT_BASELINE_H_

#include "audit/audit.h"
#include "audit/messages.h"

typedef struct ab_baselines ab_baselines;

/* The built-in table, read when a finding first asks for a row (a run without an anchored fix
 * never parses it). Never NULL; free with ab_free. */
ab_baselines *ab_load(void);
void ab_free(ab_baselines *b);

/* The Cost-line anchor for a finding about `flag` ("baseline qwen3-4B@8 (Relax recipe
 * `scripts/training/text/run-…` in redai-infra): TP2 …"), when the script matches a row, its
 * value of flag deviates from the row's by two steps or more, and the row is on the side of the
 * fix (`fix`: the value the fix sets; NAN = the finding proposes none, and then no row is cited,
 * since it might contradict the advice). NULL otherwise. Caller frees. */
char *ab_anchor(const ab_baselines *b, const au_messages *ms, const au_facts *facts, const char *flag,
                double fix, const char *lang);

/* A one-line description of the matching row and its value for flag (NULL = whole row), for
 * hovers; NULL when nothing matches. Caller frees. */
char *ab_describe(const ab_baselines *b, const au_messages *ms, const au_facts *facts,
                  const char *flag, const char *lang);

#endif
