#include "trace/compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "trace/summary.h"

/* A figure over a sample (every rank's steps): mean and standard deviation. */
typedef struct {
  double sum, sq;
  int n;
} stat;

static void st_add(stat *s, double v) {
  if (!isfinite(v)) return;
  s->sum += v;
  s->sq += v * v;
  s->n++;
}
static double st_mean(const stat *s) { return s->n ? s->sum / s->n : NAN; }
static double st_std(const stat *s) {
  if (s->n < 2) return 0;
  double m = st_mean(s), v = (s->sq - s->n * m * m) / (s->n - 1);
  return v > 0 ? sqrt(v) : 0;
}


#define FOREACH_RANK(sum, rk)                                                                   \
  for (size_t ri_ = 0; ri_ < json_array_size(json_object_get(sum, "ranks")); ri_++)             \
    if (((rk) = json_array_get(json_object_get(sum, "ranks"), ri_)) && !json_object_get(rk, "error"))

static json_t *real2(double v) { return isfinite(v) ? json_real(round(v * 100) / 100) : json_null(); }

/* One compared figure: means, spreads, change, and whether the change stands out of the noise. */
static json_t *figure(const char *name, const char *unit, const stat *b, const stat *a) {
  double mb = st_mean(b), ma = st_mean(a), noise = 2 * fmax(st_std(b), st_std(a));
  double d = ma - mb;
  /* shares move by rounding alone: half a point of the step is the smallest change worth a word */
  double floor = strchr(unit, '%') ? 0.5 : 0.01 * fabs(mb);
  bool sig = isfinite(d) && fabs(d) > noise && fabs(d) > floor;
  json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "name", name, "unit", unit, "before",
                        real2(mb), "after", real2(ma), "before_std", real2(st_std(b)), "after_std",
                        real2(st_std(a)), "change", real2(d), "change_pct",
                        isfinite(d) && mb != 0 ? real2(100 * d / mb) : json_null(), "significant", sig);
  return o;
}

static const struct {
  const char *key, *label;
} shares[] = {
    {"compute_pct", "compute"},
    {"exposed_comm_pct", "exposed communication"},
    {"exposed_memcpy_pct", "exposed copies"},
    {"idle_data_supply_pct", "idle: data supply (host)"},
    {"idle_collective_wait_pct", "idle: waiting for collective peers"},
    {"idle_launch_bound_pct", "idle: launch-bound"},
};
#define NSHARES (sizeof shares / sizeof *shares)

typedef struct {
  stat step_ms, share[NSHARES], mfu;
  double reserved, allocated;
  int steps; /* per rank, the most seen */
  int ranks;
} totals;

static totals totals_of(const json_t *sum) {
  totals t = {0};
  t.reserved = t.allocated = NAN;
  const json_t *rk;
  FOREACH_RANK(sum, rk) {
    t.ranks++;
    const json_t *steps = json_object_get(rk, "steps");
    if ((int)json_array_size(steps) > t.steps) t.steps = (int)json_array_size(steps);
    size_t i;
    json_t *s;
    json_array_foreach(steps, i, s) {
      st_add(&t.step_ms, tr_summary_num(s, "window_us") / 1000);
      for (size_t k = 0; k < NSHARES; k++) st_add(&t.share[k], tr_summary_num(s, shares[k].key));
    }
    json_array_foreach(json_object_get(json_object_get(rk, "flops"), "steps"), i, s) st_add(&t.mfu, tr_summary_num(s, "mfu_pct"));
    const json_t *m = json_object_get(rk, "memory");
    if (json_is_true(json_object_get(m, "measured"))) {
      double r = tr_summary_num(m, "peak_reserved_bytes") / 1073741824.0, al = tr_summary_num(m, "peak_allocated_bytes") / 1073741824.0;
      if (!(t.reserved >= r)) t.reserved = r;
      if (!(t.allocated >= al)) t.allocated = al;
    }
  }
  return t;
}

