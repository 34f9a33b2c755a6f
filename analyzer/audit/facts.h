/* facts: the named facts a rule trigger can use, computed once per analysis.
 *
 * Facts are derived from the script model (flags of the script and of the model config it
 * sources, what the script states about itself) and the device table: the job's mode and
 * parallel layout, its GPU totals, the model's shape and parameter counts, batch arithmetic,
 * and the memory estimate of rules-catalog.md section D. They are the only place these numbers
 * are worked out: reports, hovers and `context` read them here. Memory facts are in GiB unless
 * the name ends in _gb (10^9 bytes, as the catalog's examples). A fact that cannot be computed
 * (the script leaves a number unresolved) is null, and a fact that rests on an assumption adds
 * a sentence to the assumptions list.
 *
 * The fact environment also answers the trigger functions (af_fn_id lists them). */
#ifndef PD_AUDIT_FACTS_H
#define PD_AUDIT_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "audit/expr.h"
#include "audit/knowledge.h"
#include "script/script.h"

/* Every fact: X(enum suffix, name in rule expressions, the step that computes it). The order is
 * the order of the report's JSON "facts" object. af_compute runs the steps in AF_STEPS order; a
 * fact is set only by its own step and read only from its step on (af_order_errors counts the
 * exceptions; builds without NDEBUG abort on one), so what each fact rests on is declared here
 * rather than kept by a call order. */
