/* facts_mem: the model's shape as its config states it, its parameter counts, and the memory
 * arithmetic of catalog section D (static bytes, activations, logits, rollout engines). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts_int.h"
#include "base/path.h"
#include "base/str.h"




/* Parses Megatron's --moe-layer-freq: an integer k (every k-th layer is MoE), a python list
 * "[0,1,1]" or an expression "[0]*3+[1]*75". Returns the number of MoE layers, or -1. */
static long moe_layers_of(const char *s, long layers) {
  if (!s || !*s) return layers;
  long k;
  if (pd_parse_long(s, &k)) return k > 0 ? layers / k + (layers % k != 0) : -1; /* no overflow */
  long count = 0, total = 0;
  const char *p = s;
  while (*p) {
    while (*p == ' ' || *p == '+') p++;
    if (*p != '[') return -1;
    const char *close = strchr(p, ']');
    if (!close) return -1;
    long ones = 0, items = 0;
    for (const char *q = p + 1; q < close; q++) {
      if (isdigit((unsigned char)*q)) {
        items++;
        if (*q != '0') ones++;
        while (q + 1 < close && isdigit((unsigned char)q[1])) q++;
      }
    }
    p = close + 1;
    long rep = 1;
    while (*p == ' ') p++;
    if (*p == '*') {
      p++;
      char *end;
      rep = strtol(p, &end, 10);
      if (end == p) return -1;
      p = end;
    }
    count += ones * rep;
    total += items * rep;
    while (*p == ' ') p++;
  }
  return total > 0 ? count : -1;
}


/* ---- the arithmetic of catalog section D ---- */


/* Static bytes on the busiest GPU of an actor of g_a GPUs (catalog D1). */
static double static_bytes(const af_shape *s, const af_mem_cfg *c, double g_a, double *params_gpu) {
  double stage = ceil(s->L / c->pp) / s->L;
  double emb_stage = c->pp > 1 ? s->V * s->h : s->P_emb;
  double pd = stage * (s->P_dense - s->P_emb) / c->tp + emb_stage / c->tp;
  double pe = stage * s->P_expert / (c->etp * c->ep);
  double d = g_a / (c->tp * c->pp);          /* DP·CP: the dense optimizer shards */
  double edp = g_a / (c->etp * c->ep * c->pp); /* experts shard over expert-DP */
  if (d < 1) d = 1;
  if (edp < 1) edp = 1;
  double keep = 1 - c->offload_frac;
  if (params_gpu) *params_gpu = pd + pe;
  /* frozen parameters keep their weights only: gradients and optimizer state exist for what
   * trains */
  return pd * (c->w_bytes + c->train_dense * (c->g_bytes + keep * c->opt_bytes / d)) +
         pe * (c->w_bytes + c->train_expert * (c->g_bytes + keep * c->opt_bytes / edp));
}

/* Activation bytes per token per layer (catalog D2), before the recompute choice. */
static double act_per_token_layer(const af_shape *s, double tp, double etp, bool sp) {
  double h = s->h, gd = s->groups * s->kvc;
  if (s->mla) gd = s->heads * s->vdim / 4;
  double attn_part = 12 * h + 4 * gd;
  double mlp;
  if (s->E > 0 && s->moe_layers > 0) {
    double frac_moe = s->moe_layers / s->L;
    double moe = s->topk * (6 * s->Fe + 2 * h) / etp + 6 * s->Fs / tp;
    double dense = 6 * s->F / tp;
    mlp = frac_moe * moe + (1 - frac_moe) * dense;
  } else {
    mlp = 6 * s->F / tp;
  }
  double a = attn_part / tp + mlp;
  if (!sp && tp > 1) a += 4 * h * (1 - 1 / tp); /* norm/residual copies stay replicated */
  return a;
}


/* ---- the shape ---- */

/* One dimension of the model: its flag (or the fact it defaults to) is its input. */
static double dim(au_facts *f, af_id id, const char *flag, double fallback) {
  af_begin(f);
  double x = af_flag_num(f, flag, fallback);
  af_setu(f, id, x);
  return x;
}

static double dim_or(au_facts *f, af_id id, const char *flag, af_id fallback) {
  af_begin(f);
  double x = af_flag_num_or(f, flag, fallback);
  af_setu(f, id, x);
  return x;
}

