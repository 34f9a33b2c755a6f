#include "analyzer/audit_facts.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/util.h"

#define GIB 1073741824.0

static const af_gpu gpus[] = {
    {"H20-96G", "H20 96GB", 95.0, 148, false},
    {"H20-141G", "H20 141GB", 140.0, 148, false},
    {"H800-80G", "H800 80GB", 79.5, 989, false},
    {"H100-80G", "H100 80GB", 79.5, 989, false},
    {"A100-80G", "A100 80GB", 79.0, 312, false},
    {"A100-40G", "A100 40GB", 39.5, 312, false},
    {"H200-141G", "H200 141GB", 140.0, 989, false},
    {"B200-192G", "B200 192GB", 178.0, 2250, true},
    {"L20-48G", "L20 48GB", 45.0, 119.5, false},
};

const af_gpu *af_gpu_find(const char *name) {
  if (!name) return NULL;
  /* upper-case, separators collapsed to '-': "a100 40gb" -> "A100-40GB" */
  char up[64];
  size_t n = 0;
  for (const char *p = name; *p && n + 1 < sizeof up; p++) {
    if (isalnum((unsigned char)*p)) up[n++] = (char)toupper((unsigned char)*p);
    else if (n && up[n - 1] != '-') up[n++] = '-';
  }
  up[n] = '\0';
  const af_gpu *best = NULL;
  for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
    size_t k = strcspn(gpus[i].id, "-");
    if (strncmp(up, gpus[i].id, k) != 0 || isalnum((unsigned char)up[k])) continue;
    if (!best) best = &gpus[i];
    /* a memory size after the model picks the variant (A100 40GB, H20 141GB) */
    const char *q = up + k;
    while (*q && !isdigit((unsigned char)*q)) q++;
    long mem = strtol(q, NULL, 10);
    if (mem > 0 && mem == strtol(gpus[i].id + k + 1, NULL, 10)) return &gpus[i];
  }
  return best;
}

typedef struct {
  char *name;
  ax_value v;
} fact;

struct au_facts {
  const sm_model *m;
  fact *facts;
  size_t n, cap;
  size_t *slot;              /* fact index + 1 by name hash; 0 = empty (rules look facts up
                                 by name thousands of times per script) */
  size_t nslots;             /* a power of two, at least twice n */
  char **strs; /* strings owned by the facts */
  size_t nstrs, capstrs;
  char **assumed;
  size_t nassumed, capassumed;
};

static const char *own(au_facts *f, char *s) {
  *PD_PUSH(f->strs, f->nstrs, f->capstrs) = s;
  return s;
}

/* The slot that holds `name`, or the empty one where it would go; nslots is never 0 here. */
static size_t slot_of(const au_facts *f, const char *name) {
  size_t k = pd_hash_str(name) & (f->nslots - 1);
  while (f->slot[k] && strcmp(f->facts[f->slot[k] - 1].name, name) != 0) k = (k + 1) & (f->nslots - 1);
  return k;
}

static void set(au_facts *f, const char *name, ax_value v) {
  if ((f->n + 1) * 2 > f->nslots) { /* grow (also the first time) and re-slot every fact */
    free(f->slot);
    f->nslots = f->nslots ? f->nslots * 2 : 256;
    f->slot = pd_xcalloc(f->nslots, sizeof *f->slot);
    for (size_t i = 0; i < f->n; i++) f->slot[slot_of(f, f->facts[i].name)] = i + 1;
  }
  size_t k = slot_of(f, name);
  if (f->slot[k]) {
    f->facts[f->slot[k] - 1].v = v;
    return;
  }
  fact *x = PD_PUSH(f->facts, f->n, f->cap);
  x->name = pd_xstrdup(name);
  x->v = v;
  f->slot[k] = f->n;
}

static void setn(au_facts *f, const char *name, double x) { set(f, name, ax_num(x)); }
static void setb(au_facts *f, const char *name, bool b) { set(f, name, ax_bool(b)); }
static void sets(au_facts *f, const char *name, const char *s) {
  set(f, name, s ? ax_str(own(f, pd_xstrdup(s))) : ax_null());
}
/* A number that may be unknown (NAN). */
static void setu(au_facts *f, const char *name, double x) {
  set(f, name, isnan(x) ? ax_null() : ax_num(x));
}

static void assume(au_facts *f, const char *fmt, const char *arg) {
  *PD_PUSH(f->assumed, f->nassumed, f->capassumed) = pd_xasprintf(fmt, arg ? arg : "");
}

bool af_get(const au_facts *f, const char *name, ax_value *out) {
  size_t k = f->nslots ? slot_of(f, name) : 0;
  if (f->nslots && f->slot[k]) {
    *out = f->facts[f->slot[k] - 1].v;
    return true;
  }
  *out = ax_null();
  return false;
}

double af_num(const au_facts *f, const char *name, double fallback) {
  ax_value v;
  if (af_get(f, name, &v) && v.kind == AX_NUM) return v.num;
  if (v.kind == AX_BOOL) return v.b;
  return fallback;
}

const char *af_str(const au_facts *f, const char *name) {
  ax_value v;
  return af_get(f, name, &v) && v.kind == AX_STR ? v.str : NULL;
}

