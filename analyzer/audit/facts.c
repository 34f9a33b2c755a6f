/* facts: storage of the facts, and the derivation of everything but the model's shape and
 * memory (facts_mem.c): device, parallel layout, mode, resources, batching, optimizer and
 * offload settings, and what the script's name says. */
#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts_int.h"
#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"

/* ---- storage ---- */

static const char *const fact_names[AF_COUNT] = {
#define AF_NAME_(id, name) name,
    AF_FACTS(AF_NAME_)
#undef AF_NAME_
};

const char *af_fact_name(af_id id) { return id < AF_COUNT ? fact_names[id] : NULL; }

int af_fact_id(const char *name) {
  for (int i = 0; i < AF_COUNT; i++)
    if (!strcmp(fact_names[i], name)) return i;
  return pd_str_starts(name, "res_") && name[4] ? AF_RES_ROLE : -1;
}

const char *af_own(au_facts *f, char *s) {
  *PD_PUSH(f->strs, f->nstrs, f->capstrs) = s;
  return s;
}

void af_set(au_facts *f, af_id id, ax_value v) {
  f->v[id] = v;
  f->set[id] = true;
}
void af_setn(au_facts *f, af_id id, double x) { af_set(f, id, ax_num(x)); }
void af_setb(au_facts *f, af_id id, bool b) { af_set(f, id, ax_bool(b)); }
void af_sets(au_facts *f, af_id id, const char *s) {
  af_set(f, id, s ? ax_str(af_own(f, pd_xstrdup(s))) : ax_null());
}
void af_setu(au_facts *f, af_id id, double x) { af_set(f, id, isnan(x) ? ax_null() : ax_num(x)); }

void af_assume(au_facts *f, const char *fmt, const char *arg) {
  *PD_PUSH(f->assumed, f->nassumed, f->capassumed) = pd_xasprintf(fmt, arg ? arg : "");
}

ax_value af_value(const au_facts *f, af_id id) { return id < AF_COUNT ? f->v[id] : ax_null(); }

double af_num(const au_facts *f, af_id id, double fallback) {
  ax_value v = af_value(f, id);
  if (v.kind == AX_NUM) return v.num;
  if (v.kind == AX_BOOL) return v.b;
  return fallback;
}

const char *af_str(const au_facts *f, af_id id) {
  ax_value v = af_value(f, id);
  return v.kind == AX_STR ? v.str : NULL;
}

bool af_get(const au_facts *f, const char *name, ax_value *out) {
  *out = ax_null();
  int id = af_fact_id(name);
  if (id >= 0 && id < AF_COUNT) {
    *out = f->v[id];
    return f->set[id];
  }
  for (size_t i = 0; id == AF_RES_ROLE && i < f->ndyn; i++)
    if (!strcmp(f->dyn[i].name, name)) {
      *out = f->dyn[i].v;
      return true;
    }
  return false;
}

size_t af_count(const au_facts *f) {
  size_t n = f->ndyn;
  for (int i = 0; i < AF_COUNT; i++) n += f->set[i];
  return n;
}

const char *af_name(const au_facts *f, size_t i, ax_value *value) {
  for (int k = 0; k < AF_COUNT; k++) {
    if (!f->set[k]) continue;
    if (i-- == 0) {
      if (value) *value = f->v[k];
      return fact_names[k];
    }
  }
  if (i >= f->ndyn) return NULL;
  if (value) *value = f->dyn[i].v;
  return f->dyn[i].name;
}

size_t af_nassumptions(const au_facts *f) { return f->nassumed; }
const char *af_assumption(const au_facts *f, size_t i) {
  return i < f->nassumed ? f->assumed[i] : NULL;
}

void af_free(au_facts *f) {
  if (!f) return;
  for (size_t i = 0; i < f->ndyn; i++) free(f->dyn[i].name);
  free(f->dyn);
  for (size_t i = 0; i < f->nstrs; i++) free(f->strs[i]);
  free(f->strs);
  for (size_t i = 0; i < f->nassumed; i++) free(f->assumed[i]);
  free(f->assumed);
  free(f);
}

/* ---- the environment ---- */

static bool env_lookup(void *ctx, int id, const char *name, ax_value *out) {
  const au_facts *f = ctx;
  if (id >= 0 && id < AF_COUNT) {
    *out = f->v[id];
    return f->set[id];
  }
  return af_get(f, name, out);
}