static void read_dims(au_facts *f, af_shape *s) {
  s->L = dim(f, AF_L, "--num-layers", NAN);
  s->h = dim(f, AF_H, "--hidden-size", NAN);
  s->F = dim(f, AF_F, "--ffn-hidden-size", NAN);
  s->heads = dim(f, AF_HEADS, "--num-attention-heads", NAN);
  s->groups = dim_or(f, AF_GROUPS, "--num-query-groups", AF_HEADS);
  af_begin(f);
  s->kvc = af_flag_has(f, "--kv-channels") ? af_flag_num(f, "--kv-channels", NAN)
                                           : af_input(f, AF_H) / af_input(f, AF_HEADS);
  af_setu(f, AF_KVC, s->kvc);
  s->E = dim(f, AF_E, "--num-experts", 0);
  af_begin(f);
  s->topk = af_input(f, AF_E) > 0 || af_flag_has(f, "--moe-router-topk") ? af_flag_numd(f, "--moe-router-topk") : 0;
  af_setu(f, AF_TOPK, s->topk);
  s->Fe = dim_or(f, AF_FE, "--moe-ffn-hidden-size", AF_F);
  s->Fs = dim(f, AF_FS, "--moe-shared-expert-intermediate-size", 0);
  af_begin(f);
  s->tied = !af_flag_on(f, "--untie-embeddings-and-output-weights");
  af_setb(f, AF_TIED, s->tied);
  af_begin(f);
  s->mla = af_flag_has(f, "--kv-lora-rank") || af_flag_on(f, "--multi-latent-attention");
  af_setb(f, AF_MLA, s->mla);
  af_begin(f);
  s->swiglu = af_flag_on(f, "--swiglu");
  s->gate = af_flag_on(f, "--attention-output-gate");
  s->qlora = af_flag_numd(f, "--q-lora-rank");
  if (isnan(s->qlora)) s->qlora = 0; /* None: queries are not compressed */
  s->kvlora = af_flag_numd(f, "--kv-lora-rank");
  s->qk = af_flag_numd(f, "--qk-head-dim");
  s->qkpos = af_flag_numd(f, "--qk-pos-emb-head-dim");
  s->vdim = af_flag_numd(f, "--v-head-dim");
}

static void read_layers(au_facts *f, af_shape *s) {
  af_begin(f);
  af_note_fact(f, AF_L);
  af_note_fact(f, AF_E);
  /* the layer count may be unknown (NaN) or absurd: never cast those to an integer */
  bool layers_ok = !isnan(s->L) && s->L >= 0 && s->L <= 1e9;
  s->moe_layers = s->E <= 0 ? 0
                  : layers_ok ? (double)moe_layers_of(af_flag_str(f, "--moe-layer-freq"), (long)s->L)
                              : NAN;
  if (s->moe_layers < 0) s->moe_layers = s->L;
  af_setu(f, AF_MOE_LAYERS, s->moe_layers);
  af_begin(f);
  af_note_fact(f, AF_L);
  /* (--use-gated-attention, which older recipes pass, is no option at the Megatron Relax pins:
     the gate is --attention-output-gate) */
  s->hybrid_attn = s->gate || af_flag_has(f, "--linear-attention-freq");
  const ak_family *fam = f->k ? ak_family_of(f->k, f->m->ctx.model ? f->m->ctx.model : f->m->ctx.name_model) : NULL;
  double ffreq = fam && fam->gdn ? fam->gdn->freq : 4; /* a hybrid of unknown family: as Qwen3.5 */
  double lfreq = af_flag_num(f, "--linear-attention-freq", ffreq);
  if (isnan(lfreq) || lfreq < 1) lfreq = ffreq;
  s->L_attn = s->hybrid_attn ? ceil(s->L / lfreq) : s->L;
  af_setb(f, AF_HYBRID_ATTN, s->hybrid_attn);
  af_setu(f, AF_L_ATTN, s->L_attn);
  if (s->hybrid_attn) {
    char *every = pd_xasprintf("%.0f", lfreq);
    af_assume(f, "hybrid linear attention: KV cache counted for every %s-th layer", every);
    free(every);
  }
}