size_t af_count(const au_facts *f) { return f->n; }
const char *af_name(const au_facts *f, size_t i, ax_value *value) {
  if (i >= f->n) return NULL;
  if (value) *value = f->facts[i].v;
  return f->facts[i].name;
}
size_t af_nassumptions(const au_facts *f) { return f->nassumed; }
const char *af_assumption(const au_facts *f, size_t i) {
  return i < f->nassumed ? f->assumed[i] : NULL;
}

void af_free(au_facts *f) {
  if (!f) return;
  for (size_t i = 0; i < f->n; i++) free(f->facts[i].name);
  free(f->facts);
  free(f->slot);
  for (size_t i = 0; i < f->nstrs; i++) free(f->strs[i]);
  free(f->strs);
  for (size_t i = 0; i < f->nassumed; i++) free(f->assumed[i]);
  free(f->assumed);
  free(f);
}

/* ---- flags ---- */

/* A flag's number: fallback when the flag is absent, NAN when present but not a number. */
static double fnum(const sm_model *m, const char *name, double fallback) {
  if (!sm_flag_get(m, name)) return fallback;
  double x;
  return sm_flag_double(m, name, &x) ? x : NAN;
}

static bool fon(const sm_model *m, const char *name) { return sm_flag_on(m, name); }

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

/* ---- environment variables the script sets ---- */

/* True when byte offset off of file fi lies inside a --train-env-vars value: those variables
 * reach the training actors only, not the global runtime env. */
static bool in_train_env(const sm_model *m, size_t fi, uint32_t off) {
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    if (fl->file == (int)fi && !strcmp(fl->name, "--train-env-vars") && off >= fl->full.start_byte &&
        off < fl->full.end_byte)
      return true;
  }
  return false;
}

/* The last value assigned to NAME anywhere in the script's files: `NAME=v`, `export NAME=v`,
 * or a JSON member "NAME": "v" (RUNTIME_ENV_JSON, with or without \" escapes). */
static char *env_scan(const sm_model *m, const char *name) {
  char *best = NULL;
  size_t nlen = strlen(name);
  for (size_t fi = 0; fi < m->nfiles; fi++) {
    const char *t = m->files[fi].text;
    if (!t) continue;
    for (const char *p = strstr(t, name); p; p = strstr(p + 1, name)) {
      if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
      const char *q = p + nlen;
      if (isalnum((unsigned char)*q) || *q == '_') continue;
      /* skip the comment lines: a commented-out export does not run */
      const char *ls = p;
      while (ls > t && ls[-1] != '\n') ls--;
      while (*ls == ' ' || *ls == '\t') ls++;
      if (*ls == '#') continue;
      if (in_train_env(m, fi, (uint32_t)(p - t))) continue;
      if (*q == '\\') q++;
      if (*q == '"') q++;
      if (*q == '=') {
        q++;
      } else {
        while (*q == ' ') q++;
        if (*q != ':') continue;
        q++;
        while (*q == ' ') q++;
      }
      if (*q == '\\') q++;
      char quote = 0;
      if (*q == '"' || *q == '\'') quote = *q++;
      const char *start = q;
      while (*q && *q != '\n' && *q != quote && *q != '\\' && (quote || (*q != ' ' && *q != ';')) &&
             *q != ',' && *q != '}')
        q++;
      free(best);
      best = pd_xstrndup(start, (size_t)(q - start));
    }
  }
  return best;
}

/* ---- the model's shape and the memory arithmetic of catalog section D ---- */

typedef struct {
  double L, h, F, Fe, Fs, heads, groups, kvc, V, E, topk, moe_layers;
  bool tied, swiglu, gate, mla, hybrid_attn;
  double qlora, kvlora, qk, qkpos, vdim;
  double P, P_dense, P_expert, P_emb, P_active, L_attn;
} shape;

static void shape_params(shape *s) {
  double attn;
  if (s->mla) {
    double qk = s->qk + s->qkpos;
    double q = s->qlora > 0 ? s->h * s->qlora + s->qlora * s->heads * qk : s->h * s->heads * qk;
    double kv = s->h * (s->kvlora + s->qkpos) + s->kvlora * s->heads * (s->qk + s->vdim);
    attn = q + kv + s->heads * s->vdim * s->h;
  } else {
    attn = s->h * s->heads * s->kvc * (s->gate ? 2 : 1) + 2 * s->h * s->groups * s->kvc +
           s->heads * s->kvc * s->h;
  }
  double mf = s->swiglu ? 3 : 2;
  double dense_layers = s->L - s->moe_layers;
  s->P_emb = s->V * s->h * (s->tied ? 1 : 2);
  double moe_dense = s->E > 0 ? mf * s->h * s->Fs + s->h * s->E : 0;
  s->P_dense = s->L * attn + dense_layers * mf * s->h * s->F + s->moe_layers * moe_dense + s->P_emb;
  s->P_expert = s->E > 0 ? s->moe_layers * s->E * mf * s->h * s->Fe : 0;
  s->P = s->P_dense + s->P_expert;
  s->P_active = s->P_dense + (s->E > 0 ? s->moe_layers * s->topk * mf * s->h * s->Fe : 0);
}

