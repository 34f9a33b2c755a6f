#include "trace/flops.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the recorded argument arrays ---- */

#define MAX_ARGS 24
#define MAX_RANK 8

/* "Input Dims": one entry per argument, a list of sizes for a tensor ([] for scalars and
 * absent tensors); a tensor list nests one level deeper and is marked rank -1. */
typedef struct {
  int n;
  int rank[MAX_ARGS];
  int64_t d[MAX_ARGS][MAX_RANK];
} dims;

typedef struct {
  const char *p, *e;
} cur;

static void sp(cur *c) {
  while (c->p < c->e && isspace((unsigned char)*c->p)) c->p++;
}

static bool eat(cur *c, char ch) {
  sp(c);
  if (c->p < c->e && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* Skips one JSON value (already validated by trace_event). */
static void skip_value(cur *c) {
  sp(c);
  int depth = 0;
  bool in_str = false;
  for (; c->p < c->e; c->p++) {
    char ch = *c->p;
    if (in_str) {
      if (ch == '\\') c->p++;
      else if (ch == '"') in_str = false;
      if (!in_str && depth == 0) {
        c->p++;
        return;
      }
      continue;
    }
    if (ch == '"') in_str = true;
    else if (ch == '[' || ch == '{') depth++;
    else if (ch == ']' || ch == '}') {
      if (depth == 0) return;
      if (--depth == 0) {
        c->p++;
        return;
      }
    } else if (ch == ',' && depth == 0) return;
  }
}

/* The integer at c->p (a JSON integer, validated), saturating as strtoll does; strtoll's
 * locale and base handling were half the cost of reading the shapes. */
static int64_t int_at(cur *c) {
  bool neg = *c->p == '-';
  if (neg) c->p++;
  uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; c->p < c->e && *c->p >= '0' && *c->p <= '9'; c->p++) {
    uint64_t t; /* overflow tests, not a division per digit */
    bool over = __builtin_mul_overflow(u, 10, &t) || __builtin_add_overflow(t, (uint64_t)(*c->p - '0'), &t);
    u = over || t > lim ? lim : t;
  }
  return neg ? (int64_t)(0 - u) : (int64_t)u;
}

/* One argument's sizes: [a, b, ...]; anything else gives rank -1. */
static void one_dims(cur *c, dims *d) {
  int i = d->n;
  d->rank[i] = 0;
  const char *start = c->p;
  if (!eat(c, '[')) {
    c->p = start;
    skip_value(c);
    d->rank[i] = -1;
    return;
  }
  if (eat(c, ']')) return;
  for (;;) {
    sp(c);
    if (c->p >= c->e || !(isdigit((unsigned char)*c->p) || *c->p == '-')) {
      c->p = start;
      skip_value(c);
      d->rank[i] = -1;
      return;
    }
    int64_t v = int_at(c);
    if (d->rank[i] < MAX_RANK) d->d[i][d->rank[i]] = v;
    d->rank[i]++;
    if (eat(c, ',')) continue;
    if (eat(c, ']')) break;
    d->rank[i] = -1;
    return;
  }
  if (d->rank[i] > MAX_RANK) d->rank[i] = -1;
}

static bool parse_dims(const tr_slice *raw, dims *d) {
  d->n = 0;
  if (!raw->p) return false;
  cur c = {raw->p, raw->p + raw->n};
  if (!eat(&c, '[')) return false;
  if (eat(&c, ']')) return true;
  while (d->n < MAX_ARGS) {
    one_dims(&c, d);
    d->n++;
    if (eat(&c, ',')) continue;
    return eat(&c, ']');
  }
  return true; /* more arguments than we keep: the first MAX_ARGS are enough */
}

/* The i-th string of a JSON array of strings, copied (escapes dropped) into buf; "" when it
 * is absent or not a string. */
static const char *str_at(const tr_slice *raw, int i, char *buf, size_t cap) {
  buf[0] = '\0';
  if (!raw->p) return buf;
  cur c = {raw->p, raw->p + raw->n};
  if (!eat(&c, '[')) return buf;
  for (int k = 0; k < i; k++) {
    skip_value(&c);
    if (!eat(&c, ',')) return buf;
  }
  sp(&c);
  if (c.p >= c.e || *c.p != '"') return buf;
  size_t n = 0;
  for (c.p++; c.p < c.e && *c.p != '"' && n + 1 < cap; c.p++) {
    if (*c.p == '\\') c.p++;
    buf[n++] = *c.p;
  }
  buf[n] = '\0';
  return buf;
}

/* ---- dtypes ---- */

static void dtype_of(const tr_event *ev, int i, char *out, size_t cap) {
  char t[24];
  str_at(&ev->types, i, t, sizeof t);
  static const struct {
    const char *recorded, *name;
  } map[] = {{"c10::BFloat16", "bf16"}, {"c10::Half", "fp16"},     {"float", "fp32"},
             {"double", "fp64"},        {"c10::Float8_e4m3fn", "fp8"}, {"c10::Float8_e5m2", "fp8"},
             {"c10::Float8_e4m3fnuz", "fp8"}, {"c10::Float8_e5m2fnuz", "fp8"}};
  const char *name = t[0] ? t : "unrecorded";
  for (size_t k = 0; k < sizeof map / sizeof *map; k++)
    if (!strcmp(t, map[k].recorded)) name = map[k].name;
  size_t n = strnlen(name, cap - 1); /* a bounded copy: snprintf's format machinery cost more */
  memcpy(out, name, n);
  out[n] = '\0';
}

/* A bool argument as Concrete Inputs records it ("True", "true", "1"). */
static bool concrete_true(const tr_event *ev, int i) {
  char t[16];
  str_at(&ev->concrete, i, t, sizeof t);
  return !strcmp(t, "True") || !strcmp(t, "true") || !strcmp(t, "1");
}

/* ---- GEMM ---- */

/* a, b: argument indexes of the two matrices; bias: whether the op adds one (addmm). */
static bool gemm(const dims *d, int a, int b, bool bias, bool batched, tr_fl *out) {
  int r = batched ? 3 : 2;
  if (d->n <= b || d->rank[a] != r || d->rank[b] != r) return false;
  const int64_t *A = d->d[a], *B = d->d[b];
  out->kind = TR_FL_GEMM;
  out->b = batched ? A[0] : 1;
  out->m = A[r - 2];
  out->k = A[r - 1];
  out->n = B[r - 1];
  if (out->b < 0 || out->m < 0 || out->n < 0 || out->k < 0) return false;
  double mnk = 2.0 * (double)out->m * (double)out->n * (double)out->k;
  double mn = bias ? (double)out->m * (double)out->n : 0;
  out->flops = (double)out->b * (mnk + mn);
  return true;
}

/* ---- attention ---- */

typedef struct {
  const char *name;
  size_t len;
  int q;          /* index of q in Input Dims (k, v follow) */
  bool bnhd;      /* (B, N, H, d) layout (flash_attn) instead of (B, H, N, d) */
  int causal;     /* Concrete Inputs index of is_causal; -1: causal unless stated (flash bwd) */
  int causal_alt; /* the index in an older schema with fewer arguments, or 0 */
  int alt_below;  /* ... used when there are fewer than this many arguments */
  bool backward, flash;
} attn_op;

#define NAME(lit) lit, sizeof(lit) - 1

static const attn_op ATTN[] = {
    {NAME("aten::_scaled_dot_product_flash_attention"), 0, false, 4, 0, 0, false, true},
    {NAME("aten::_scaled_dot_product_efficient_attention"), 0, false, 4, 0, 0, false, false},
    {NAME("aten::_scaled_dot_product_cudnn_attention"), 0, false, 6, 0, 0, false, false},
    {NAME("flash_attn::_flash_attn_forward"), 0, true, 5, 0, 0, false, true},
    {NAME("FlashAttnFunc"), 0, true, 5, 0, 0, false, true},
    {NAME("aten::_scaled_dot_product_flash_attention_backward"), 1, false, 11, 0, 0, true, true},
    /* PyTorch 2.1 had (grad_out, q, k, v, out, logsumexp, is_causal, chunk_grad_outputs) */
    {NAME("aten::_scaled_dot_product_efficient_attention_backward"), 1, false, 11, 6, 12, true, false},
    {NAME("aten::_scaled_dot_product_cudnn_attention_backward"), 1, false, 14, 0, 0, true, false},
    {NAME("flash_attn::_flash_attn_backward"), 1, true, 10, 0, 0, true, true},
};

/* name[0..len) in the table: the length decides before any bytes are compared. */
static const attn_op *attn_find(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof ATTN / sizeof *ATTN; i++)
    if (len == ATTN[i].len && !memcmp(name, ATTN[i].name, len)) return &ATTN[i];
  return NULL;
}

