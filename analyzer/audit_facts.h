/* audit_facts: the named facts a rule trigger can use, computed once per analysis.
 *
 * Facts are derived from the script model (flags of the script and of the model config it
 * sources) and the GPU type: the parallel layout (tp, dp, edp, ...), the model's shape and
 * parameter counts, batch arithmetic, and the memory estimate of rules-catalog.md section D.
 * Memory facts are in GiB unless the name ends in _gb (10^9 bytes, as the catalog's examples).
 * A fact that cannot be computed (the script leaves a number unresolved) is null, and a fact
 * that rests on an assumption adds a sentence to the assumptions list.
 *
 * The fact environment also answers flag functions for triggers: has('--x'), on('--x'),
 * num('--x'[, default]), str('--x'[, default]), nvals('--x'), note('--x'), env('NAME'),
 * train_env('NAME'), json_has('--x', 'key'), json_num('--x', 'key'), and the numeric helpers
 * min, max, ceil, floor, abs, log2, pow2ceil, gcd, in(x, a, b, ...), contains(s, sub),
 * startswith(s, p), def(x, fallback), known(x). */
#ifndef PD_AUDIT_FACTS_H
#define PD_AUDIT_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "analyzer/audit.h"
#include "analyzer/audit_expr.h"

/* One GPU type of catalog section D4. */
typedef struct {
  const char *id;       /* "H20-96G" */
  const char *display;  /* "H20 96GB" */
  double usable_gib;    /* memory usable to PyTorch */
  double tflops;        /* bf16 dense peak */
  bool blackwell;
} af_gpu;

/* Looks a GPU up by a loose name ("h100", "H100-80G", "A100 40GB", "b200"); NULL when unknown. */
const af_gpu *af_gpu_find(const char *name);

/* Computes every fact for model m. gpu: the user's choice (NULL = the script's comment, else
 * H20 assumed). Never NULL; caller frees with af_free. m must outlive the facts. */
au_facts *af_compute(const sm_model *m, const char *gpu);
void af_free(au_facts *f);

/* Value of a fact; false (and null) for an unknown name. Strings are owned by f. */
bool af_get(const au_facts *f, const char *name, ax_value *out);
double af_num(const au_facts *f, const char *name, double fallback);
const char *af_str(const au_facts *f, const char *name);
/* True when name is a fact or a function the environment answers (for rule-file validation). */
bool af_known(const char *name, bool is_call);

/* The environment that resolves fact names and flag functions. Valid while f lives. */
ax_env af_env(const au_facts *f);

/* Iteration over the facts (for the JSON context and hovers). */
size_t af_count(const au_facts *f);
const char *af_name(const au_facts *f, size_t i, ax_value *value);

/* Sentences saying what the facts assumed ("GPU assumed H20 96GB"), in English. */
size_t af_nassumptions(const au_facts *f);
const char *af_assumption(const au_facts *f, size_t i);

#endif
