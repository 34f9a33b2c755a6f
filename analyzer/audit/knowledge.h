/* knowledge: what the audit knows about model families, the wording of launch scripts and job
 * kinds, as data (analyzer/data/knowledge.json), checked when it loads.
 *
 *   families   matched by the longest name prefix of the model's name (case-insensitive): the
 *              vocabulary size, whether the Hugging Face config is natively multimodal, a gated
 *              (GeGLU) MLP, the attention variant (shared_kv, kda), the Gated DeltaNet layer
 *              shape and its value heads per (hidden size, MoE) — what the flags leave to the
 *              checkpoint;
 *   words      the intent words a file name may state, the words that mark a debug script, the
 *              markers of a multimodal job in flag and model names;
 *   jobs       the job kind as the first of a list of trigger expressions (the rule language,
 *              over the facts and flag functions) that holds.
 * A new family, word or job kind is one data entry and no C. Immutable once loaded. */
#ifndef PD_AUDIT_KNOWLEDGE_H
#define PD_AUDIT_KNOWLEDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "audit/expr.h"

typedef struct {
  double freq, key_heads, key_dim, value_dim, conv_kernel;
  const double *vh_hidden, *vh_heads; /* value heads by hidden size ... */
  const bool *vh_moe;                 /* ... and whether the model is MoE */
  size_t nvh;
} ak_gdn;

typedef struct {
  const char *id;
  double vocab;          /* NaN when the entry does not say */
  bool hf_multimodal;
  bool gated_mlp;
  const char *attention; /* "shared_kv", "kda" or NULL */
  const ak_gdn *gdn;     /* NULL: no Gated DeltaNet layers */
} ak_family;

typedef struct ak_knowledge ak_knowledge;

/* Loads a knowledge document (text[0..len), named origin in messages); NULL with *err (caller
 * frees: "origin: path: what") when it does not have the shape above or a trigger does not
 * parse. ak_builtin loads the embedded one. Free with ak_free. */
ak_knowledge *ak_load(const char *text, size_t len, const char *origin, char **err);
ak_knowledge *ak_builtin(char **err);
void ak_free(ak_knowledge *k);

/* The family of a model name ("qwen35-35B-A3B" -> qwen35), or NULL. */
const ak_family *ak_family_of(const ak_knowledge *k, const char *model);
/* The vocabulary assumed for a model no entry and no flag gives, and the family it is taken from. */
double ak_default_vocab(const ak_knowledge *k, const char **family);

/* Word lists (borrowed, NULL-terminated). */
const char *const *ak_intent_words(const ak_knowledge *k);
const char *const *ak_debug_name_words(const ak_knowledge *k);
const char *const *ak_mm_flag_words(const ak_knowledge *k);
const char *const *ak_mm_flag_prefixes(const ak_knowledge *k);
const char *const *ak_mm_model_words(const ak_knowledge *k);
const char *const *ak_hf_mm_model_words(const ak_knowledge *k);

/* The job kinds in order: the i-th kind and its trigger (bound against the facts' names). */
size_t ak_njobs(const ak_knowledge *k);
const char *ak_job(const ak_knowledge *k, size_t i, const ax_expr **when);
/* The device triggers in order: the i-th device name (one pd_device_find knows) and the
 * trigger that says the script runs on it (ASCEND_RT_VISIBLE_DEVICES, --sglang-device npu). */
size_t ak_ndevices(const ak_knowledge *k);
const char *ak_device(const ak_knowledge *k, size_t i, const ax_expr **when);
/* Whether a job kind runs rollouts for RL (rl, genrm, diffusion). */
bool ak_is_rl(const ak_knowledge *k, const char *job);

#endif