/* Rows keyed by a label, with a time per step per rank: ops, kernels, collectives. */
typedef struct {
  char *key;
  double b, a;     /* µs per step per rank */
  double cb, ca;   /* calls per step per rank */
} krow;

typedef struct {
  krow *v;
  size_t n, cap;
} krows;

static krow *kr_get(krows *k, const char *key) {
  for (size_t i = 0; i < k->n; i++)
    if (!strcmp(k->v[i].key, key)) return &k->v[i];
  krow *r = PD_PUSH(k->v, k->n, k->cap);
  *r = (krow){pd_xstrdup(key), 0, 0, 0, 0};
  return r;
}

static void op_key(pd_buf *b, const json_t *o) {
  pd_buf_printf(b, "%s [B%lld M%lld N%lld K%lld %s]", json_string_value(json_object_get(o, "name")),
                tr_summary_int(o, "B"), tr_summary_int(o, "M"), tr_summary_int(o, "N"), tr_summary_int(o, "K"),
                json_string_value(json_object_get(o, "dtype")) ? json_string_value(json_object_get(o, "dtype")) : "");
}

/* side: 0 before, 1 after. kind: 0 ops, 1 kernels, 2 collectives. */
static void collect(krows *k, const json_t *sum, const totals *t, int side, int kind) {
  const json_t *rk;
  FOREACH_RANK(sum, rk) {
    /* HTA's kernel table covers its iterations (the last step dropped); the others every step */
    size_t its = json_array_size(json_object_get(json_object_get(rk, "hta"), "iterations"));
    double steps = kind == 1 && its ? (double)its : (double)(t->steps ? t->steps : 1);
    double per = (t->ranks ? t->ranks : 1) * steps;
    const json_t *rows = kind == 0   ? json_object_get(rk, "ops")
                         : kind == 1 ? json_object_get(json_object_get(rk, "hta"), "top_kernels")
                                     : json_object_get(rk, "collective_bandwidth");
    size_t i;
    json_t *o;
    json_array_foreach(rows, i, o) {
      pd_buf key = {0};
      double us, calls;
      if (kind == 0) {
        op_key(&key, o);
        calls = tr_summary_num(o, "calls");
        us = calls * tr_summary_num(o, "kernel_us_mean");
      } else if (kind == 1) {
        pd_buf_puts(&key, json_string_value(json_object_get(o, "name")) ? json_string_value(json_object_get(o, "name")) : "");
        calls = tr_summary_num(o, "count");
        us = tr_summary_num(o, "sum_us");
      } else {
        pd_buf_printf(&key, "%s %lld B, group %lld", json_string_value(json_object_get(o, "collective")),
                      tr_summary_int(o, "bytes"), tr_summary_int(o, "group_size"));
        calls = tr_summary_num(o, "count");
        us = calls * tr_summary_num(o, "time_us_mean");
      }
      krow *r = kr_get(k, key.data ? key.data : "");
      pd_buf_free(&key);
      if (!isfinite(us) || !isfinite(calls)) continue;
      if (side == 0) r->b += us / per, r->cb += calls / per;
      else r->a += us / per, r->ca += calls / per;
    }
  }
}

static int by_change(const void *x, const void *y) {
  double a = fabs(((const krow *)x)->a - ((const krow *)x)->b), b = fabs(((const krow *)y)->a - ((const krow *)y)->b);
  return a < b ? 1 : a > b ? -1 : strcmp(((const krow *)x)->key, ((const krow *)y)->key);
}

/* The rows that changed most (at most 15), each marked significant against the step's noise. */
static json_t *top_changes(krows *k, double noise_us) {
  if (k->n) qsort(k->v, k->n, sizeof *k->v, by_change);
  json_t *out = json_array();
  for (size_t i = 0; i < k->n; i++) {
    krow *r = &k->v[i];
    double d = r->a - r->b;
    if (i < 15 && d != 0)
      json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:b}", "name", r->key, "before_us_per_step",
                                           real2(r->b), "after_us_per_step", real2(r->a), "change_us_per_step",
                                           real2(d), "calls_before", real2(r->cb), "calls_after", real2(r->ca),
                                           "significant", fabs(d) > noise_us));
    free(r->key);
  }
  free(k->v);
  return out;
}