static bool attention(const attn_op *op, const tr_event *ev, const dims *d, tr_fl *out) {
  int q = op->q, k = q + 1, v = q + 2;
  if (d->n <= v || d->rank[q] != 4 || d->rank[k] != 4 || d->rank[v] != 4) return false;
  int hi = op->bnhd ? 2 : 1, ni = op->bnhd ? 1 : 2;
  int64_t B = d->d[q][0], hq = d->d[q][hi], nq = d->d[q][ni], dq = d->d[q][3];
  int64_t hkv = d->d[k][hi], nkv = d->d[k][ni], dv = d->d[v][3];
  if (B != d->d[k][0] || B != d->d[v][0] || hkv != d->d[v][hi] || nkv != d->d[v][ni] || dq != d->d[k][3])
    return false;
  if (B <= 0 || hq <= 0 || hkv <= 0 || nq <= 0 || nkv <= 0 || dq <= 0) return false;
  int ci = op->causal_alt && d->n < op->alt_below ? op->causal_alt : op->causal;
  char t[16];
  bool stated = str_at(&ev->concrete, ci, t, sizeof t)[0] != '\0';
  bool causal = stated ? concrete_true(ev, ci) : op->bnhd && op->backward; /* flash_attn's default */
  if (causal && nq != nkv) return false; /* TraceLens rejects it too: the mask's shape is not known */
  double bh = (double)B * (double)hq, qk = 2.0 * (double)nq * (double)nkv * (double)dq,
         pv = 2.0 * (double)nq * (double)nkv * (double)dv;
  double f;
  if (!op->backward) {
    f = bh * (qk + pv);
  } else {
    double gqa = (double)(hq / hkv - 1) * (double)B * (double)nkv;
    f = (op->flash ? bh * qk : 0) + bh * pv + gqa * (double)dv /* dV */ + bh * pv /* dP */ +
        bh * qk /* dQ */ + bh * qk + gqa * (double)dq /* dK */;
  }
  if (causal) f /= 2;
  *out = (tr_fl){TR_FL_ATTN, B, nq, nkv, dq, hq, hkv, causal, op->backward, f, ""};
  return true;
}

