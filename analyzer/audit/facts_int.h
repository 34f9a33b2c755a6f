/* facts_int: the facts module's private parts, shared by facts.c (storage and the derivation of
 * mode, layout, resources, batching and optimizer facts), facts_mem.c (the model's shape and the
 * memory arithmetic of catalog section D) and facts_fn.c (the trigger functions). */
#ifndef PD_AUDIT_FACTS_INT_H
#define PD_AUDIT_FACTS_INT_H

#include <math.h>

#include "audit/facts.h"
#include "base/device.h"

#define AF_GIB 1073741824.0

typedef struct {
  char *name;
  ax_value v;
  sm_cert cert;
  const sm_flag *why;
} af_dyn;

/* What a computation or an evaluation read: the least certain value, and the flag it was. */
typedef struct {
  sm_cert cert;
  const sm_flag *why; /* NULL when every input was literal, or the least certain one was not a flag */
} af_track;

struct au_facts {
  const sm_model *m;
  const ak_knowledge *k;      /* model families, words, job kinds */
  ak_knowledge *own_k;        /* k when these facts loaded it themselves */
  af_step step;               /* the step being computed (facts.h AF_STEPS) */
  size_t order_errors;
  ax_value v[AF_COUNT];
  bool set[AF_COUNT];
  sm_cert cert[AF_COUNT];     /* how surely each fact is known: its least certain input */
  const sm_flag *why[AF_COUNT];
  af_track track;             /* inputs read since the last af_begin / af_track_begin */
  pd_device custom_device;    /* a family the user gave a memory size for ("P800-96G") */
  af_dyn *dyn; /* res_<role> */
  size_t ndyn, capdyn;
  char **strs; /* strings owned by the facts */
  size_t nstrs, capstrs;
  char **assumed;
  size_t nassumed, capassumed;
};

/* Starts a computation: the facts set after this rest on the inputs read after it. */
void af_begin(au_facts *f);
/* Inputs: a flag (its certainty; an absent flag is certain), a fact. */
void af_note_flag(au_facts *f, const sm_flag *fl);
void af_note_fact(au_facts *f, af_id id);
/* A fact read as an input: its value (NAN when unknown) and its certainty passes on. */
double af_input(au_facts *f, af_id id);

void af_set(au_facts *f, af_id id, ax_value v);
void af_setn(au_facts *f, af_id id, double x);      /* NAN = null as well: never a value */
void af_setb(au_facts *f, af_id id, bool b);
void af_sets(au_facts *f, af_id id, const char *s); /* copied; NULL = null */
void af_setu(au_facts *f, af_id id, double x);      /* NAN = null */
const char *af_own(au_facts *f, char *s);           /* s is freed with the facts */
void af_assume(au_facts *f, const char *fmt, const char *arg);

/* Flags, read as inputs of the computation under way (noted in f->track): a number (fallback
 * when absent, NAN when present but not a number), a number defaulting to a fact, a switch,
 * presence, and a string (NULL when absent or not resolved). */
/* The flag `name` read as an input of the fact being computed: its winning occurrence, or NULL.
 * When an occurrence keeps `name` from being set as written (a typo meant to be it, a value
 * argparse refuses: sm_flag_broken), the input is noted as unresolved with that occurrence as
 * its reason and *broken is set: what rests on it is then unknown (the af_flag_* readers below
 * return NaN / NULL), not the default the typo leaves behind. */
const sm_flag *af_flag_input(au_facts *f, const char *name, bool *broken);
double af_flag_num(au_facts *f, const char *name, double fallback);
/* The flag's number, else the default the flag catalog gives it (NaN for None): what argparse
 * leaves when the script does not set it. Prefer it to a default written here. */
double af_flag_numd(au_facts *f, const char *name);
double af_flag_num_or(au_facts *f, const char *name, af_id fallback);
bool af_flag_on(au_facts *f, const char *name);
bool af_flag_has(au_facts *f, const char *name);
const char *af_flag_str(au_facts *f, const char *name);
/* The last value assigned to NAME anywhere in the script's files (caller frees), or NULL. */
char *af_env_scan(const sm_model *m, const char *name);
/* Whether a line of the script's files that is not a comment names `word` whole (an
 * environment variable, a sourced file's name). */
bool af_mentions(const sm_model *m, const char *word);

/* The model's shape as its config states it. */
typedef struct {
  double L, h, F, Fe, Fs, heads, groups, kvc, V, E, topk, moe_layers;
  bool tied, swiglu, gate, mla, hybrid_attn;
  double qlora, kvlora, qk, qkpos, vdim;
  double latent, mtp;                 /* --moe-latent-size, --mtp-num-layers (0 = none) */
  bool gdn, dsv4, kda;                /* Gated DeltaNet, DeepSeek-V4 attention, Kimi K3 KDA */
  double lin_freq, nk, nv, dk, dv, conv_k; /* Gated DeltaNet shape */
  double P, P_dense, P_expert, P_emb, P_active, L_attn;
} af_shape;

/* Bytes per parameter and the layout, for the static-memory arithmetic. */
typedef struct {
  double tp, pp, cp, ep, etp;
  double w_bytes, g_bytes, opt_bytes; /* per param: weights, grads, master+moments */
  double offload_frac;                /* share of optimizer state on the host */
  double train_dense, train_expert;   /* share of the dense / expert parameters that train (and so
                                         have gradients and optimizer state): 1 unless LoRA,
                                         --mtp-only-training or frozen parts say otherwise */
} af_mem_cfg;

/* facts_mem.c: reads the shape and sets its facts; false when the architecture is unknown. */
bool af_read_shape(au_facts *f, af_shape *s);
/* facts_params.c: the family traits the flags leave to the checkpoint, then the counts
 * (P, P_dense, P_expert, P_emb, P_active, L_attn). */
void af_read_traits(au_facts *f, af_shape *s, const char *model);
void af_shape_params(af_shape *s);
/* Parameter counts, static memory, activations, rollout engines, smallest fitting actor. */
void af_compute_memory(au_facts *f, af_shape *s, const af_mem_cfg *mc, double usable_gib);

/* facts_job.c: job, rollout_engine, trains, preference, pair_max, megatron, intent. */
void af_compute_job(au_facts *f);

/* facts_layout.c: tp_lo/tp_hi, pp_lo/pp_hi, cp_lo/cp_hi (needs the layout and the shape). */
void af_compute_layout_fixes(au_facts *f);

/* facts_fn.c: calls function `id` (from af_fn_id). */
bool af_call(au_facts *f, int id, const ax_value *a, size_t n, ax_value *out);

#endif