static json_t *memory_delta(const totals *b, const totals *a) {
  json_t *m = json_array();
  const char *names[2] = {"peak reserved", "peak allocated"};
  double vb[2] = {b->reserved, b->allocated}, va[2] = {a->reserved, a->allocated};
  for (int i = 0; i < 2; i++)
    json_array_append_new(m, json_pack("{s:s, s:s, s:o, s:o, s:o}", "name", names[i], "unit", "GiB", "before",
                                       real2(vb[i]), "after", real2(va[i]), "change", real2(va[i] - vb[i])));
  return m;
}

json_t *tr_compare(json_t *before, json_t *after, const char *before_path, const char *after_path) {
  const json_t *jb = tr_summary_job(before), *ja = tr_summary_job(after);
  totals tb = totals_of(jb), ta = totals_of(ja);
  json_t *d = json_object();
  json_object_set_new(d, "before_path", json_string(before_path));
  json_object_set_new(d, "after_path", json_string(after_path));
  json_object_set_new(d, "step", figure("step time", "ms", &tb.step_ms, &ta.step_ms));
  json_t *sh = json_array();
  for (size_t k = 0; k < NSHARES; k++) json_array_append_new(sh, figure(shares[k].label, "% of the step", &tb.share[k], &ta.share[k]));
  json_object_set_new(d, "shares", sh);
  json_object_set_new(d, "mfu", figure("MFU", "%", &tb.mfu, &ta.mfu));
  json_object_set_new(d, "memory", memory_delta(&tb, &ta));
  double noise_us = 2000 * fmax(st_std(&tb.step_ms), st_std(&ta.step_ms));
  static const char *const kinds[3] = {"ops", "kernels", "collectives"};
  for (int kind = 0; kind < 3; kind++) {
    krows k = {0};
    collect(&k, jb, &tb, 0, kind);
    collect(&k, ja, &ta, 1, kind);
    json_object_set_new(d, kinds[kind], top_changes(&k, noise_us));
  }
  json_object_set_new(d, "noise",
                      json_pack("{s:s, s:o}", "rule", "a change is significant when larger than twice the larger "
                                "step-to-step standard deviation (and 1 % of the figure, half a point for shares)",
                                "step_noise_us", real2(noise_us)));
  return json_pack("{s:O, s:O, s:o}", "before", before, "after", after, "delta", d);
}

static void fig_md(pd_buf *b, const json_t *f) {
  double bv = tr_summary_num(f, "before"), av = tr_summary_num(f, "after");
  if (!isfinite(bv) && !isfinite(av)) {
    pd_buf_printf(b, "| %s | not measured | not measured | — | |\n", json_string_value(json_object_get(f, "name")));
    return;
  }
  pd_buf_printf(b, "| %s |", json_string_value(json_object_get(f, "name")));
  const char *unit = json_string_value(json_object_get(f, "unit"));
  double sb = tr_summary_num(f, "before_std"), sa = tr_summary_num(f, "after_std");
  if (isfinite(bv)) pd_buf_printf(b, " %.2f ± %.2f |", bv, sb);
  else pd_buf_puts(b, " not measured |");
  if (isfinite(av)) pd_buf_printf(b, " %.2f ± %.2f |", av, sa);
  else pd_buf_puts(b, " not measured |");
  double c = tr_summary_num(f, "change"), cp = tr_summary_num(f, "change_pct");
  if (isfinite(c)) pd_buf_printf(b, " %+.2f %s", c, strstr(unit, "%") ? "pts" : unit);
  else pd_buf_puts(b, " —");
  if (isfinite(cp) && !strstr(unit, "%")) pd_buf_printf(b, " (%+.1f %%)", cp);
  pd_buf_printf(b, " | %s |\n", json_is_true(json_object_get(f, "significant")) ? "**yes**" : "within noise");
}