bool af_read_shape(au_facts *f, af_shape *s) {
  const sm_model *m = f->m;
  read_dims(f, s);
  af_begin(f);
  bool vassumed = false;
  double v = af_flag_num(f, "--vocab-size", NAN);
  const ak_family *fam = f->k ? ak_family_of(f->k, m->ctx.model ? m->ctx.model : m->ctx.name_model) : NULL;
  const char *vfam = NULL;
  if (isnan(v) && fam && !isnan(fam->vocab)) v = fam->vocab;
  if (isnan(v) && f->k) v = ak_default_vocab(f->k, &vfam), vassumed = true;
  s->V = v;
  af_setn(f, AF_V, s->V);
  if (vassumed) {
    char *what = pd_xasprintf("%.0f (%s)", v, vfam ? vfam : "");
    af_assume(f, "vocabulary size unknown: assumed %s", what);
    free(what);
  }
  read_layers(f, s);
  af_read_traits(f, s, m->ctx.model ? m->ctx.model : m->ctx.name_model);
  af_begin(f);
  af_note_fact(f, AF_L);
  if (s->gdn || s->hybrid_attn) {
    double freq = s->gdn ? s->lin_freq : 4;
    s->L_attn = floor(s->L / freq);
    af_setu(f, AF_L_ATTN, s->L_attn);
  }
  bool shape_ok = !isnan(s->L) && !isnan(s->h) && !isnan(s->F) && !isnan(s->heads) && s->L > 0 &&
                  s->h > 0 && s->heads > 0 && !isnan(s->E) && !isnan(s->Fe) && !isnan(s->Fs);
  if (!shape_ok && sm_flag_get(m, "--num-layers") == NULL)
    af_assume(f, "model architecture unknown (no model config found): memory rules skipped%s", "");
  af_begin(f);
  af_note_fact(f, AF_E);
  af_setb(f, AF_MOE, s->E > 0);
  return shape_ok;
}

/* ---- memory ---- */

static void memory_static(au_facts *f, const af_shape *s, const af_mem_cfg *mc) {
  double g_a = af_num(f, AF_G_A, NAN);
  if (isnan(g_a) || g_a <= 0) return;
  double params_gpu;
  double st = static_bytes(s, mc, g_a, &params_gpu);
  af_mem_cfg resident = *mc;
  resident.offload_frac = 0;
  double st_res = static_bytes(s, &resident, g_a, NULL);
  af_setn(f, AF_PARAMS_GPU_B, params_gpu / 1e9);
  af_setn(f, AF_STATIC, st / AF_GIB);
  af_setn(f, AF_STATIC_GB, st / 1e9);
  af_setn(f, AF_STATIC_RESIDENT, st_res / AF_GIB);
  af_setn(f, AF_STATIC_RESIDENT_GB, st_res / 1e9);
  af_setn(f, AF_BYTES_PER_PARAM, params_gpu > 0 ? st / params_gpu : 0);
  af_setn(f, AF_BYTES_PER_PARAM_RESIDENT, params_gpu > 0 ? st_res / params_gpu : 0);
  /* host RAM for the offloaded optimizer (+ pinned fp32 grads) and weight backups */
  double nodes = ceil(g_a / af_num(f, AF_G_NODE, NAN));
  if (nodes < 1) nodes = 1;
  double tags = 1 + ((af_flag_on(f, "--use-kl-loss") || af_flag_numd(f, "--kl-coef") != 0) ? 1 : 0) +
                (af_flag_on(f, "--keep-old-actor") ? 1 : 0);
  bool offload = af_num(f, AF_OFFLOAD, 0) != 0;
  /* the optimizer holds only what trains (LoRA, --mtp-only-training); backups hold it all */
  double trains = mc->train_dense * s->P_dense + mc->train_expert * s->P_expert;
  if (!(trains > 0) || trains > s->P) trains = s->P;
  double host_node = (offload ? 16 * trains / nodes : 0) + 2 * s->P / nodes * tags;
  af_setu(f, AF_HOST_NEEDED, host_node / AF_GIB);
  af_setn(f, AF_BACKUP_TAGS, tags);
}