static bool env_call(void *ctx, int id, const char *fn, const ax_value *a, size_t n, ax_value *out) {
  (void)fn;
  return af_call(ctx, id, a, n, out);
}

ax_env af_env(const au_facts *f) {
  ax_env e = {env_lookup, env_call, (void *)f};
  return e;
}

/* ---- flags ---- */

double af_flag_num(const sm_model *m, const char *name, double fallback) {
  if (!sm_flag_get(m, name)) return fallback;
  double x;
  return sm_flag_double(m, name, &x) ? x : NAN;
}

static bool fon(const sm_model *m, const char *name) { return sm_flag_on(m, name); }

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

/* The value after NAME at q (`=v`, or `: "v"` in JSON), or NULL when NAME is not assigned
 * there. */
static char *assigned_value(const char *q) {
  if (*q == '\\') q++;
  if (*q == '"') q++;
  if (*q == '=') {
    q++;
  } else {
    while (*q == ' ') q++;
    if (*q != ':') return NULL;
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
  return pd_xstrndup(start, (size_t)(q - start));
}

/* `NAME=v`, `export NAME=v`, or a JSON member "NAME": "v" (RUNTIME_ENV_JSON, with or without
 * \" escapes); the last one wins. */
char *af_env_scan(const sm_model *m, const char *name) {
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
      char *v = assigned_value(q);
      if (!v) continue;
      free(best);
      best = v;
    }
  }
  return best;
}

/* ---- derivation ---- */

static const pd_device *compute_device(au_facts *f) {
  const sm_context *c = &f->m->ctx;
  const pd_device *g = pd_device_find(c->gpu);
  bool assumed = c->gpu == NULL;
  if (c->gpu && !g) {
    af_assume(f, "GPU '%s' unknown: memory taken as H20 96GB", c->gpu);
    assumed = true;
  }
  if (!g) g = pd_device_default();
  if (assumed) af_assume(f, "GPU assumed %s", g->display);
  af_sets(f, AF_GPU, g->id);
  af_sets(f, AF_GPU_DISPLAY, g->display);
  af_setb(f, AF_GPU_ASSUMED, assumed);
  af_setn(f, AF_M, g->usable_gib);
  af_setb(f, AF_BLACKWELL, g->blackwell);
  af_setb(f, AF_NPU, c->name_device && !strcmp(c->name_device, "npu"));
  af_sets(f, AF_DEVICE, c->name_device);
  return g;
}

static void compute_layout(au_facts *f) {
  const sm_model *m = f->m;
  double tp = af_flag_num(m, "--tensor-model-parallel-size", 1);
  bool etp_set = sm_flag_get(m, "--expert-tensor-parallel-size") != NULL;
  af_setu(f, AF_TP, tp);
  af_setu(f, AF_PP, af_flag_num(m, "--pipeline-model-parallel-size", 1));
  af_setu(f, AF_CP, af_flag_num(m, "--context-parallel-size", 1));
  af_setu(f, AF_EP, af_flag_num(m, "--expert-model-parallel-size", 1));
  af_setu(f, AF_ETP, etp_set ? af_flag_num(m, "--expert-tensor-parallel-size", 1) : tp);
  af_setb(f, AF_ETP_SET, etp_set);
  af_setb(f, AF_VPP, sm_flag_get(m, "--num-layers-per-virtual-pipeline-stage") ||
                         sm_flag_get(m, "--num-virtual-stages-per-pipeline-rank") ||
                         sm_flag_get(m, "--pipeline-model-parallel-layout"));
  af_setb(f, AF_DYN_CP, fon(m, "--dynamic-context-parallel"));
}

static void compute_mode(au_facts *f) {
  const sm_model *m = f->m;
  bool hybrid = fon(m, "--hybrid"), fa = fon(m, "--fully-async"), co = fon(m, "--colocate");
  const char *mode = hybrid ? "hybrid" : (fa && co) ? "conflict" : fa ? "fully-async"
                     : co   ? "colocate" : "none";
  af_sets(f, AF_MODE, mode);
  af_setb(f, AF_HYBRID, hybrid);
  af_setb(f, AF_FULLY_ASYNC, fa && !hybrid);
  af_setb(f, AF_COLOCATE, co && !hybrid && !fa);
  af_setb(f, AF_ASYNC, hybrid || fa);
}

