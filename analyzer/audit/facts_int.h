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
} af_dyn;

struct au_facts {
  const sm_model *m;
  ax_value v[AF_COUNT];
  bool set[AF_COUNT];
  af_dyn *dyn; /* res_<role> */
  size_t ndyn, capdyn;
  char **strs; /* strings owned by the facts */
  size_t nstrs, capstrs;
  char **assumed;
  size_t nassumed, capassumed;
};

void af_set(au_facts *f, af_id id, ax_value v);
void af_setn(au_facts *f, af_id id, double x);
void af_setb(au_facts *f, af_id id, bool b);
void af_sets(au_facts *f, af_id id, const char *s); /* copied; NULL = null */
void af_setu(au_facts *f, af_id id, double x);      /* NAN = null */
const char *af_own(au_facts *f, char *s);           /* s is freed with the facts */
void af_assume(au_facts *f, const char *fmt, const char *arg);

/* A flag's number: fallback when the flag is absent, NAN when present but not a number. */
double af_flag_num(const sm_model *m, const char *name, double fallback);
/* The last value assigned to NAME anywhere in the script's files (caller frees), or NULL. */
char *af_env_scan(const sm_model *m, const char *name);

/* The model's shape as its config states it. */
typedef struct {
  double L, h, F, Fe, Fs, heads, groups, kvc, V, E, topk, moe_layers;
  bool tied, swiglu, gate, mla, hybrid_attn;
  double qlora, kvlora, qk, qkpos, vdim;
  double P, P_dense, P_expert, P_emb, P_active, L_attn;
} af_shape;

/* Bytes per parameter and the layout, for the static-memory arithmetic. */
typedef struct {
  double tp, pp, cp, ep, etp;
  double w_bytes, g_bytes, opt_bytes; /* per param: weights, grads, master+moments */
  double offload_frac;                /* share of optimizer state on the host */
} af_mem_cfg;

/* facts_mem.c: reads the shape and sets its facts; false when the architecture is unknown. */
bool af_read_shape(au_facts *f, af_shape *s);
/* Parameter counts, static memory, activations, rollout engines, smallest fitting actor. */
void af_compute_memory(au_facts *f, af_shape *s, const af_mem_cfg *mc, const pd_device *g);

/* facts_fn.c: calls function `id` (from af_fn_id). */
bool af_call(au_facts *f, int id, const ax_value *a, size_t n, ax_value *out);

#endif