/* Default vocabulary of a model family when the config does not pass --vocab-size. */
static double family_vocab(const char *model, bool *assumed) {
  static const struct { const char *prefix; double v; } tab[] = {
      {"qwen35", 248320}, {"qwen3.5", 248320}, {"qwen36", 248320}, {"qwen3.6", 248320},
      {"qwen38", 248320}, {"qwen3-omni", 152064}, {"qwen25", 152064}, {"qwen3", 151936},
      {"qwen2", 151936}, {"llama3", 128256}, {"glm5", 154880}, {"kimi", 163840},
      {"deepseek", 129280}, {"gemma4", 262144}, {"dotsocr", 151936},
  };
  *assumed = false;
  if (model) {
    char low[128];
    size_t n = 0;
    for (const char *p = model; *p && n + 1 < sizeof low; p++) low[n++] = (char)tolower((unsigned char)*p);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
      if (pd_str_starts(low, tab[i].prefix)) return tab[i].v;
  }
  *assumed = true;
  return 151936;
}

typedef struct {
  double tp, pp, cp, ep, etp;
  double w_bytes, g_bytes, opt_bytes; /* per param: weights, grads, master+moments */
  double offload_frac;                /* share of optimizer state on the host */
} mem_cfg;

/* Static bytes on the busiest GPU of an actor of g_a GPUs (catalog D1). */
static double static_bytes(const shape *s, const mem_cfg *c, double g_a, double *params_gpu) {
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
  return pd * (c->w_bytes + c->g_bytes + keep * c->opt_bytes / d) +
         pe * (c->w_bytes + c->g_bytes + keep * c->opt_bytes / edp);
}