static void set_role(au_facts *f, const char *role, double x) {
  char key[80];
  snprintf(key, sizeof key, "res_%s", role);
  for (size_t i = 0; i < f->ndyn; i++)
    if (!strcmp(f->dyn[i].name, key)) {
      f->dyn[i].v = ax_num(x);
      return;
    }
  af_dyn *d = PD_PUSH(f->dyn, f->ndyn, f->capdyn);
  d->name = pd_xstrdup(key);
  d->v = ax_num(x);
}

/* --resource {role: [1, gpus]}: GPUs per role; colocated roles share theirs (max), others add. */
static void compute_resources(au_facts *f) {
  const sm_model *m = f->m;
  bool colocate = af_num(f, AF_COLOCATE, 0) != 0;
  const sm_flag *res = sm_flag_get(m, "--resource");
  double g_a = NAN, g_r = NAN, g_total = NAN;
  bool res_ok = res && res->json && json_is_object(res->json);
  af_setb(f, AF_RESOURCE_OK, res_ok);
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
      set_role(f, role, x);
    }
    af_setb(f, AF_RESOURCE_SHAPES_OK, shapes_ok);
    g_total = colocate ? mx : sum;
  }
  long nodes, per;
  if (isnan(g_a) && sm_flag_long(m, "--actor-num-nodes", &nodes) &&
      sm_flag_long(m, "--actor-num-gpus-per-node", &per))
    g_a = (double)nodes * (double)per; /* the legacy way to size the actor */
  if (colocate && isnan(g_r) && !isnan(g_a)) g_r = g_a;
  af_setu(f, AF_G_A, g_a);
  af_setu(f, AF_G_R, g_r);
  af_setu(f, AF_G_TOTAL, g_total);
}

/* The job's GPU total (the file name's count when --resource says nothing) and its nodes. */
static void compute_machines(au_facts *f) {
  const sm_model *m = f->m;
  double g_node = af_flag_num(m, "--num-gpus-per-node", 8);
  af_setu(f, AF_G_NODE, g_node);
  af_setb(f, AF_G_NODE_SET, sm_flag_get(m, "--num-gpus-per-node") != NULL);
  double name_gpus = m->ctx.name_gpus > 0 ? (double)m->ctx.name_gpus : NAN;
  af_setu(f, AF_NAME_GPUS, name_gpus);
  double gpus = af_num(f, AF_G_TOTAL, NAN);
  if (isnan(gpus)) gpus = name_gpus;
  af_setu(f, AF_GPUS, gpus);
  double nodes = NAN, per = NAN, nn = af_flag_num(m, "--nnodes", NAN);
  if (!isnan(gpus) && gpus > 0) {
    double gpn = isnan(g_node) || g_node <= 0 ? 8 : g_node;
    if (!isnan(nn) && nn > 0) {
      nodes = nn;
      per = ceil(gpus / nn);
    } else {
      per = gpus < gpn ? gpus : gpn;
      nodes = ceil(gpus / per);
    }
  }
  af_setu(f, AF_NODES, nodes);
  af_setu(f, AF_GPUS_PER_NODE, per);
}

static void compute_parallel_groups(au_facts *f) {
  const sm_model *m = f->m;
  double g_a = af_num(f, AF_G_A, NAN), g_r = af_num(f, AF_G_R, NAN);
  double tp = af_num(f, AF_TP, NAN), pp = af_num(f, AF_PP, NAN), cp = af_num(f, AF_CP, NAN);
  double ep = af_num(f, AF_EP, NAN), etp = af_num(f, AF_ETP, NAN);
  af_setu(f, AF_DP, g_a / (tp * pp * cp));
  af_setu(f, AF_EDP, g_a / (etp * ep * pp));
  double gpe = af_flag_num(m, "--rollout-num-gpus-per-engine", 1);
  af_setu(f, AF_GPE, gpe);
  af_setu(f, AF_ENGINES, floor(g_r / gpe));
  af_setu(f, AF_SPP, af_flag_num(m, "--sglang-pipeline-parallel-size", 1));
  af_setu(f, AF_ROLLOUT_RATIO, g_r / g_a);
}