#define AF_FACTS(X)                                                                              \
  X(GPU, "gpu", DEVICE) X(GPU_DISPLAY, "gpu_display", DEVICE) X(GPU_ASSUMED, "gpu_assumed", DEVICE) X(M, "M", DEVICE)   \
  X(M_MAX, "M_max", DEVICE) X(TFLOPS, "tflops", DEVICE) X(LINK_GBPS, "link_gbps", DEVICE)           \
  X(BLACKWELL, "blackwell", DEVICE) X(NPU, "npu", DEVICE) X(DEVICE, "device", DEVICE) X(TP, "tp", LAYOUT) X(PP, "pp", LAYOUT)            \
  X(CP, "cp", LAYOUT) X(EP, "ep", LAYOUT) X(ETP, "etp", LAYOUT) X(ETP_SET, "etp_set", LAYOUT) X(VPP, "vpp", LAYOUT) X(DYN_CP, "dyn_cp", LAYOUT)  \
  X(JOB, "job", JOB) X(ROLLOUT_ENGINE, "rollout_engine", JOB) X(TRAINS, "trains", JOB)                         \
  X(PREFERENCE, "preference", JOB) X(PAIR_MAX, "pair_max", JOB) X(MEGATRON, "megatron", JOB)                   \
  X(INTENT, "intent", JOB) X(ARCH_KNOWN, "arch_known", SUMMARY) X(MEMORY_SKIPPED, "memory_skipped", SUMMARY)           \
  X(MODE, "mode", MODE) X(HYBRID, "hybrid", MODE) X(FULLY_ASYNC, "fully_async", MODE) X(COLOCATE, "colocate", MODE)      \
  X(ASYNC, "async", MODE) X(RESOURCE_OK, "resource_ok", RESOURCES) X(RESOURCE_SHAPES_OK, "resource_shapes_ok", RESOURCES)    \
  X(G_A, "g_a", RESOURCES) X(G_R, "g_r", RESOURCES) X(G_TOTAL, "g_total", RESOURCES) X(GPUS, "gpus", MACHINES) X(NODES, "nodes", MACHINES)            \
  X(GPUS_PER_NODE, "gpus_per_node", MACHINES) X(G_NODE, "g_node", MACHINES) X(G_NODE_SET, "g_node_set", MACHINES)              \
  X(NAME_GPUS, "name_gpus", MACHINES) X(LAYOUT_VALID, "layout_valid", GROUPS) X(TP_LO, "tp_lo", FIXES) X(TP_HI, "tp_hi", FIXES) X(PP_LO, "pp_lo", FIXES)  \
  X(PP_HI, "pp_hi", FIXES) X(CP_LO, "cp_lo", FIXES) X(CP_HI, "cp_hi", FIXES) X(DP, "dp", GROUPS) X(EDP, "edp", GROUPS) X(GPE, "gpe", GROUPS) X(ENGINES, "engines", GROUPS)        \
  X(SPP, "spp", GROUPS) X(ROLLOUT_RATIO, "rollout_ratio", GROUPS) X(MOE, "moe", SHAPE) X(E, "E", SHAPE) X(TOPK, "topk", SHAPE)        \
  X(L, "L", SHAPE) X(H, "h", SHAPE) X(F, "F", SHAPE) X(FE, "Fe", SHAPE) X(FS, "Fs", SHAPE) X(HEADS, "heads", SHAPE) X(GROUPS, "groups", SHAPE)    \
  X(KVC, "kvc", SHAPE) X(V, "V", SHAPE) X(TIED, "tied", SHAPE) X(MOE_LAYERS, "moe_layers", SHAPE) X(L_ATTN, "L_attn", SHAPE)        \
  X(MLA, "mla", SHAPE) X(HYBRID_ATTN, "hybrid_attn", SHAPE) X(MODEL, "model", MODALITY) X(MODALITY, "modality", MODALITY)          \
  X(MM, "mm", MODALITY) X(HF_MULTIMODAL, "hf_multimodal", MODALITY) X(RBS, "rbs", BATCHING) X(N, "n", BATCHING) X(GBS, "gbs", BATCHING) X(S, "S", BATCHING)  \
  X(OS, "os", BATCHING) X(DYN, "dyn", BATCHING) X(T, "T", BATCHING) X(T_LP, "T_lp", BATCHING) X(T_ACT, "T_act", MEMORY) X(RESP, "resp", BATCHING) X(PROMPT, "prompt", BATCHING)        \
  X(CTX, "ctx", BATCHING) X(CTX_EFF, "ctx_eff", BATCHING) X(MBS, "mbs", BATCHING) X(NUM_ITERS, "num_iters", BATCHING)                    \
  X(STALENESS, "staleness", BATCHING) X(FRAC, "frac", BATCHING) X(OFFLOAD, "offload", OPTIMIZER)                                \
  X(OFFLOAD_TRIO, "offload_trio", OPTIMIZER) X(OPT_BYTES, "opt_bytes", OPTIMIZER) X(OFFLOAD_TRAIN, "offload_train", OPTIMIZER)    \
  X(OFFLOAD_ROLLOUT, "offload_rollout", OPTIMIZER) X(ALLOC_GLOBAL, "alloc_global", RUNTIME)                          \
  X(ALLOC_TRAIN, "alloc_train", RUNTIME) X(DEBUG_SCRIPT, "debug_script", RUNTIME) X(SCRIPT_NAME, "script_name", RUNTIME) X(SOURCE_MISSING, "source_missing", RUNTIME)    \
  X(RECOMPUTE_FULL, "recompute_full", RUNTIME) X(RECOMPUTE_SELECTIVE, "recompute_selective", RUNTIME) X(SP, "sp", RUNTIME)  \
  X(P, "P", MEMORY) X(P_B, "P_b", MEMORY) X(P_ACTIVE_B, "P_active_b", MEMORY) X(P_EXPERT, "P_expert", MEMORY)                    \
  X(P_DENSE, "P_dense", MEMORY) X(P_TRAINABLE_B, "P_trainable_b", MEMORY) X(LAYER_PARAMS, "layer_params", MEMORY) X(PARAMS_GPU_B, "params_gpu_b", MEMORY)          \
  X(STATIC, "static", MEMORY) X(STATIC_GB, "static_gb", MEMORY) X(STATIC_RESIDENT, "static_resident", MEMORY)            \
  X(STATIC_RESIDENT_GB, "static_resident_gb", MEMORY) X(BYTES_PER_PARAM, "bytes_per_param", MEMORY)              \
  X(BYTES_PER_PARAM_RESIDENT, "bytes_per_param_resident", MEMORY) X(HOST_NEEDED, "host_needed", MEMORY)          \
  X(BACKUP_TAGS, "backup_tags", MEMORY) X(ACT_NORECOMPUTE, "act_norecompute", MEMORY)                            \
  X(ACT_RECOMPUTE, "act_recompute", MEMORY) X(ACT, "act", MEMORY) X(LOGITS, "logits", MEMORY) X(LOGITS_LP, "logits_lp", MEMORY)  \
  X(OVERHEAD, "overhead", MEMORY) X(PEAK, "peak", MEMORY) X(PEAK_NORECOMPUTE, "peak_norecompute", MEMORY)                \
  X(PEAK_RESIDENT, "peak_resident", MEMORY) X(KV_BYTES_TOKEN, "kv_bytes_token", MEMORY)                          \
  X(ROLLOUT_WEIGHTS, "rollout_weights", MEMORY) X(ROLLOUT_DTYPE, "rollout_dtype", MEMORY) X(ROLLOUT_DTYPE_STATED, "rollout_dtype_stated", MEMORY) X(KV_TOKENS, "kv_tokens", MEMORY) X(MIN_GPUS_FIT, "min_gpus_fit", MEMORY) \
  X(COND_CODE, "cond_code", CONDITION) X(COND_SUBJECT, "cond_subject", CONDITION) X(COND_FLAG, "cond_flag", CONDITION)            \
  X(COND_SIMILAR, "cond_similar", CONDITION) X(COND_MISSING, "cond_missing", CONDITION) X(COND_MESSAGE, "cond_message", CONDITION)   \
  X(COND_UNREAD, "cond_unread", CONDITION) X(COND_COMMENTED, "cond_commented", CONDITION) X(COND_SUGGEST, "cond_suggest", CONDITION) \
  X(COND_BASH, "cond_bash", CONDITION) X(COND_OPEN, "cond_open", CONDITION) X(COND_OPEN_LINE, "cond_open_line", CONDITION) \
  X(COND_CLOSER, "cond_closer", CONDITION) X(COND_ALT_G_A, "cond_alt_g_a", CONDITION)                   \
  X(COND_ALT_TP, "cond_alt_tp", CONDITION) X(COND_ALT_PP, "cond_alt_pp", CONDITION)                   \
  X(COND_ALT_CP, "cond_alt_cp", CONDITION) X(COND_ALT_FA, "cond_alt_fa", CONDITION)                   \
  X(COND_ALT_KL, "cond_alt_kl", CONDITION) X(COND_ALT_REF, "cond_alt_ref", CONDITION) \
  X(COND_IN_NAME, "cond_in_name", CONDITION)