/* Activation bytes per token per layer (catalog D2), before the recompute choice. */
static double act_per_token_layer(const shape *s, double tp, double etp, bool sp) {
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

static void compute(au_facts *f, const char *gpu_opt) {
  const sm_model *m = f->m;
  const sm_context *c = &m->ctx;

  /* GPU */
  const char *gname = gpu_opt ? gpu_opt : c->gpu;
  const af_gpu *g = af_gpu_find(gname);
  bool gpu_assumed = !gpu_opt && (c->gpu_assumed || !c->gpu);
  if (!g) {
    if (gname && !gpu_assumed) assume(f, "GPU '%s' unknown: memory taken as H20 96GB", gname);
    g = &gpus[0];
    gpu_assumed = true;
  }
  if (gpu_assumed) assume(f, "GPU assumed %s", g->display);
  sets(f, "gpu", g->id);
  sets(f, "gpu_display", g->display);
  setb(f, "gpu_assumed", gpu_assumed);
  setn(f, "M", g->usable_gib);
  setb(f, "blackwell", g->blackwell);
  bool npu = c->name_device && (!strcmp(c->name_device, "npu"));
  setb(f, "npu", npu);
  sets(f, "device", c->name_device);

  /* layout */
  double tp = fnum(m, "--tensor-model-parallel-size", 1);
  double pp = fnum(m, "--pipeline-model-parallel-size", 1);
  double cp = fnum(m, "--context-parallel-size", 1);
  double ep = fnum(m, "--expert-model-parallel-size", 1);
  bool etp_set = sm_flag_get(m, "--expert-tensor-parallel-size") != NULL;
  double etp = etp_set ? fnum(m, "--expert-tensor-parallel-size", 1) : tp;
  setu(f, "tp", tp);
  setu(f, "pp", pp);
  setu(f, "cp", cp);
  setu(f, "ep", ep);
  setu(f, "etp", etp);
  setb(f, "etp_set", etp_set);
  bool vpp = sm_flag_get(m, "--num-layers-per-virtual-pipeline-stage") ||
             sm_flag_get(m, "--num-virtual-stages-per-pipeline-rank") ||
             sm_flag_get(m, "--pipeline-model-parallel-layout");
  setb(f, "vpp", vpp);
  setb(f, "dyn_cp", fon(m, "--dynamic-context-parallel"));

  /* mode */
  bool hybrid = fon(m, "--hybrid");
  bool fa = fon(m, "--fully-async");
  bool co = fon(m, "--colocate");
  const char *mode = hybrid ? "hybrid" : (fa && co) ? "conflict" : fa ? "fully-async" : co ? "colocate" : "none";
  sets(f, "mode", mode);
  setb(f, "hybrid", hybrid);
  setb(f, "fully_async", fa && !hybrid);
  setb(f, "colocate", co && !hybrid && !fa);
  setb(f, "async", hybrid || fa);

  /* resources */
  const sm_flag *res = sm_flag_get(m, "--resource");
  double g_a = NAN, g_r = NAN, g_total = NAN;
  bool res_ok = res && res->json && json_is_object(res->json);
  setb(f, "resource_ok", res_ok);
  if (res_ok) {
    const char *role;
    json_t *v;
    double sum = 0, mx = 0;
    bool shapes_ok = true;
    json_object_foreach(res->json, role, v) {
      json_t *n = json_array_get(v, 1);
      if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 0)) ||
          json_integer_value(json_array_get(v, 0)) != 1 || !json_is_integer(n)) {
        shapes_ok = false;
        continue;
      }
      double x = (double)json_integer_value(n);
      if (!strcmp(role, "actor")) g_a = x;
      if (!strcmp(role, "rollout")) g_r = x;
      sum += x;
      if (x > mx) mx = x;
      char key[64];
      snprintf(key, sizeof key, "res_%s", role);
      setn(f, key, x);
    }
    setb(f, "resource_shapes_ok", shapes_ok);
    g_total = co && !fa && !hybrid ? mx : sum;
  }
  if (co && !fa && !hybrid && isnan(g_r) && !isnan(g_a)) g_r = g_a;
  setu(f, "g_a", g_a);
  setu(f, "g_r", g_r);
  setu(f, "g_total", g_total);
  double g_node = fnum(m, "--num-gpus-per-node", 8);
  setu(f, "g_node", g_node);
  setb(f, "g_node_set", sm_flag_get(m, "--num-gpus-per-node") != NULL);
  setu(f, "name_gpus", c->name_gpus > 0 ? (double)c->name_gpus : NAN);
  double dp = g_a / (tp * pp * cp);
  setu(f, "dp", dp);
  setu(f, "edp", g_a / (etp * ep * pp));
  double gpe = fnum(m, "--rollout-num-gpus-per-engine", 1);
  setu(f, "gpe", gpe);
  setu(f, "engines", floor(g_r / gpe));
  setu(f, "spp", fnum(m, "--sglang-pipeline-parallel-size", 1));
  setu(f, "rollout_ratio", g_r / g_a);

  /* model shape */
  shape s = {0};
  s.L = fnum(m, "--num-layers", NAN);
  s.h = fnum(m, "--hidden-size", NAN);
  s.F = fnum(m, "--ffn-hidden-size", NAN);
  s.heads = fnum(m, "--num-attention-heads", NAN);
  s.groups = fnum(m, "--num-query-groups", s.heads);
  s.kvc = fnum(m, "--kv-channels", s.h / s.heads);
  s.E = fnum(m, "--num-experts", 0);
  s.topk = fnum(m, "--moe-router-topk", s.E > 0 ? 2 : 0);
  s.Fe = fnum(m, "--moe-ffn-hidden-size", s.F);
  s.Fs = fnum(m, "--moe-shared-expert-intermediate-size", 0);
  s.tied = !fon(m, "--untie-embeddings-and-output-weights");
  s.swiglu = fon(m, "--swiglu");
  s.gate = fon(m, "--attention-output-gate");
  s.mla = sm_flag_get(m, "--kv-lora-rank") != NULL || fon(m, "--multi-latent-attention");
  s.qlora = fnum(m, "--q-lora-rank", 0);
  s.kvlora = fnum(m, "--kv-lora-rank", 512);
  s.qk = fnum(m, "--qk-head-dim", 128);
  s.qkpos = fnum(m, "--qk-pos-emb-head-dim", 64);
  s.vdim = fnum(m, "--v-head-dim", 128);
  bool vassumed = false;
  double v = fnum(m, "--vocab-size", NAN);
  if (isnan(v)) v = family_vocab(c->model ? c->model : c->name_model, &vassumed);
  s.V = v;
  if (vassumed) assume(f, "vocabulary size unknown: assumed %s (Qwen)", "151,936");
  /* the layer count may be unknown (NaN) or absurd: never cast those to an integer */
  bool layers_ok = !isnan(s.L) && s.L >= 0 && s.L <= 1e9;
  s.moe_layers = s.E <= 0 ? 0
                 : layers_ok ? (double)moe_layers_of(sm_flag_str(m, "--moe-layer-freq"), (long)s.L)
                             : NAN;
  if (s.moe_layers < 0) s.moe_layers = s.L;
  s.hybrid_attn = fon(m, "--use-gated-attention") || s.gate || sm_flag_get(m, "--linear-attention-freq");
  double lfreq = fnum(m, "--linear-attention-freq", 4);
  if (isnan(lfreq) || lfreq < 1) lfreq = 4;
  s.L_attn = s.hybrid_attn ? ceil(s.L / lfreq) : s.L;
  if (s.hybrid_attn) assume(f, "hybrid linear attention: KV cache counted for every %s-th layer", "4");
  bool shape_ok = !isnan(s.L) && !isnan(s.h) && !isnan(s.F) && !isnan(s.heads) && s.L > 0 &&
                  s.h > 0 && s.heads > 0 && !isnan(s.E) && !isnan(s.Fe) && !isnan(s.Fs);
  if (!shape_ok && sm_flag_get(m, "--num-layers") == NULL)
    assume(f, "model architecture unknown (no model config found): memory rules skipped%s", "");
  setb(f, "moe", s.E > 1 || c->moe);
  setn(f, "E", s.E);
  setu(f, "topk", s.topk);
  setu(f, "L", s.L);
  setu(f, "h", s.h);
  setu(f, "F", s.F);
  setu(f, "Fe", s.Fe);
  setu(f, "Fs", s.Fs);
  setu(f, "heads", s.heads);
  setu(f, "groups", s.groups);
  setu(f, "kvc", s.kvc);
  setn(f, "V", s.V);
  setb(f, "tied", s.tied);
  setu(f, "moe_layers", s.moe_layers);
  setu(f, "L_attn", s.L_attn);
  setb(f, "mla", s.mla);
  setb(f, "hybrid_attn", s.hybrid_attn);
  sets(f, "model", c->model ? c->model : c->name_model);
  sets(f, "modality", c->modality ? c->modality : "text");
  setb(f, "mm", c->modality && strcmp(c->modality, "text") != 0);
  /* natively multimodal HF configs (text_config / thinker_config) */
  const char *mname = c->model ? c->model : "";
  bool hf_mm = strstr(mname, "vl") || strstr(mname, "VL") || strstr(mname, "omni") ||
               pd_str_starts(mname, "qwen35") || pd_str_starts(mname, "qwen36") ||
               pd_str_starts(mname, "qwen38") || pd_str_starts(mname, "qwen3.5");
  setb(f, "hf_multimodal", hf_mm);

  /* batching */
  double rbs = fnum(m, "--rollout-batch-size", NAN), n = fnum(m, "--n-samples-per-prompt", 1);
  double gbs = fnum(m, "--global-batch-size", NAN);
  if (isnan(rbs) && !isnan(gbs) && sm_flag_get(m, "--rollout-batch-size") == NULL) rbs = floor(gbs / n);
  double S = rbs * n;
  if (isnan(gbs) && sm_flag_get(m, "--global-batch-size") == NULL) {
    double steps = fnum(m, "--num-steps-per-rollout", NAN);
    gbs = isnan(steps) ? S : floor(S / steps);
  }
  setu(f, "rbs", rbs);
  setu(f, "n", n);
  setu(f, "gbs", gbs);
  setu(f, "S", S);
  double os = fnum(m, "--over-sampling-batch-size", rbs);
  setu(f, "os", os);
  bool dyn = fon(m, "--use-dynamic-batch-size");
  setb(f, "dyn", dyn);
  double T = fnum(m, "--max-tokens-per-gpu", NAN);
  setu(f, "T", T);
  double T_lp = fnum(m, "--log-probs-max-tokens-per-gpu", T);
  setu(f, "T_lp", T_lp);
  double resp = fnum(m, "--rollout-max-response-len", NAN);
  double prompt = fnum(m, "--rollout-max-prompt-len", NAN);
  double ctx = fnum(m, "--rollout-max-context-len", NAN);
  setu(f, "resp", resp);
  setu(f, "prompt", prompt);
  setu(f, "ctx", ctx);
  double ctx_eff = !isnan(ctx) ? ctx : (!isnan(prompt) && !isnan(resp)) ? prompt + resp : NAN;
  setu(f, "ctx_eff", ctx_eff);
  double mbs = fnum(m, "--micro-batch-size", 1);
  setu(f, "mbs", mbs);
  setu(f, "num_iters", fnum(m, "--num-iters-per-train-update", 1));
  setu(f, "staleness", fnum(m, "--max-staleness", 0));
  double frac = fnum(m, "--sglang-mem-fraction-static", NAN);
  setu(f, "frac", frac);

  /* optimizer bytes per parameter (catalog D1) */
  bool pa = fon(m, "--use-precision-aware-optimizer");
  bool offload = fon(m, "--optimizer-cpu-offload");
  setb(f, "offload", offload);
  setb(f, "offload_trio", offload && pa && fon(m, "--overlap-cpu-optimizer-d2h-h2d"));
  const char *mg = sm_flag_str(m, "--main-grads-dtype");
  const char *ea = sm_flag_str(m, "--exp-avg-dtype");
  const char *eas = sm_flag_str(m, "--exp-avg-sq-dtype");
  mem_cfg mc = {tp, pp, cp, ep, etp, 2, 4, 12, 0};
  if (fon(m, "--grad-reduce-in-bf16") || (pa && mg && !strcmp(mg, "bf16"))) mc.g_bytes = 2;
  double master = (pa && !fon(m, "--no-store-param-remainders")) ? 2 : 4;
  double m1 = 4, m2 = 4;
  if (pa && ea) m1 = !strcmp(ea, "fp8") ? 1 : strcmp(ea, "fp32") ? 2 : 4;
  if (pa && eas) m2 = !strcmp(eas, "fp8") ? 1 : strcmp(eas, "fp32") ? 2 : 4;
  mc.opt_bytes = master + m1 + m2;
  double off_frac = offload ? fnum(m, "--optimizer-offload-fraction", 1) : 0;
  if (isnan(off_frac)) off_frac = 1;
  mc.offload_frac = off_frac;
  setn(f, "opt_bytes", mc.opt_bytes);
  /* colocate turns both offloads on unless the script says otherwise (hybrid defaults off) */
  bool co_eff = co && !fa && !hybrid;
  bool off_train = fon(m, "--offload") || fon(m, "--offload-train") ||
                   (co_eff && !fon(m, "--no-offload-train"));
  bool off_roll = fon(m, "--offload") || fon(m, "--offload-rollout") ||
                  (co_eff && !fon(m, "--no-offload-rollout"));
  setb(f, "offload_train", off_train);
  setb(f, "offload_rollout", off_roll);
  {
    char *a = env_scan(m, "PYTORCH_CUDA_ALLOC_CONF");
    if (!a) a = env_scan(m, "PYTORCH_ALLOC_CONF");
    sets(f, "alloc_global", a ? a : "");
    free(a);
    const sm_flag *tev = sm_flag_get(m, "--train-env-vars");
    json_t *x = tev && tev->json ? json_object_get(tev->json, "PYTORCH_CUDA_ALLOC_CONF") : NULL;
    if (!x && tev && tev->json) x = json_object_get(tev->json, "PYTORCH_ALLOC_CONF");
    sets(f, "alloc_train", json_is_string(x) ? json_string_value(x) : "");
  }
  {
    const char *base = m->nfiles ? m->files[0].path : "";
    const char *sl = base ? strrchr(base, '/') : NULL;
    base = sl ? sl + 1 : base ? base : "";
    setb(f, "debug_script", strstr(base, "debug") || strstr(base, "profil") || strstr(base, "smoke") ||
                                strstr(base, "observer") || strstr(base, "continuity"));
    sets(f, "script_name", base);
  }

  bool full = false, selective = false;
  const char *gran = sm_flag_str(m, "--recompute-granularity");
  double rnl = fnum(m, "--recompute-num-layers", 1);
  if (gran && !strcmp(gran, "full") && !(rnl == 0)) full = true;
  if ((gran && !strcmp(gran, "selective")) || fon(m, "--recompute-activations")) selective = true;
  setb(f, "recompute_full", full);
  setb(f, "recompute_selective", selective);
  bool sp = fon(m, "--sequence-parallel") && tp > 1;
  setb(f, "sp", sp);

  bool layout_ok = !isnan(tp) && !isnan(pp) && !isnan(cp) && !isnan(ep) && !isnan(etp) && tp > 0 &&
                   pp > 0 && cp > 0 && ep > 0 && etp > 0;
  if (shape_ok && layout_ok) {
    shape_params(&s);
    setn(f, "P", s.P);
    setn(f, "P_b", s.P / 1e9);
    setn(f, "P_active_b", s.P_active / 1e9);
    setn(f, "P_expert", s.P_expert);
    setn(f, "P_dense", s.P_dense);
    setn(f, "layer_params", (s.P - s.P_emb) / s.L);
    if (!isnan(g_a) && g_a > 0) {
      double params_gpu;
      double st = static_bytes(&s, &mc, g_a, &params_gpu);
      mem_cfg resident = mc;
      resident.offload_frac = 0;
      double st_res = static_bytes(&s, &resident, g_a, NULL);
      setn(f, "params_gpu_b", params_gpu / 1e9);
      setn(f, "static", st / GIB);
      setn(f, "static_gb", st / 1e9);
      setn(f, "static_resident", st_res / GIB);
      setn(f, "static_resident_gb", st_res / 1e9);
      setn(f, "bytes_per_param", params_gpu > 0 ? st / params_gpu : 0);
      setn(f, "bytes_per_param_resident", params_gpu > 0 ? st_res / params_gpu : 0);
      /* host RAM for the offloaded optimizer (+ pinned fp32 grads) and weight backups */
      double nodes = ceil(g_a / g_node);
      if (nodes < 1) nodes = 1;
      double tags = 1 + ((fon(m, "--use-kl-loss") || fnum(m, "--kl-coef", 0) != 0) ? 1 : 0) +
                    (fon(m, "--keep-old-actor") ? 1 : 0);
      double host_node = (offload ? 16 * s.P / nodes : 0) + 2 * s.P / nodes * tags;
      setn(f, "host_needed", host_node / GIB);
      setn(f, "backup_tags", tags);
    }
    /* activations (catalog D2) */
    double tokens = dyn ? T : mbs * ctx_eff;
    double apl = act_per_token_layer(&s, tp, etp, sp);
    double Lst = ceil(s.L / pp);
    double inflight = pp > 1 ? pp : 1;
    double act_none = tokens * Lst * apl * inflight;
    double act_full = tokens * (Lst * 2 * s.h / tp * inflight + apl);
    double logits = tokens * s.V * 6 / tp;
    double logits_lp = (dyn ? T_lp : tokens) * s.V * 6 / tp;
    double chunk = fnum(m, "--log-probs-chunk-size", -1);
    if (!isnan(chunk) && chunk > 0 && chunk < logits_lp) logits_lp = chunk * s.V * 6 / tp;
    setu(f, "act_norecompute", act_none / GIB);
    setu(f, "act_recompute", act_full / GIB);
    double act = full ? act_full : act_none;
    setu(f, "act", act / GIB);
    if (fon(m, "--recompute-loss-function")) logits /= 2;
    setu(f, "logits", logits / GIB);
    setu(f, "logits_lp", logits_lp / GIB);
    setn(f, "overhead", 2.5);
    ax_value stv;
    if (af_get(f, "static", &stv) && stv.kind == AX_NUM) {
      setu(f, "peak", stv.num + (act + logits) / GIB + 2.5);
      setu(f, "peak_norecompute", stv.num + (act_none + logits) / GIB + 2.5);
      ax_value res_v;
      af_get(f, "static_resident", &res_v);
      setu(f, "peak_resident", res_v.num + (act + logits) / GIB + 2.5);
    }
    /* rollout engines (catalog D3) */
    double kvb = s.mla ? s.L * (s.kvlora + s.qkpos) * 2 : 2 * s.L_attn * s.groups * s.kvc * 2;
    setn(f, "kv_bytes_token", kvb);
    double wq = 2 * s.P;
    setn(f, "rollout_weights", wq / gpe / GIB);
    double fr = isnan(frac) ? 0.8 : frac;
    double pool = fr * g->usable_gib * GIB * gpe - wq;
    setn(f, "kv_tokens", pool > 0 ? pool / kvb : 0);
    /* smallest actor GPU count that fits this layout (catalog D5) */
    double unit = tp * pp * cp, eunit = etp * ep * pp;
    double fit = NAN;
    for (double ga = 1; ga <= 4096; ga++) {
      if (fmod(ga, unit) != 0 || fmod(ga, eunit) != 0) continue;
      double st = static_bytes(&s, &mc, ga, NULL);
      if ((st + act + logits) / GIB + 2.5 <= 0.9 * g->usable_gib) {
        fit = ga;
        break;
      }
    }
    setu(f, "min_gpus_fit", fit);
  }
}