/* ---- entry points ---- */

/* The GEMMs: argument indexes of the two matrices, whether a bias (C) comes first, batched. */
static const struct {
  const char *name;
  size_t len;
  int a, b;
  bool bias, batched;
} GEMMS[] = {{NAME("aten::mm"), 0, 1, false, false},
             {NAME("aten::addmm"), 1, 2, true, false},
             {NAME("aten::bmm"), 0, 1, false, true},
             {NAME("aten::baddbmm"), 1, 2, true, true}};

/* The GEMM named name[0..len), or -1. */
static int gemm_find(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof GEMMS / sizeof *GEMMS; i++)
    if (len == GEMMS[i].len && !memcmp(name, GEMMS[i].name, len)) return (int)i;
  return -1;
}

/* Called for every CPU op with shapes (a tr_slice_eq per table entry was 4 % of reading a
 * record_shapes trace; the look-ups decide on the length first). */
bool tr_flops_modelled(const char *name, size_t len) { return gemm_find(name, len) >= 0 || attn_find(name, len); }

bool tr_flops_of(const char *name, const tr_event *ev, tr_fl *out) {
  memset(out, 0, sizeof *out);
  dims d;
  bool ok = false;
  int type_at = 0;
  size_t len = strlen(name);
  int g = gemm_find(name, len);
  if (g >= 0) {
    ok = parse_dims(&ev->dims, &d) && gemm(&d, GEMMS[g].a, GEMMS[g].b, GEMMS[g].bias, GEMMS[g].batched, out);
    type_at = GEMMS[g].a;
  }
  const attn_op *op = ok ? NULL : attn_find(name, len);
  if (op) {
    ok = parse_dims(&ev->dims, &d) && attention(op, ev, &d, out);
    type_at = op->q;
  }
  if (!ok && ev->flops.present && ev->flops.v > 0 && strcmp(name, "aten::linear") != 0 &&
      strcmp(name, "aten::matmul") != 0) {
    memset(out, 0, sizeof *out);
    out->kind = TR_FL_PROFILER;
    out->flops = (double)ev->flops.v;
    ok = true;
  }
  if (ok) dtype_of(ev, type_at, out->dtype, sizeof out->dtype);
  return ok;
}

double tr_flops_peak(const pd_device *dev, const char *dtype) {
  if (!dev) return NAN;
  if (!strcmp(dtype, "bf16") || !strcmp(dtype, "fp16")) return dev->bf16_tflops;
  if (!strcmp(dtype, "fp8")) return dev->fp8_tflops;
  if (!strcmp(dtype, "fp32")) return dev->fp32_tflops;
  /* dense TF32 is half the bf16 rate on every GPU in the table (A100 156, H100 494.5, H20 74,
   * L20 59.8, B200 1125, MI300X 653.7 TFLOP/s) */
  if (!strcmp(dtype, "tf32")) return dev->cls == PD_DEV_GPU ? dev->bf16_tflops / 2 : NAN;
  return NAN;
}

const pd_device *tr_flops_device(const char *props_name, int64_t total_bytes) {
  if (!props_name) return NULL;
  static const char *const vendors[] = {"NVIDIA ", "AMD Instinct ", "AMD "};
  const char *p = props_name;
  for (size_t i = 0; i < sizeof vendors / sizeof *vendors; i++)
    if (!strncmp(p, vendors[i], strlen(vendors[i]))) {
      p += strlen(vendors[i]);
      break;
    }
  const pd_device *d = pd_device_find(p, NULL);
  if (!d || total_bytes <= 0) return d;
  /* the family's variant closest to the memory the device reports ("A100-SXM4-40GB" names
   * its size after another number) */
  size_t fam = strcspn(d->id, "-");
  double gib = (double)total_bytes / (1024.0 * 1024.0 * 1024.0), best = INFINITY;
  for (size_t i = 0; i < pd_device_count(); i++) {
    const pd_device *c = pd_device_at(i);
    if (strncmp(c->id, d->id, fam) != 0 || (c->id[fam] != '-' && c->id[fam] != '\0') || isnan(c->usable_gib))
      continue;
    if (fabs(c->usable_gib - gib) < best) {
      best = fabs(c->usable_gib - gib);
      d = c;
    }
  }
  return d;
}
