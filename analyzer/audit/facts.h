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
#include "script/script.h"

/* Every fact: X(enum suffix, name in rule expressions). The order is the order of the report's
 * JSON "facts" object. */
#define AF_FACTS(X)                                                                              \
  X(GPU, "gpu") X(GPU_DISPLAY, "gpu_display") X(GPU_ASSUMED, "gpu_assumed") X(M, "M")   \
  X(M_MAX, "M_max")           \
  X(BLACKWELL, "blackwell") X(NPU, "npu") X(DEVICE, "device") X(TP, "tp") X(PP, "pp")            \
  X(CP, "cp") X(EP, "ep") X(ETP, "etp") X(ETP_SET, "etp_set") X(VPP, "vpp") X(DYN_CP, "dyn_cp")  \
  X(JOB, "job") X(ROLLOUT_ENGINE, "rollout_engine") X(TRAINS, "trains")                         \
  X(PREFERENCE, "preference") X(PAIR_MAX, "pair_max") X(MEGATRON, "megatron")                   \
  X(INTENT, "intent") X(ARCH_KNOWN, "arch_known") X(MEMORY_SKIPPED, "memory_skipped")           \
  X(MODE, "mode") X(HYBRID, "hybrid") X(FULLY_ASYNC, "fully_async") X(COLOCATE, "colocate")      \
  X(ASYNC, "async") X(RESOURCE_OK, "resource_ok") X(RESOURCE_SHAPES_OK, "resource_shapes_ok")    \
  X(G_A, "g_a") X(G_R, "g_r") X(G_TOTAL, "g_total") X(GPUS, "gpus") X(NODES, "nodes")            \
  X(GPUS_PER_NODE, "gpus_per_node") X(G_NODE, "g_node") X(G_NODE_SET, "g_node_set")              \
  X(NAME_GPUS, "name_gpus") X(LAYOUT_VALID, "layout_valid") X(TP_LO, "tp_lo") X(TP_HI, "tp_hi") X(PP_LO, "pp_lo")  \
  X(PP_HI, "pp_hi") X(CP_LO, "cp_lo") X(CP_HI, "cp_hi") X(DP, "dp") X(EDP, "edp") X(GPE, "gpe") X(ENGINES, "engines")        \
  X(SPP, "spp") X(ROLLOUT_RATIO, "rollout_ratio") X(MOE, "moe") X(E, "E") X(TOPK, "topk")        \
  X(L, "L") X(H, "h") X(F, "F") X(FE, "Fe") X(FS, "Fs") X(HEADS, "heads") X(GROUPS, "groups")    \
  X(KVC, "kvc") X(V, "V") X(TIED, "tied") X(MOE_LAYERS, "moe_layers") X(L_ATTN, "L_attn")        \
  X(MLA, "mla") X(HYBRID_ATTN, "hybrid_attn") X(MODEL, "model") X(MODALITY, "modality")          \
  X(MM, "mm") X(HF_MULTIMODAL, "hf_multimodal") X(RBS, "rbs") X(N, "n") X(GBS, "gbs") X(S, "S")  \
  X(OS, "os") X(DYN, "dyn") X(T, "T") X(T_LP, "T_lp") X(T_ACT, "T_act") X(RESP, "resp") X(PROMPT, "prompt")        \
  X(CTX, "ctx") X(CTX_EFF, "ctx_eff") X(MBS, "mbs") X(NUM_ITERS, "num_iters")                    \
  X(STALENESS, "staleness") X(FRAC, "frac") X(OFFLOAD, "offload")                                \
  X(OFFLOAD_TRIO, "offload_trio") X(OPT_BYTES, "opt_bytes") X(OFFLOAD_TRAIN, "offload_train")    \
  X(OFFLOAD_ROLLOUT, "offload_rollout") X(ALLOC_GLOBAL, "alloc_global")                          \
  X(ALLOC_TRAIN, "alloc_train") X(DEBUG_SCRIPT, "debug_script") X(SCRIPT_NAME, "script_name")    \
  X(RECOMPUTE_FULL, "recompute_full") X(RECOMPUTE_SELECTIVE, "recompute_selective") X(SP, "sp")  \
  X(P, "P") X(P_B, "P_b") X(P_ACTIVE_B, "P_active_b") X(P_EXPERT, "P_expert")                    \
  X(P_DENSE, "P_dense") X(P_TRAINABLE_B, "P_trainable_b") X(LAYER_PARAMS, "layer_params") X(PARAMS_GPU_B, "params_gpu_b")          \
  X(STATIC, "static") X(STATIC_GB, "static_gb") X(STATIC_RESIDENT, "static_resident")            \
  X(STATIC_RESIDENT_GB, "static_resident_gb") X(BYTES_PER_PARAM, "bytes_per_param")              \
  X(BYTES_PER_PARAM_RESIDENT, "bytes_per_param_resident") X(HOST_NEEDED, "host_needed")          \
  X(BACKUP_TAGS, "backup_tags") X(ACT_NORECOMPUTE, "act_norecompute")                            \
  X(ACT_RECOMPUTE, "act_recompute") X(ACT, "act") X(LOGITS, "logits") X(LOGITS_LP, "logits_lp")  \
  X(OVERHEAD, "overhead") X(PEAK, "peak") X(PEAK_NORECOMPUTE, "peak_norecompute")                \
  X(PEAK_RESIDENT, "peak_resident") X(KV_BYTES_TOKEN, "kv_bytes_token")                          \
  X(ROLLOUT_WEIGHTS, "rollout_weights") X(ROLLOUT_DTYPE, "rollout_dtype") X(KV_TOKENS, "kv_tokens") X(MIN_GPUS_FIT, "min_gpus_fit") \
  X(COND_CODE, "cond_code") X(COND_SUBJECT, "cond_subject") X(COND_FLAG, "cond_flag")            \
  X(COND_SIMILAR, "cond_similar") X(COND_MISSING, "cond_missing") X(COND_MESSAGE, "cond_message")   \
  X(COND_UNREAD, "cond_unread") X(COND_COMMENTED, "cond_commented") X(COND_SUGGEST, "cond_suggest") \
  X(COND_BASH, "cond_bash") X(COND_OPEN, "cond_open") X(COND_OPEN_LINE, "cond_open_line") X(COND_CLOSER, "cond_closer")

typedef enum {
#define AF_ENUM_(id, name) AF_##id,
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


/* Computes every fact for model m (which must outlive the facts). Never NULL; caller frees
 * with af_free. */
au_facts *af_compute(const sm_model *m);
void af_free(au_facts *f);

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