au_facts *af_compute(const sm_model *m, const char *gpu) {
  au_facts *f = pd_xcalloc(1, sizeof *f);
  f->m = m;
  compute(f, gpu);
  return f;
}

/* ---- the fact environment ---- */

static const char *const fact_names[] = {
    "gpu", "gpu_display", "gpu_assumed", "M", "blackwell", "npu", "device", "tp", "pp", "cp", "ep",
    "etp", "etp_set", "vpp", "dyn_cp", "mode", "hybrid", "fully_async", "colocate", "async",
    "resource_ok", "resource_shapes_ok", "g_a", "g_r", "g_total", "g_node", "g_node_set",
    "name_gpus", "dp", "edp", "gpe", "engines", "spp", "rollout_ratio", "moe", "E", "topk", "L", "h",
    "F", "Fe", "Fs", "heads", "groups", "kvc", "V", "tied", "moe_layers", "L_attn", "mla", "model",
    "modality", "mm", "hf_multimodal", "rbs", "n", "gbs", "S", "os", "dyn", "T", "T_lp", "resp",
    "prompt", "ctx", "ctx_eff", "mbs", "num_iters", "staleness", "frac", "offload", "offload_trio",
    "opt_bytes", "recompute_full", "recompute_selective", "sp", "P", "P_b", "P_active_b",
    "P_expert", "P_dense", "params_gpu_b", "static", "static_gb", "static_resident",
    "static_resident_gb", "bytes_per_param", "bytes_per_param_resident", "host_needed",
    "backup_tags", "act_norecompute", "act_recompute", "act", "logits", "logits_lp", "overhead",
    "peak", "peak_norecompute", "peak_resident", "kv_bytes_token", "rollout_weights", "kv_tokens",
    "min_gpus_fit", "offload_train", "offload_rollout", "alloc_global", "alloc_train", "debug_script",
    "script_name", "layer_params", "hybrid_attn", NULL};