/* The steps of af_compute, in order. */
#define AF_STEPS(X)                                                                              \
  X(DEVICE) X(LAYOUT) X(MODE) X(RESOURCES) X(JOB) X(MACHINES) X(GROUPS) X(SHAPE) X(MODALITY)      \
  X(FIXES) X(BATCHING) X(OPTIMIZER) X(RUNTIME) X(MEMORY) X(SUMMARY) X(CONDITION)

typedef enum {
#define AF_STEP_ENUM_(s) AF_STEP_##s,
  AF_STEPS(AF_STEP_ENUM_)
#undef AF_STEP_ENUM_
  AF_NSTEPS
} af_step;

typedef enum {
#define AF_ENUM_(id, name, step) AF_##id,
  AF_FACTS(AF_ENUM_)
#undef AF_ENUM_
  AF_COUNT
} af_id;


/* The id rule files use for the facts of `--resource` roles, `res_<role>` (GPUs of that role):
 * their names are only known per script. */
#define AF_RES_ROLE AF_COUNT

typedef struct au_facts au_facts; /* opaque */

/* The cond_* facts describe the script-model condition a rule about conditions is looking at
 * (see the catalog's "condition"): its code, subject (the variable, array or file), flag, a
 * similarly named variable or array the script does set (a typo's likely intent), whether a
 * syntax error is a missing token, and its message. NULL clears them. */
void af_condition(au_facts *f, const sm_condition *c);


/* Computes every fact for model m (which must outlive the facts), with what k knows of model
 * families, script wording and job kinds (audit/knowledge.h; borrowed, must outlive the facts;
 * NULL = load the built-in knowledge for these facts alone). Never NULL; caller frees with
 * af_free. */
au_facts *af_compute(const sm_model *m, const ak_knowledge *k);
void af_free(au_facts *f);
/* How many times a fact was set outside its step or read before its step ran: 0 unless a
 * computation is misplaced (the tests check every fixture). */
size_t af_order_errors(const au_facts *f);

/* How surely a fact is known (the least certain input it was computed from) and, when that was
 * a flag, which. */
sm_cert af_cert(const au_facts *f, af_id id, const sm_flag **why);
/* Tracking an evaluation: everything an expression reads through af_env between begin and end
 * is noted; end gives the least certain input and its flag. */
void af_track_begin(au_facts *f);
sm_cert af_track_end(au_facts *f, const sm_flag **why);
/* Notes an input known only as surely as cert (why: its flag, or NULL). */
void af_note(au_facts *f, sm_cert cert, const sm_flag *why);

/* A fact's value (null when it could not be computed). */
ax_value af_value(const au_facts *f, af_id id);
double af_num(const au_facts *f, af_id id, double fallback);
const char *af_str(const au_facts *f, af_id id); /* NULL unless a string */
/* Any fact by name, `res_<role>` included; false (and null) for an unknown name. */
bool af_get(const au_facts *f, const char *name, ax_value *out);
const char *af_fact_name(af_id id);

/* Name resolution for rule files (ax_bind): the id of a fact, AF_RES_ROLE for `res_<role>`,
 * or -1; the id of a function that takes nargs arguments, or -1 with a message (caller frees)
 * saying why. */
int af_fact_id(const char *name);
int af_fn_id(const char *name, size_t nargs, char **why);
/* The functions, for documentation. */
size_t af_fn_count(void);
const char *af_fn_name(size_t i);

/* The environment that resolves bound names and functions. Valid while f lives. */
ax_env af_env(au_facts *f);

/* The facts that were computed, in AF_FACTS order, then the `res_<role>` ones (for the JSON
 * context and hovers). */
size_t af_count(const au_facts *f);
const char *af_name(const au_facts *f, size_t i, ax_value *value);

/* Sentences saying what the facts assumed ("GPU assumed H20 96GB"), in English. */
size_t af_nassumptions(const au_facts *f);
const char *af_assumption(const au_facts *f, size_t i);

#endif