/* Activations and logits (catalog D2); returns the activation + logits bytes of the peak. */
static double memory_activations(au_facts *f, const af_shape *s, const af_mem_cfg *mc) {
  bool dyn = af_num(f, AF_DYN, 0) != 0, full = af_num(f, AF_RECOMPUTE_FULL, 0) != 0;
  double T = af_num(f, AF_T, NAN), T_lp = af_num(f, AF_T_LP, NAN);
  /* the dynamic sampler puts a sample longer than the budget in a micro-batch of its own: the
   * largest micro-batch is max(T, one whole sample over the CP ranks) */
  double longest = af_num(f, AF_CTX_EFF, NAN);
  if (isnan(longest)) longest = af_num(f, AF_RESP, NAN); /* the response alone, at least */
  double sample = longest / mc->cp;
  double tokens = dyn ? (isnan(sample) ? T : fmax(T, sample))
                      : af_num(f, AF_MBS, NAN) * af_num(f, AF_CTX_EFF, NAN);
  af_setu(f, AF_T_ACT, tokens);
  double tp = mc->tp, pp = mc->pp;
  double apl = act_per_token_layer(s, tp, mc->etp, af_num(f, AF_SP, 0) != 0);
  double Lst = ceil(s->L / pp);
  double inflight = pp > 1 ? pp : 1;
  double act_none = tokens * Lst * apl * inflight;
  double act_full = tokens * (Lst * 2 * s->h / tp * inflight + apl);
  double logits = tokens * s->V * 6 / tp;
  double logits_lp = (dyn ? (isnan(sample) ? T_lp : fmax(T_lp, sample)) : tokens) * s->V * 6 / tp;
  double chunk = af_flag_numd(f, "--log-probs-chunk-size");
  if (!isnan(chunk) && chunk > 0 && chunk < logits_lp) logits_lp = chunk * s->V * 6 / tp;
  af_setu(f, AF_ACT_NORECOMPUTE, act_none / AF_GIB);
  af_setu(f, AF_ACT_RECOMPUTE, act_full / AF_GIB);
  double act = full ? act_full : act_none;
  af_setu(f, AF_ACT, act / AF_GIB);
  if (af_flag_on(f, "--recompute-loss-function")) logits /= 2;
  af_setu(f, AF_LOGITS, logits / AF_GIB);
  af_setu(f, AF_LOGITS_LP, logits_lp / AF_GIB);
  af_setn(f, AF_OVERHEAD, 2.5);
  if (f->set[AF_STATIC] && f->v[AF_STATIC].kind == AX_NUM) {
    double st = f->v[AF_STATIC].num;
    af_setu(f, AF_PEAK, st + (act + logits) / AF_GIB + 2.5);
    af_setu(f, AF_PEAK_NORECOMPUTE, st + (act_none + logits) / AF_GIB + 2.5);
    af_setu(f, AF_PEAK_RESIDENT, f->v[AF_STATIC_RESIDENT].num + (act + logits) / AF_GIB + 2.5);
  }
  return act + logits;
}

static void memory_inputs(au_facts *f);

/* Rollout engines (catalog D3). */
/* The quantisation a text names (a method, a checkpoint path or the variable it came from, a
 * file name): its dtype and bytes per weight, or NULL. */
static const char *quant_in(const char *text, size_t n, double *bytes) {
  static const struct {
    const char *word;
    const char *dtype;
    double bytes;
  } kinds[] = {{"fp8", "fp8", 1},     {"w8a8", "int8", 1},    {"int8", "int8", 1},
               {"int4", "int4", 0.5}, {"w4a16", "int4", 0.5}, {"awq", "int4", 0.5},
               {"gptq", "int4", 0.5}, {"mxfp4", "fp4", 0.5},  {"nvfp4", "fp4", 0.5}};
  char low[512];
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < sizeof low; i++) low[k++] = (char)tolower((unsigned char)text[i]);
  low[k] = '\0';
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strstr(low, kinds[i].word)) {
      *bytes = kinds[i].bytes;
      return kinds[i].dtype;
    }
  return NULL;
}

/* What the rollout engine holds its weights in: SGLang's --sglang-quantization, else what the
 * checkpoint it loads says of itself — its path, or the variable the path came from as the
 * script writes it (`${HF_INT4}`) — else what the file name states (`-int4`, `-fp8`, assumed).
 * NULL when nothing states it. */
