#include "trace/compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "trace/kname.h"
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


/* The readable ranks of an array of rank objects. */
#define FOREACH_RANK(ranks, rk)                                                                 \
  for (size_t ri_ = 0; ri_ < json_array_size(ranks); ri_++)                                     \
    if (((rk) = json_array_get(ranks, ri_)) && !json_object_get(rk, "error"))

static json_t *real2(double v) { return isfinite(v) ? json_real(round(v * 100) / 100) : json_null(); }

/* Whether a change is significant as JSON: a boolean, or null with the reason when the noise is
 * not measured (unmeasured is that reason, NULL when it is measured). */
static void set_significance(json_t *o, bool sig, const char *unmeasured) {
  json_object_set_new(o, "significant", unmeasured ? json_null() : json_boolean(sig));
  if (unmeasured) json_object_set_new(o, "significance_note", json_string(unmeasured));
}

/* One compared figure: means, spreads, change, and whether the change stands out of the noise. */
static json_t *figure(const char *name, const char *unit, const stat *b, const stat *a, const char *unmeasured) {
  double mb = st_mean(b), ma = st_mean(a), noise = 2 * fmax(st_std(b), st_std(a));
  double d = ma - mb;
  /* shares move by rounding alone: half a point of the step is the smallest change worth a word */
  double floor = strchr(unit, '%') ? 0.5 : 0.01 * fabs(mb);
  bool sig = isfinite(d) && fabs(d) > noise && fabs(d) > floor;
  json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "name", name, "unit", unit, "before",
                        real2(mb), "after", real2(ma), "before_std", real2(st_std(b)), "after_std",
                        real2(st_std(a)), "change", real2(d), "change_pct",
                        isfinite(d) && mb != 0 ? real2(100 * d / mb) : json_null());
  set_significance(o, sig, unmeasured);
  return o;
}

/* The shares compared: the step's field, the figure's name in the JSON, its row in markdown. */
static const struct {
  const char *key, *label;
  tr_msg_id msg;
} shares[] = {
    {"compute_pct", "compute", TM_CMP_FIG_COMPUTE},
    {"exposed_comm_pct", "exposed communication", TM_CMP_FIG_COMM},
    {"exposed_memcpy_pct", "exposed copies", TM_CMP_FIG_COPIES},
    {"idle_data_supply_pct", "idle: data supply (host)", TM_CMP_FIG_DATA},
    {"idle_collective_wait_pct", "idle: waiting for collective peers", TM_CMP_FIG_COLL_WAIT},
    {"idle_launch_bound_pct", "idle: launch-bound", TM_CMP_FIG_LAUNCH},
};
#define NSHARES (sizeof shares / sizeof *shares)

typedef struct {
  stat step_ms, share[NSHARES], mfu;
  double reserved, allocated;
  int steps;     /* per rank, the most seen */
  int steps_min; /* per rank, the fewest: the noise is measured when both sides have two or more */
  int ranks;
} totals;