/* text | mm | video: the flags first, then the file name, then the model's name. */
static void compute_modality(au_facts *f) {
  const sm_model *m = f->m;
  const sm_context *c = &m->ctx;
  const char *modality = "text";
  for (size_t i = 0; i < m->nflags; i++) {
    const char *n = m->flags[i].name;
    if (strstr(n, "video")) {
      modality = "video";
      break;
    }
    if (strstr(n, "--multimodal") || strstr(n, "--image") || strstr(n, "vision") ||
        pd_str_starts(n, "--mm-"))
      modality = "mm";
  }
  if (!strcmp(modality, "text") && c->name_modality) modality = c->name_modality;
  if (!strcmp(modality, "text") && c->model &&
      (strstr(c->model, "-vl") || strstr(c->model, "omni") || strstr(c->model, "ocr")))
    modality = "mm";
  af_sets(f, AF_MODEL, c->model ? c->model : c->name_model);
  af_sets(f, AF_MODALITY, modality);
  af_setb(f, AF_MM, strcmp(modality, "text") != 0);
  /* natively multimodal HF configs (text_config / thinker_config) */
  const char *mname = c->model ? c->model : "";
  bool hf_mm = strstr(mname, "vl") || strstr(mname, "VL") || strstr(mname, "omni") ||
               pd_str_starts(mname, "qwen35") || pd_str_starts(mname, "qwen36") ||
               pd_str_starts(mname, "qwen38") || pd_str_starts(mname, "qwen3.5");
  af_setb(f, AF_HF_MULTIMODAL, hf_mm);
}

static void compute_batching(au_facts *f) {
  const sm_model *m = f->m;
  double rbs = af_flag_num(m, "--rollout-batch-size", NAN), n = af_flag_num(m, "--n-samples-per-prompt", 1);
  double gbs = af_flag_num(m, "--global-batch-size", NAN);
  if (isnan(rbs) && !isnan(gbs) && sm_flag_get(m, "--rollout-batch-size") == NULL) rbs = floor(gbs / n);
  double S = rbs * n;
  if (isnan(gbs) && sm_flag_get(m, "--global-batch-size") == NULL) {
    double steps = af_flag_num(m, "--num-steps-per-rollout", NAN);
    gbs = isnan(steps) ? S : floor(S / steps);
  }
  af_setu(f, AF_RBS, rbs);
  af_setu(f, AF_N, n);
  af_setu(f, AF_GBS, gbs);
  af_setu(f, AF_S, S);
  af_setu(f, AF_OS, af_flag_num(m, "--over-sampling-batch-size", rbs));
  af_setb(f, AF_DYN, fon(m, "--use-dynamic-batch-size"));
  double T = af_flag_num(m, "--max-tokens-per-gpu", NAN);
  af_setu(f, AF_T, T);
  af_setu(f, AF_T_LP, af_flag_num(m, "--log-probs-max-tokens-per-gpu", T));
  double resp = af_flag_num(m, "--rollout-max-response-len", NAN);
  double prompt = af_flag_num(m, "--rollout-max-prompt-len", NAN);
  double ctx = af_flag_num(m, "--rollout-max-context-len", NAN);
  af_setu(f, AF_RESP, resp);
  af_setu(f, AF_PROMPT, prompt);
  af_setu(f, AF_CTX, ctx);
  af_setu(f, AF_CTX_EFF, !isnan(ctx) ? ctx : (!isnan(prompt) && !isnan(resp)) ? prompt + resp : NAN);
  af_setu(f, AF_MBS, af_flag_num(m, "--micro-batch-size", 1));
  af_setu(f, AF_NUM_ITERS, af_flag_num(m, "--num-iters-per-train-update", 1));
  af_setu(f, AF_STALENESS, af_flag_num(m, "--max-staleness", 0));
  af_setu(f, AF_FRAC, af_flag_num(m, "--sglang-mem-fraction-static", NAN));
}

static double moment_bytes(const char *dtype) {
  return !strcmp(dtype, "fp8") ? 1 : strcmp(dtype, "fp32") ? 2 : 4;
}