static const char *rollout_dtype(au_facts *f, double *bytes) {
  const char *q = af_flag_str(f, "--sglang-quantization");
  if (q) {
    const char *d = quant_in(q, strlen(q), bytes);
    if (d) return d;
    *bytes = 2;
    return "bf16"; /* a method this table does not know: counted as bf16 */
  }
  static const char *const ckpt[] = {"--sglang-hf-checkpoint", "--hf-checkpoint"};
  for (size_t k = 0; k < 2; k++) {
    const sm_flag *fl = sm_flag_get(f->m, ckpt[k]);
    af_note_flag(f, fl);
    if (!fl || !fl->nvalues) continue;
    const sm_value *v = &fl->values[0];
    const char *d = quant_in(v->text, strlen(v->text), bytes);
    const sm_file *src = v->file >= 0 && (size_t)v->file < f->m->nfiles ? &f->m->files[v->file] : NULL;
    if (!d && src && v->range.end_byte <= src->len)
      d = quant_in(src->text + v->range.start_byte, v->range.end_byte - v->range.start_byte, bytes);
    if (d) return d;
    break; /* the rollout loads the first one set */
  }
  const char *base = pd_path_base(f->m->nfiles ? f->m->files[0].path : "");
  const char *d = strstr(base, "int4") || strstr(base, "fp8") ? quant_in(base, strlen(base), bytes) : NULL;
  if (d) {
    af_assume(f, "rollout weights taken as %s from the file name", d);
    return d;
  }
  return NULL;
}

static void memory_rollout(au_facts *f, const af_shape *s, double usable_gib) {
  double kvb = s->mla ? s->L * (s->kvlora + s->qkpos) * 2 : 2 * s->L_attn * s->groups * s->kvc * 2;
  af_setn(f, AF_KV_BYTES_TOKEN, kvb);
  af_begin(f);
  memory_inputs(f);
  double wbytes;
  const char *dtype = rollout_dtype(f, &wbytes);
  af_setb(f, AF_ROLLOUT_DTYPE_STATED, dtype != NULL);
  if (!dtype) dtype = "bf16", wbytes = 2; /* nothing states it: assumed, and R-M06 says so */
  af_sets(f, AF_ROLLOUT_DTYPE, dtype);
  double wq = wbytes * s->P, gpe = af_num(f, AF_GPE, NAN), frac = af_num(f, AF_FRAC, NAN);
  af_setn(f, AF_ROLLOUT_WEIGHTS, wq / gpe / AF_GIB);
  double fr = isnan(frac) ? 0.8 : frac;
  double pool = fr * usable_gib * AF_GIB * gpe - wq;
  af_setu(f, AF_KV_TOKENS, isnan(pool) ? NAN : pool > 0 ? pool / kvb : 0);
}

/* The smallest actor GPU count that fits this layout (catalog D5). */
static void memory_fit(au_facts *f, const af_shape *s, const af_mem_cfg *mc, double usable_gib,
                       double dynamic) {
  double unit = mc->tp * mc->pp * mc->cp, eunit = mc->etp * mc->ep * mc->pp;
  double fit = NAN;
  for (double ga = 1; ga <= 4096; ga++) {
    if (fmod(ga, unit) != 0 || fmod(ga, eunit) != 0) continue;
    double st = static_bytes(s, mc, ga, NULL);
    if ((st + dynamic) / AF_GIB + 2.5 <= 0.9 * usable_gib) {
      fit = ga;
      break;
    }
  }
  af_setu(f, AF_MIN_GPUS_FIT, fit);
}

/* The memory estimate rests on the whole shape, the layout, the batch and the optimizer. */
static void memory_inputs(au_facts *f) {
  static const af_id in[] = {AF_L, AF_H, AF_F, AF_FE, AF_FS, AF_HEADS, AF_GROUPS, AF_KVC, AF_V,
                             AF_E, AF_TOPK, AF_MOE_LAYERS, AF_L_ATTN, AF_TIED, AF_MLA, AF_TP,
                             AF_PP, AF_CP, AF_EP, AF_ETP, AF_G_A, AF_G_NODE, AF_DYN, AF_T, AF_T_LP,
                             AF_MBS, AF_CTX_EFF, AF_RECOMPUTE_FULL, AF_SP, AF_GPE, AF_FRAC,
                             AF_OFFLOAD, AF_OPT_BYTES};
  af_begin(f);
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) af_note_fact(f, in[i]);
}