static totals totals_of(const json_t *ranks) {
  totals t = {0};
  t.reserved = t.allocated = NAN;
  const json_t *rk;
  FOREACH_RANK(ranks, rk) {
    t.ranks++;
    const json_t *steps = json_object_get(rk, "steps");
    if ((int)json_array_size(steps) > t.steps) t.steps = (int)json_array_size(steps);
    if (t.ranks == 1 || (int)json_array_size(steps) < t.steps_min) t.steps_min = (int)json_array_size(steps);
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

static void add_row(krows *k, const char *key, double us, double calls, double per, int side) {
  krow *r = kr_get(k, key);
  if (!isfinite(us) || !isfinite(calls)) return;
  if (side == 0) r->b += us / per, r->cb += calls / per;
  else r->a += us / per, r->ca += calls / per;
}

/* The job's kernel table (every kernel over all ranks, HTA's iterations), per step per rank. */
static void collect_kernels(krows *k, const json_t *job, const totals *t, int side) {
  const json_t *kt = json_object_get(job, "kernels");
  long long its = tr_summary_int(kt, "iterations");
  double per = (t->ranks ? t->ranks : 1) * (double)(its > 0 ? its : t->steps ? t->steps : 1);
  size_t i;
  json_t *o;
  json_array_foreach(json_object_get(kt, "rows"), i, o) {
    const char *name = json_string_value(json_object_get(o, "name"));
    add_row(k, name ? name : "", tr_summary_num(o, "sum_us"), tr_summary_num(o, "count"), per, side);
  }
}

/* side: 0 before, 1 after. kind: 0 ops, 1 kernels, 2 collectives. */
static void collect(krows *k, const json_t *ranks, const json_t *job, const totals *t, int side, int kind) {
  if (kind == 1) {
    collect_kernels(k, job, t, side);
    return;
  }
  double per = (t->ranks ? t->ranks : 1) * (double)(t->steps ? t->steps : 1);
  const json_t *rk;
  FOREACH_RANK(ranks, rk) {
    const json_t *rows = json_object_get(rk, kind == 0 ? "ops" : "collective_bandwidth");
    size_t i;
    json_t *o;
    json_array_foreach(rows, i, o) {
      pd_buf key = {0};
      double calls = tr_summary_num(o, "count"), us;
      if (kind == 0) {
        op_key(&key, o);
        calls = tr_summary_num(o, "calls");
        us = calls * tr_summary_num(o, "kernel_us_mean");
      } else {
        pd_buf_printf(&key, "%s %lld B, group %lld", json_string_value(json_object_get(o, "collective")),
                      tr_summary_int(o, "bytes"), tr_summary_int(o, "group_size"));
        us = calls * tr_summary_num(o, "time_us_mean");
      }
      add_row(k, key.data ? key.data : "", us, calls, per, side);
      pd_buf_free(&key);
    }
  }
}

static int by_change(const void *x, const void *y) {
  double a = fabs(((const krow *)x)->a - ((const krow *)x)->b), b = fabs(((const krow *)y)->a - ((const krow *)y)->b);
  return a < b ? 1 : a > b ? -1 : strcmp(((const krow *)x)->key, ((const krow *)y)->key);
}

/* Every row that changed, largest change first, each marked significant against the step's noise
 * (unmeasured: why it cannot be). */
static json_t *changes(krows *k, double noise_us, const char *unmeasured) {
  if (k->n) qsort(k->v, k->n, sizeof *k->v, by_change);
  json_t *out = json_array();
  for (size_t i = 0; i < k->n; i++) {
    krow *r = &k->v[i];
    double d = r->a - r->b;
    if (d != 0) {
      json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "name", r->key, "before_us_per_step", real2(r->b),
                            "after_us_per_step", real2(r->a), "change_us_per_step", real2(d), "calls_before",
                            real2(r->cb), "calls_after", real2(r->ca));
      set_significance(o, fabs(d) > noise_us, unmeasured);
      json_array_append_new(out, o);
    }
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

/* {"rule", "measured", "reason", "steps_before", "steps_after", "ranks_before", "ranks_after",
 * "step_noise_us"}: the noise is measured when every rank on both sides has two steps or more. */
static json_t *noise_json(const totals *tb, const totals *ta, double noise_us, const char *unmeasured,
                          const tr_text *en) {
  json_t *o = json_object();
  char *rule = TR_SAID0(en, TM_CMP_RULE);
  json_object_set_new(o, "rule", json_string(rule));
  free(rule);
  json_object_set_new(o, "measured", json_boolean(!unmeasured));
  json_object_set_new(o, "reason", unmeasured ? json_string(unmeasured) : json_null());
  json_object_set_new(o, "steps_before", json_integer(tb->steps_min));
  json_object_set_new(o, "steps_after", json_integer(ta->steps_min));
  json_object_set_new(o, "ranks_before", json_integer(tb->ranks));
  json_object_set_new(o, "ranks_after", json_integer(ta->ranks));
  json_object_set_new(o, "step_noise_us", unmeasured ? json_null() : real2(noise_us));
  return o;
}

/* Why the noise is not measured, from the fewest steps of a rank on each side; NULL when both
 * have two or more (fresh). */
static char *unmeasured_why(long before, long after, const tr_text *tx) {
  if (before >= 2 && after >= 2) return NULL;
  if (before == after) return TR_SAID(tx, TM_CMP_NOISE_UNMEASURED_SAME, PD_MI(before));
  return TR_SAID(tx, TM_CMP_NOISE_UNMEASURED, PD_MI(before), PD_MI(after));
}

json_t *tr_compare(json_t *before, json_t *after, const char *before_path, const char *after_path,
                   const tr_msgs *msgs) {
  tr_text own, given = {msgs, TR_EN};
  const tr_text *en = tr_text_or_builtin(&given, &own);
  const json_t *jb = tr_summary_job(before), *ja = tr_summary_job(after);
  json_t *rb = tr_summary_job_ranks(before), *ra = tr_summary_job_ranks(after);
  totals tb = totals_of(rb), ta = totals_of(ra);
  char *why = unmeasured_why(tb.steps_min, ta.steps_min, en);
  const char *unmeasured = why;
  json_t *d = json_object();
  json_object_set_new(d, "before_path", json_string(before_path));
  json_object_set_new(d, "after_path", json_string(after_path));
  json_object_set_new(d, "step", figure("step time", "ms", &tb.step_ms, &ta.step_ms, unmeasured));
  json_t *sh = json_array();
  for (size_t k = 0; k < NSHARES; k++)
    json_array_append_new(sh, figure(shares[k].label, "% of the step", &tb.share[k], &ta.share[k], unmeasured));
  json_object_set_new(d, "shares", sh);
  json_object_set_new(d, "mfu", figure("MFU", "%", &tb.mfu, &ta.mfu, unmeasured));
  json_object_set_new(d, "memory", memory_delta(&tb, &ta));
  double noise_us = 2000 * fmax(st_std(&tb.step_ms), st_std(&ta.step_ms));
  static const char *const kinds[3] = {"ops", "kernels", "collectives"};
  for (int kind = 0; kind < 3; kind++) {
    krows k = {0};
    collect(&k, rb, jb, &tb, 0, kind);
    collect(&k, ra, ja, &ta, 1, kind);
    json_object_set_new(d, kinds[kind], changes(&k, noise_us, unmeasured));
  }
  json_object_set_new(d, "noise", noise_json(&tb, &ta, noise_us, unmeasured, en));
  json_decref(rb);
  json_decref(ra);
  free(why);
  tr_text_release(&own);
  return json_pack("{s:O, s:O, s:o}", "before", before, "after", after, "delta", d);
}

/* The significance cell: yes, within noise (or no for a row), or why it cannot be said. */
static void sig_cell(pd_buf *b, const tr_text *tx, const json_t *o, bool row, const char *unmeasured) {
  const json_t *s = json_object_get(o, "significant");
  if (json_is_null(s) || !s) pd_buf_puts(b, unmeasured ? unmeasured : "—");
  else TR_SAY0(b, tx, json_is_true(s) ? TM_CMP_YES : row ? TM_CMP_NO : TM_CMP_WITHIN_NOISE);
}

/* "| name |" of a figure: its message when known, else its name in the JSON. */
static void fig_name(pd_buf *b, const tr_text *tx, const json_t *f, long msg) {
  pd_buf_puts(b, "| ");
  if (msg >= 0) TR_SAY0(b, tx, (tr_msg_id)msg);
  else pd_buf_puts(b, json_string_value(json_object_get(f, "name")) ? json_string_value(json_object_get(f, "name")) : "");
  pd_buf_puts(b, " |");
}

static void fig_md(pd_buf *b, const tr_text *tx, const json_t *f, long msg, const char *unmeasured) {
  double bv = tr_summary_num(f, "before"), av = tr_summary_num(f, "after");
  char *nm = TR_SAID0(tx, TM_NOT_MEASURED);
  fig_name(b, tx, f, msg);
  if (!isfinite(bv) && !isfinite(av)) {
    pd_buf_printf(b, " %s | %s | — | |\n", nm, nm);
    free(nm);
    return;
  }
  const char *unit = json_string_value(json_object_get(f, "unit"));
  if (!unit) unit = "";
  double sb = tr_summary_num(f, "before_std"), sa = tr_summary_num(f, "after_std");
  if (isfinite(bv)) pd_buf_printf(b, " %.2f ± %.2f |", bv, sb);
  else pd_buf_printf(b, " %s |", nm);
  if (isfinite(av)) pd_buf_printf(b, " %.2f ± %.2f |", av, sa);
  else pd_buf_printf(b, " %s |", nm);
  free(nm);
  double c = tr_summary_num(f, "change"), cp = tr_summary_num(f, "change_pct");
  pd_buf_putc(b, ' ');
  if (!isfinite(c)) pd_buf_puts(b, "—");
  else if (strstr(unit, "%")) TR_SAY(b, tx, TM_CMP_CHANGE_PTS, PD_MF(c));
  else pd_buf_printf(b, "%+.2f %s", c, unit);
  if (isfinite(cp) && !strstr(unit, "%")) pd_buf_printf(b, " (%+.1f %%)", cp);
  pd_buf_puts(b, " | ");
  if (isfinite(c)) sig_cell(b, tx, f, false, unmeasured);
  pd_buf_puts(b, " |\n");
}

/* The memory peaks: exact figures, no noise. */
static void memory_md(pd_buf *b, const tr_text *tx, const json_t *mem) {
  char *nm = TR_SAID0(tx, TM_NOT_MEASURED);
  size_t i;
  json_t *f;
  json_array_foreach(mem, i, f) {
    double bv = tr_summary_num(f, "before"), av = tr_summary_num(f, "after");
    const char *name = json_string_value(json_object_get(f, "name"));
    fig_name(b, tx, f, !name ? -1 : !strcmp(name, "peak reserved") ? TM_CMP_MEM_RESERVED
                             : !strcmp(name, "peak allocated") ? TM_CMP_MEM_ALLOCATED : -1);
    if (isfinite(bv)) pd_buf_printf(b, " %.2f GiB |", bv);
    else pd_buf_printf(b, " %s |", nm);
    if (isfinite(av)) pd_buf_printf(b, " %.2f GiB |", av);
    else pd_buf_printf(b, " %s |", nm);
    if (isfinite(av - bv)) {
      pd_buf_printf(b, " %+.2f GiB | ", av - bv);
      TR_SAY0(b, tx, TM_CMP_EXACT);
      pd_buf_puts(b, " |\n");
    } else {
      pd_buf_puts(b, " — | |\n");
    }
  }
  free(nm);
}

#define ROWS_SHOWN 10

/* The rows that changed most, names shortened (kernels: as profiler users write them, unique in
 * the table; others cut), the rest in one "… N more" row. */
static void rows_md(pd_buf *b, const tr_text *tx, tr_msg_id title, const json_t *rows, bool kernels,
                    const char *unmeasured) {
  pd_buf_puts(b, "\n### ");
  TR_SAY0(b, tx, title);
  pd_buf_puts(b, "\n\n");
  if (!json_array_size(rows)) {
    TR_SAY0(b, tx, TM_CMP_NO_CHANGE);
    pd_buf_putc(b, '\n');
    return;
  }
  TR_SAY0(b, tx, TM_CMP_ROWS_HEAD);
  pd_buf_puts(b, "\n|---|---|---|---|---|\n");
  size_t k = json_array_size(rows) < ROWS_SHOWN ? json_array_size(rows) : ROWS_SHOWN;
  const char *names[ROWS_SHOWN];
  for (size_t i = 0; i < k; i++) {
    names[i] = json_string_value(json_object_get(json_array_get(rows, i), "name"));
    if (!names[i]) names[i] = "";
  }
  char **shown = kernels ? tr_kname_table(names, k) : NULL;
  size_t i;
  json_t *r;
  double all = 0, rest = 0;
  json_array_foreach(rows, i, r) {
    double c = fabs(tr_summary_num(r, "change_us_per_step"));
    all += isfinite(c) ? c : 0;
    if (i >= k) {
      rest += isfinite(c) ? c : 0;
      continue;
    }
    char *name = shown ? pd_xstrdup(shown[i]) : tr_kname_cap(names[i], TR_KNAME_MAX);
    pd_buf_puts(b, "| ");
    tr_kname_md_code(b, name);
    pd_buf_printf(b, " | %.1f | %.1f | %+.1f | ", tr_summary_num(r, "before_us_per_step"),
                  tr_summary_num(r, "after_us_per_step"), tr_summary_num(r, "change_us_per_step"));
    sig_cell(b, tx, r, true, unmeasured);
    pd_buf_puts(b, " |\n");
    free(name);
  }
  if (json_array_size(rows) > k) {
    pd_buf_puts(b, "| ");
    TR_SAY(b, tx, TM_CMP_MORE, PD_MI(json_array_size(rows) - k), PD_MF(all > 0 ? 100 * rest / all : 0));
    pd_buf_puts(b, " | | | | |\n");
  }
  tr_kname_table_free(shown, k);
}

static void side_md(pd_buf *b, const tr_text *tx, tr_msg_id label, const json_t *cmp, const char *side) {
  const json_t *d = json_object_get(cmp, "delta"), *noise = json_object_get(d, "noise");
  char key[32];
  snprintf(key, sizeof key, "%s_path", side);
  const char *path = json_string_value(json_object_get(d, key));
  snprintf(key, sizeof key, "steps_%s", side);
  long long steps = tr_summary_int(noise, key);
  snprintf(key, sizeof key, "ranks_%s", side);
  long long ranks = tr_summary_int(noise, key);
  json_t *rks = tr_summary_job_ranks(json_object_get(cmp, side));
  const json_t *st = json_array_get(json_object_get(json_array_get(rks, 0), "steps"), 0);
  bool whole = steps == 1 && st && json_is_null(json_object_get(st, "step"));
  json_decref(rks);
  char *lab = TR_SAID0(tx, label);
  pd_buf_puts(b, "- ");
  if (whole) TR_SAY(b, tx, TM_CMP_SIDE_WHOLE, PD_MS(lab), PD_MS(path ? path : ""), PD_MI(ranks));
  else TR_SAY(b, tx, TM_CMP_SIDE, PD_MS(lab), PD_MS(path ? path : ""), PD_MI(steps), PD_MI(ranks));
  pd_buf_putc(b, '\n');
  free(lab);
}

char *tr_compare_md(const json_t *cmp, const tr_text *given) {
  tr_text own;
  const tr_text *tx = tr_text_or_builtin(given, &own);
  const json_t *d = json_object_get(cmp, "delta"), *noise = json_object_get(d, "noise");
  char *why = json_is_true(json_object_get(noise, "measured"))
                  ? NULL
                  : unmeasured_why(tr_summary_int(noise, "steps_before"), tr_summary_int(noise, "steps_after"), tx);
  pd_buf b = {0};
  pd_buf_puts(&b, "# ");
  TR_SAY0(&b, tx, TM_CMP_TITLE);
  pd_buf_puts(&b, "\n\n");
  side_md(&b, tx, TM_CMP_BEFORE, cmp, "before");
  side_md(&b, tx, TM_CMP_AFTER, cmp, "after");
  pd_buf_puts(&b, "- ");
  if (!why) {
    char *rule = TR_SAID0(tx, TM_CMP_RULE);
    TR_SAY(&b, tx, TM_CMP_HEAD_MEASURED, PD_MS(rule), PD_MF(tr_summary_num(noise, "step_noise_us")));
    free(rule);
  } else {
    TR_SAY(&b, tx, TM_CMP_HEAD_UNMEASURED, PD_MS(why));
  }
  pd_buf_puts(&b, "\n\n");
  TR_SAY0(&b, tx, TM_CMP_FIG_HEAD);
  pd_buf_puts(&b, "\n|---|---|---|---|---|\n");
  fig_md(&b, tx, json_object_get(d, "step"), TM_CMP_FIG_STEP, why);
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(d, "shares"), i, f) {
    const char *name = json_string_value(json_object_get(f, "name"));
    long msg = i < NSHARES && name && !strcmp(name, shares[i].label) ? (long)shares[i].msg : -1;
    fig_md(&b, tx, f, msg, why);
  }
  fig_md(&b, tx, json_object_get(d, "mfu"), TM_CMP_FIG_MFU, why);
  memory_md(&b, tx, json_object_get(d, "memory"));
  rows_md(&b, tx, TM_CMP_OPS_TITLE, json_object_get(d, "ops"), false, why);
  rows_md(&b, tx, TM_CMP_KERNELS_TITLE, json_object_get(d, "kernels"), true, why);
  rows_md(&b, tx, TM_CMP_COLLS_TITLE, json_object_get(d, "collectives"), false, why);
  free(why);
  tr_text_release(&own);
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
      if (!*err) {
        tr_text own, given = {opts->msgs, tr_lang_of(opts->lang)};
        *err = TR_SAID(tr_text_or_builtin(&given, &own), TM_ERR_CANNOT_SUMMARISE, PD_MS(paths[i]));
        tr_text_release(&own);
      }
      json_decref(sum[0]);
      return NULL;
    }
    failed += f;
  }
  if (n_failed) *n_failed = failed;
  json_t *cmp = tr_compare(sum[0], sum[1], before, after, opts->msgs);
  json_decref(sum[0]);
  json_decref(sum[1]);
  return cmp;
}