/* Optimizer bytes per parameter (catalog D1) and the offload settings. */
static af_mem_cfg compute_optimizer(au_facts *f) {
  const sm_model *m = f->m;
  bool pa = fon(m, "--use-precision-aware-optimizer");
  bool offload = fon(m, "--optimizer-cpu-offload");
  af_setb(f, AF_OFFLOAD, offload);
  af_setb(f, AF_OFFLOAD_TRIO, offload && pa && fon(m, "--overlap-cpu-optimizer-d2h-h2d"));
  const char *mg = sm_flag_str(m, "--main-grads-dtype");
  const char *ea = sm_flag_str(m, "--exp-avg-dtype");
  const char *eas = sm_flag_str(m, "--exp-avg-sq-dtype");
  af_mem_cfg mc = {af_num(f, AF_TP, NAN), af_num(f, AF_PP, NAN), af_num(f, AF_CP, NAN),
                   af_num(f, AF_EP, NAN), af_num(f, AF_ETP, NAN), 2, 4, 12, 0};
  if (fon(m, "--grad-reduce-in-bf16") || (pa && mg && !strcmp(mg, "bf16"))) mc.g_bytes = 2;
  double master = (pa && !fon(m, "--no-store-param-remainders")) ? 2 : 4;
  double m1 = pa && ea ? moment_bytes(ea) : 4, m2 = pa && eas ? moment_bytes(eas) : 4;
  mc.opt_bytes = master + m1 + m2;
  double off_frac = offload ? af_flag_num(m, "--optimizer-offload-fraction", 1) : 0;
  mc.offload_frac = isnan(off_frac) ? 1 : off_frac;
  af_setn(f, AF_OPT_BYTES, mc.opt_bytes);
  /* colocate turns both offloads on unless the script says otherwise (hybrid defaults off) */
  bool co = af_num(f, AF_COLOCATE, 0) != 0;
  af_setb(f, AF_OFFLOAD_TRAIN, fon(m, "--offload") || fon(m, "--offload-train") ||
                                   (co && !fon(m, "--no-offload-train")));
  af_setb(f, AF_OFFLOAD_ROLLOUT, fon(m, "--offload") || fon(m, "--offload-rollout") ||
                                     (co && !fon(m, "--no-offload-rollout")));
  return mc;
}

static void compute_runtime(au_facts *f) {
  const sm_model *m = f->m;
  char *a = af_env_scan(m, "PYTORCH_CUDA_ALLOC_CONF");
  if (!a) a = af_env_scan(m, "PYTORCH_ALLOC_CONF");
  af_sets(f, AF_ALLOC_GLOBAL, a ? a : "");
  free(a);
  const sm_flag *tev = sm_flag_get(m, "--train-env-vars");
  json_t *x = tev && tev->json ? json_object_get(tev->json, "PYTORCH_CUDA_ALLOC_CONF") : NULL;
  if (!x && tev && tev->json) x = json_object_get(tev->json, "PYTORCH_ALLOC_CONF");
  af_sets(f, AF_ALLOC_TRAIN, json_is_string(x) ? json_string_value(x) : "");
  const char *base = pd_path_base(m->nfiles ? m->files[0].path : "");
  af_setb(f, AF_DEBUG_SCRIPT, strstr(base, "debug") || strstr(base, "profil") || strstr(base, "smoke") ||
                                  strstr(base, "observer") || strstr(base, "continuity"));
  af_sets(f, AF_SCRIPT_NAME, base);
  const char *gran = sm_flag_str(m, "--recompute-granularity");
  double rnl = af_flag_num(m, "--recompute-num-layers", 1);
  af_setb(f, AF_RECOMPUTE_FULL, gran && !strcmp(gran, "full") && !(rnl == 0));
  af_setb(f, AF_RECOMPUTE_SELECTIVE,
          (gran && !strcmp(gran, "selective")) || fon(m, "--recompute-activations"));
  af_setb(f, AF_SP, fon(m, "--sequence-parallel") && af_num(f, AF_TP, NAN) > 1);
}

au_facts *af_compute(const sm_model *m) {
  au_facts *f = pd_xcalloc(1, sizeof *f);
  f->m = m;
  const pd_device *g = compute_device(f);
  compute_layout(f);
  compute_mode(f);
  compute_resources(f);
  compute_machines(f);
  compute_parallel_groups(f);
  af_shape s = {0};
  bool shape_ok = af_read_shape(f, &s);
  compute_modality(f);
  compute_batching(f);
  af_mem_cfg mc = compute_optimizer(f);
  compute_runtime(f);
  bool layout_ok = !isnan(mc.tp) && !isnan(mc.pp) && !isnan(mc.cp) && !isnan(mc.ep) &&
                   !isnan(mc.etp) && mc.tp > 0 && mc.pp > 0 && mc.cp > 0 && mc.ep > 0 && mc.etp > 0;
  if (shape_ok && layout_ok) af_compute_memory(f, &s, &mc, g);
  return f;
}