static void rows_md(pd_buf *b, const char *title, const json_t *rows) {
  pd_buf_printf(b, "\n### %s that changed most (µs per step per rank)\n\n", title);
  if (!json_array_size(rows)) {
    pd_buf_puts(b, "No change.\n");
    return;
  }
  pd_buf_puts(b, "| Name | Before | After | Change | Beyond noise |\n|---|---|---|---|---|\n");
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    if (i >= 10) break;
    pd_buf_printf(b, "| `%s` | %.1f | %.1f | %+.1f | %s |\n", json_string_value(json_object_get(r, "name")),
                  tr_summary_num(r, "before_us_per_step"), tr_summary_num(r, "after_us_per_step"), tr_summary_num(r, "change_us_per_step"),
                  json_is_true(json_object_get(r, "significant")) ? "**yes**" : "no");
  }
}

char *tr_compare_md(const json_t *cmp) {
  const json_t *d = json_object_get(cmp, "delta");
  pd_buf b = {0};
  pd_buf_printf(&b, "# Trace comparison\n\n- Before: `%s`\n- After: `%s`\n- %s (step noise %.0f µs).\n\n",
                json_string_value(json_object_get(d, "before_path")), json_string_value(json_object_get(d, "after_path")),
                json_string_value(json_object_get(json_object_get(d, "noise"), "rule")),
                tr_summary_num(json_object_get(d, "noise"), "step_noise_us"));
  pd_buf_puts(&b, "| Figure | Before (mean ± sd over steps) | After | Change | Significant |\n|---|---|---|---|---|\n");
  fig_md(&b, json_object_get(d, "step"));
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(d, "shares"), i, f) fig_md(&b, f);
  fig_md(&b, json_object_get(d, "mfu"));
  json_array_foreach(json_object_get(d, "memory"), i, f) {
    double bv = tr_summary_num(f, "before"), av = tr_summary_num(f, "after");
    pd_buf_printf(&b, "| GPU memory %s (max over ranks) |", json_string_value(json_object_get(f, "name")));
    if (isfinite(bv)) pd_buf_printf(&b, " %.2f GiB |", bv);
    else pd_buf_puts(&b, " not measured |");
    if (isfinite(av)) pd_buf_printf(&b, " %.2f GiB |", av);
    else pd_buf_puts(&b, " not measured |");
    if (isfinite(av - bv)) pd_buf_printf(&b, " %+.2f GiB | exact (peaks) |\n", av - bv);
    else pd_buf_puts(&b, " — | |\n");
  }
  rows_md(&b, "Ops (by name, shape, dtype)", json_object_get(d, "ops"));
  rows_md(&b, "Kernels (HTA top kernels)", json_object_get(d, "kernels"));
  rows_md(&b, "Collectives", json_object_get(d, "collectives"));
  return pd_buf_take(&b);
}

json_t *tr_compare_paths(const char *before, const char *after, const tr_options *opts, int *n_failed, char **err) {
  const char *paths[2] = {before, after};
  json_t *sum[2] = {NULL, NULL};
  tr_options o = *opts;
  o.svg = NULL;
  int failed = 0;
  for (int i = 0; i < 2; i++) {
    int f = 0;
    sum[i] = tr_summarize_value(paths[i], &o, &f, err);
    if (!sum[i]) {
      if (!*err) *err = pd_xasprintf("cannot summarise %s", paths[i]);
      json_decref(sum[0]);
      return NULL;
    }
    failed += f;
  }
  if (n_failed) *n_failed = failed;
  json_t *cmp = tr_compare(sum[0], sum[1], before, after);
  json_decref(sum[0]);
  json_decref(sum[1]);
  return cmp;
}