static const char *const fn_names[] = {"has", "on", "num", "str", "nvals", "note", "env",
                                       "train_env", "json_has", "json_num", "json_keys", "min", "max",
                                       "ceil", "floor", "abs", "log2", "pow2ceil", "gcd", "in",
                                       "contains", "startswith", "def", "known", "cond", "hasval", "maxval", NULL};

bool af_known(const char *name, bool is_call) {
  const char *const *tab = is_call ? fn_names : fact_names;
  for (size_t i = 0; tab[i]; i++)
    if (!strcmp(tab[i], name)) return true;
  return !is_call && pd_str_starts(name, "res_");
}

static bool lookup(void *ctx, const char *name, ax_value *out) {
  return af_get(ctx, name, out);
}

static double gcd(double a, double b) {
  a = fabs(a);
  b = fabs(b);
  while (b > 0.5) {
    double t = fmod(a, b);
    a = b;
    b = t;
  }
  return a;
}

static bool call(void *ctx, const char *fn, const ax_value *a, size_t n, ax_value *out) {
  au_facts *f = ctx;
  const sm_model *m = f->m;
  bool flag_arg = n >= 1 && a[0].kind == AX_STR;
  if (!strcmp(fn, "has") && flag_arg) {
    *out = ax_bool(sm_flag_get(m, a[0].str) != NULL);
  } else if (!strcmp(fn, "on") && flag_arg) {
    *out = ax_bool(sm_flag_on(m, a[0].str));
  } else if (!strcmp(fn, "cond") && flag_arg) {
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    *out = ax_bool(fl && fl->conditional);
  } else if (!strcmp(fn, "num") && flag_arg) {
    double x = fnum(m, a[0].str, NAN);
    if (!sm_flag_get(m, a[0].str) && n >= 2) *out = a[1];
    else *out = isnan(x) ? ax_null() : ax_num(x);
  } else if (!strcmp(fn, "str") && flag_arg) {
    const char *s = sm_flag_str(m, a[0].str);
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    if (!s) *out = n >= 2 ? a[1] : ax_null();
    else if (fl && fl->nvalues && !fl->values[0].resolved) *out = ax_null();
    else *out = ax_str(s);
  } else if (!strcmp(fn, "hasval") && n == 2 && flag_arg && a[1].kind == AX_STR) {
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    bool hit = false;
    for (size_t i = 0; fl && i < fl->nvalues && !hit; i++) hit = !strcmp(fl->values[i].text, a[1].str);
    *out = fl ? ax_bool(hit) : ax_null();
  } else if (!strcmp(fn, "maxval") && flag_arg) {
    /* the largest number among the values (whitespace-separated words included: $(seq ...)) */
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    double best = NAN;
    for (size_t i = 0; fl && i < fl->nvalues; i++) {
      const char *p = fl->values[i].text;
      while (p && *p) {
        char *end;
        double x = strtod(p, &end);
        if (end == p) {
          p++;
          continue;
        }
        if (isnan(best) || x > best) best = x;
        p = end;
      }
    }
    *out = isnan(best) ? ax_null() : ax_num(best);
  } else if (!strcmp(fn, "nvals") && flag_arg) {
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    *out = fl ? ax_num((double)fl->nvalues) : ax_null();
  } else if (!strcmp(fn, "note") && flag_arg) {
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    *out = ax_bool(fl && fl->note);
  } else if ((!strcmp(fn, "env") || !strcmp(fn, "train_env")) && flag_arg) {
    char *v = NULL;
    if (!strcmp(fn, "env")) {
      /* an exported shell variable of the script, else a RUNTIME_ENV_JSON-style assignment */
      const sm_var *var = sm_var_get(m, a[0].str);
      if (var && var->known && var->exported) v = pd_xstrdup(var->value);
      else v = env_scan(m, a[0].str);
    } else {
      const sm_flag *fl = sm_flag_get(m, "--train-env-vars");
      json_t *x = fl && fl->json ? json_object_get(fl->json, a[0].str) : NULL;
      if (json_is_string(x)) v = pd_xstrdup(json_string_value(x));
    }
    *out = v ? ax_str(own(f, v)) : ax_null();
  } else if ((!strcmp(fn, "json_has") || !strcmp(fn, "json_num")) && n == 2 && flag_arg &&
             a[1].kind == AX_STR) {
    const sm_flag *fl = sm_flag_get(m, a[0].str);
    json_t *x = fl && fl->json && json_is_object(fl->json) ? json_object_get(fl->json, a[1].str) : NULL;
    if (!strcmp(fn, "json_has")) *out = fl && fl->json ? ax_bool(x != NULL) : ax_null();
    else if (json_is_array(x) && json_is_number(json_array_get(x, 1)))
      *out = ax_num(json_number_value(json_array_get(x, 1)));
    else if (json_is_number(x)) *out = ax_num(json_number_value(x));
    else *out = ax_null();
  } else if ((!strcmp(fn, "min") || !strcmp(fn, "max")) && n >= 1) {
    double r = NAN;
    for (size_t i = 0; i < n; i++) {
      if (a[i].kind != AX_NUM) {
        *out = ax_null();
        return true;
      }
      if (isnan(r) || (fn[1] == 'i' ? a[i].num < r : a[i].num > r)) r = a[i].num;
    }
    *out = ax_num(r);
  } else if (n == 1 && (!strcmp(fn, "ceil") || !strcmp(fn, "floor") || !strcmp(fn, "abs") ||
                        !strcmp(fn, "log2") || !strcmp(fn, "pow2ceil"))) {
    if (a[0].kind != AX_NUM) {
      *out = ax_null();
      return true;
    }
    double x = a[0].num;
    if (!strcmp(fn, "ceil")) x = ceil(x);
    else if (!strcmp(fn, "floor")) x = floor(x);
    else if (!strcmp(fn, "abs")) x = fabs(x);
    else if (!strcmp(fn, "log2")) x = x > 0 ? log2(x) : NAN;
    else x = x <= 1 ? 1 : pow(2, ceil(log2(x) - 1e-12));
    *out = isnan(x) ? ax_null() : ax_num(x);
  } else if (!strcmp(fn, "gcd") && n == 2) {
    *out = a[0].kind == AX_NUM && a[1].kind == AX_NUM ? ax_num(gcd(a[0].num, a[1].num)) : ax_null();
  } else if (!strcmp(fn, "in") && n >= 2) {
    if (a[0].kind == AX_NULL) {
      *out = ax_null();
      return true;
    }
    bool hit = false;
    for (size_t i = 1; i < n && !hit; i++) {
      if (a[0].kind == AX_STR && a[i].kind == AX_STR) hit = !strcmp(a[0].str, a[i].str);
      else if (a[0].kind == AX_NUM && a[i].kind == AX_NUM) hit = a[0].num == a[i].num;
    }
    *out = ax_bool(hit);
  } else if ((!strcmp(fn, "contains") || !strcmp(fn, "startswith")) && n == 2) {
    if (a[0].kind != AX_STR || a[1].kind != AX_STR) *out = ax_null();
    else if (fn[0] == 'c') *out = ax_bool(strstr(a[0].str, a[1].str) != NULL);
    else *out = ax_bool(pd_str_starts(a[0].str, a[1].str));
  } else if (!strcmp(fn, "def") && n == 2) {
    *out = a[0].kind == AX_NULL ? a[1] : a[0];
  } else if (!strcmp(fn, "known") && n == 1) {
    *out = ax_bool(a[0].kind != AX_NULL);
  } else {
    return false;
  }
  return true;
}

ax_env af_env(const au_facts *f) {
  ax_env e = {lookup, call, (void *)f};
  return e;
}