/* LoRA parameters of one module kind over the layers it is in (rank r), for --lora-target-modules. */
static double lora_module(const af_shape *s, const char *m, double r, bool expert) {
  double mf_out = s->swiglu ? 2 : 1, F = expert ? s->Fe : s->F;
  if (!strcmp(m, "linear_qkv")) return expert ? 0 : r * (s->h + (s->heads + 2 * s->groups) * s->kvc);
  if (!strcmp(m, "linear_proj")) return expert ? 0 : r * (s->heads * s->kvc + s->h);
  if (!strcmp(m, "linear_fc1")) return r * (s->h + mf_out * F);
  if (!strcmp(m, "linear_fc2")) return r * (F + s->h);
  return 0;
}

/* The share of the dense and expert parameters that train: LoRA trains its adapters only,
 * --mtp-only-training the MTP layers, --freeze-language-model none of the language model. */
static void trainable_shares(au_facts *f, const af_shape *s, af_mem_cfg *mc) {
  af_begin(f);
  double r = af_flag_numd(f, "--lora-rank");
  double dense_layers = s->L - s->moe_layers;
  if (af_flag_on(f, "--freeze-language-model")) {
    mc->train_dense = mc->train_expert = 0;
  } else if (!isnan(r) && r > 0) {
    const sm_flag *tm = sm_flag_get(f->m, "--lora-target-modules");
    af_note_flag(f, tm);
    static const char *const defaults[] = {"linear_qkv", "linear_proj"};
    size_t n = tm ? tm->nvalues : 2;
    double dense = 0, expert = 0;
    for (size_t i = 0; i < n; i++) {
      const char *m = tm ? tm->values[i].text : defaults[i];
      bool mlp = strstr(m, "fc") != NULL; /* fc1/fc2 sit in dense MLPs and in every expert */
      dense += (mlp ? dense_layers : s->L) * lora_module(s, m, r, false);
      if (mlp) expert += s->moe_layers * s->E * lora_module(s, m, r, true);
    }
    mc->train_dense = s->P_dense > 0 ? fmin(1, dense / s->P_dense) : 0;
    mc->train_expert = s->P_expert > 0 ? fmin(1, expert / s->P_expert) : 0;
  } else if (af_flag_on(f, "--mtp-only-training")) {
    double mtp = af_flag_num(f, "--mtp-num-layers", 1);
    if (isnan(mtp) || mtp < 1) mtp = 1;
    double layer = (s->P_dense - s->P_emb) / s->L + 2 * s->h * s->h; /* + the eh projection */
    mc->train_dense = s->P_dense > 0 ? fmin(1, mtp * layer / s->P_dense) : 0;
    mc->train_expert = s->moe_layers > 0 ? fmin(1, mtp / s->moe_layers) : 0;
  } else if (af_flag_has(f, "--only-train-params-name-list") ||
             af_flag_has(f, "--freeze-params-name-list")) {
    af_assume(f, "%s: counted as if every parameter trains (an upper bound)",
              af_flag_has(f, "--only-train-params-name-list") ? "--only-train-params-name-list"
                                                              : "--freeze-params-name-list");
  }
  af_setn(f, AF_P_TRAINABLE_B,
          (mc->train_dense * s->P_dense + mc->train_expert * s->P_expert) / 1e9);
}

void af_compute_memory(au_facts *f, af_shape *s, const af_mem_cfg *mcfg, double usable_gib) {
  memory_inputs(f);
  af_shape_params(s);
  af_mem_cfg train = *mcfg, *mc = &train;
  trainable_shares(f, s, mc);
  memory_inputs(f);
  af_setn(f, AF_P, s->P);
  af_setn(f, AF_P_B, s->P / 1e9);
  af_setn(f, AF_P_ACTIVE_B, s->P_active / 1e9);
  af_setn(f, AF_P_EXPERT, s->P_expert);
  af_setn(f, AF_P_DENSE, s->P_dense);
  af_setn(f, AF_LAYER_PARAMS, (s->P - s->P_emb) / s->L);
  memory_static(f, s, mc);
  double dynamic = memory_activations(f, s, mc);
  memory_rollout(f, s, usable_gib);
  if (!isnan(usable_gib)) memory_fit(f, s, mc, usable_gib, dynamic);
}
