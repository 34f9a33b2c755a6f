/* facts_params: the parameter count of the model its config describes. The Megatron flags state
 * most of the shape; what they leave to the checkpoint (Megatron-Bridge builds some layers from
 * the Hugging Face config) comes from the model family, said as an assumption: Gemma 4's gated
 * GeLU MLP, Qwen3.5/3.6's Gated DeltaNet layers, DeepSeek-V4's shared-KV attention and Kimi K3's
 * linear (KDA) layers. Counts follow the model cards: the activated count includes the embedding
 * and the output layer; MTP layers are counted when --mtp-num-layers asks for them (they train);
 * vision towers are not (no flag describes them). */
#include <string.h>

#include "audit/facts_int.h"
#include "base/str.h"

/* Gated DeltaNet value heads of a family per (hidden size, MoE): its checkpoints' recipes do not
 * pass the linear-attention flags. */
static double gdn_value_heads(const ak_gdn *g, double h, bool moe) {
  for (size_t i = 0; g && i < g->nvh; i++)
    if (g->vh_hidden[i] == h && g->vh_moe[i] == moe) return g->vh_heads[i];
  return NAN;
}

/* What the flags leave to the checkpoint, from the family (audit/knowledge.h) and the
 * linear-attention flags. */
void af_read_traits(au_facts *f, af_shape *s, const char *model) {
  const ak_family *fam = f->k ? ak_family_of(f->k, model) : NULL;
  af_begin(f);
  if (!s->swiglu && (af_flag_on(f, "--quick-geglu") || (fam && fam->gated_mlp))) {
    s->swiglu = true; /* a gated GeLU MLP has three matrices, like SwiGLU */
    if (!af_flag_on(f, "--quick-geglu"))
      af_assume(f, "%s: gated GeLU MLP (three matrices) from the model family; no flag says so", model);
  }
  s->latent = af_flag_numd(f, "--moe-latent-size");
  s->mtp = af_flag_numd(f, "--mtp-num-layers");
  if (isnan(s->latent)) s->latent = 0; /* None: no latent projection */
  if (isnan(s->mtp) || s->mtp < 0) s->mtp = 0; /* None: no MTP layers */
  const char *variant = af_flag_str(f, "--experimental-attention-variant");
  const ak_gdn *g = fam ? fam->gdn : NULL;
  s->gdn = (variant && !strcmp(variant, "gated_delta_net")) || g;
  if (s->gdn) {
    /* the flags, else the family's checkpoint shape */
    s->lin_freq = af_flag_num(f, "--linear-attention-freq", g ? g->freq : NAN);
    s->nk = af_flag_num(f, "--linear-num-key-heads", g ? g->key_heads : NAN);
    s->nv = af_flag_num(f, "--linear-num-value-heads", gdn_value_heads(g, s->h, s->E > 0));
    s->dk = af_flag_num(f, "--linear-key-head-dim", g ? g->key_dim : NAN);
    s->dv = af_flag_num(f, "--linear-value-head-dim", g ? g->value_dim : NAN);
    s->conv_k = af_flag_num(f, "--linear-conv-kernel-dim", g ? g->conv_kernel : NAN);
    if (!af_flag_has(f, "--linear-num-value-heads"))
      af_assume(f, "%s: Gated DeltaNet layers with the family's head counts", model);
    if (isnan(s->nv) || isnan(s->nk) || isnan(s->dk) || isnan(s->dv) || isnan(s->conv_k) ||
        isnan(s->lin_freq) || s->lin_freq < 1)
      s->gdn = false;
  }
  s->dsv4 = s->mla && fam && fam->attention && !strcmp(fam->attention, "shared_kv");
  if (s->dsv4) af_assume(f, "%s: shared-KV attention with a grouped output projection (family)", model);
  s->kda = s->mla && fam && fam->attention && !strcmp(fam->attention, "kda");
  if (s->kda) af_assume(f, "%s: linear (KDA) layers except every 4th and the last (family)", model);
}

/* One full-attention layer. */
static double attention(const af_shape *s) {
  double h = s->h, a = s->heads;
  if (s->dsv4) { /* wq_a, wq_b, one shared KV head, grouped output (8 groups) */
    double ql = s->qlora, v = s->vdim, og = 8;
    return h * ql + ql * a * v + h * v + (og * ql) * (a * v / og) + h * (og * ql);
  }
  if (s->mla) {
    double qk = s->qk + s->qkpos;
    double q = s->qlora > 0 ? h * s->qlora + s->qlora * a * qk : h * a * qk;
    double kv = h * (s->kvlora + s->qkpos) + s->kvlora * a * (s->qk + s->vdim);
    return q + kv + a * s->vdim * h + (s->kda ? h * a * s->vdim : 0); /* K3: an output gate */
  }
  return h * a * s->kvc * (s->gate ? 2 : 1) + 2 * h * s->groups * s->kvc + a * s->kvc * h;
}

/* One linear-attention layer: Gated DeltaNet or Kimi Delta Attention. */
static double linear_attention(const af_shape *s) {
  double h = s->h;
  if (s->kda) { /* q, k, v, gate, o; low-rank decay; beta */
    double a = s->heads, d = 128;
    return 5 * h * a * d + h * d + d * a * d + h * a;
  }
  double conv = 2 * s->nk * s->dk + s->nv * s->dv;
  return h * conv + h * s->nv * s->dv + 2 * h * s->nv + conv * s->conv_k + 2 * s->nv + s->dv +
         s->nv * s->dv * h;
}

/* How many of the L layers are full attention (the rest linear). */
static double full_layers(const af_shape *s) {
  if (s->kda) return floor(s->L / 4) + (fmod(s->L, 4) != 0 ? 1 : 0);
  if (s->gdn) return floor(s->L / s->lin_freq);
  return s->L;
}

void af_shape_params(af_shape *s) {
  double mf = s->swiglu ? 3 : 2, h = s->h;
  double full = full_layers(s), attn = attention(s);
  double attn_all = full * attn + (s->L - full) * ((s->gdn || s->kda) ? linear_attention(s) : 0);
  s->L_attn = full;
  double width = s->latent > 0 ? s->latent : h; /* latent MoE: experts run at the latent width */
  double expert = mf * width * s->Fe;
  double moe_dense = s->E > 0 ? mf * h * s->Fs + h * s->E + (s->latent > 0 ? 2 * h * s->latent : 0) : 0;
  double dense_layers = s->L - s->moe_layers;
  s->P_emb = s->V * h * (s->tied ? 1 : 2);
  /* an MTP layer: the eh projection, one full-attention layer with the trunk's MLP or MoE */
  bool mtp_moe = s->E > 0 && s->moe_layers > 0;
  double mtp_dense = s->mtp * (2 * h * h + attn + (mtp_moe ? moe_dense : mf * h * s->F));
  double mtp_expert = mtp_moe ? s->mtp * s->E * expert : 0;
  s->P_dense = attn_all + dense_layers * mf * h * s->F + s->moe_layers * moe_dense + s->P_emb + mtp_dense;
  s->P_expert = s->E > 0 ? s->moe_layers * s->E * expert + mtp_expert : 0;
  s->P = s->P_dense + s->P_expert;
  double active_experts = s->E > 0 ? (s->moe_layers + (mtp_moe ? s->mtp : 0)) * s->topk * expert : 0;
  s->P_active = s->P_dense + active_experts;
}
