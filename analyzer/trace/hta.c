/* trace_rank's HTA figures: the temporal breakdown, kernel-type sweep, per-stream idle,
 * per-kernel statistics and launch statistics, with HTA's last-step filter and its µs rounding
 * (shared/reference/trace-hta-anchor.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/rank_int.h"
#include "base/alloc.h"
#include "base/sort.h"

/* HTA's consecutive_kernel_delay default (µs in practice), in ns. */
#define KERNEL_WAIT_NS 30000

/* ---- HTA analyses ---- */

typedef struct {
  int64_t ts, end; /* HTA's view (rounded when the trace has float ts), ns */
} hspan;

static hspan hta_span(bool round, int64_t ts, int64_t end, unsigned adj) {
  if (!round) return (hspan){ts, end};
  int64_t db = (int64_t)(adj / 3) - 1, de = (int64_t)(adj % 3) - 1;
  return (hspan){(trr_ceil_div(ts, 1000) + db) * 1000, (trr_floor_div(end, 1000) + de) * 1000};
}

void trr_merge_in_order(tr_ivs *s, int64_t *cummax, int64_t b, int64_t e) {
  if (s->n && b <= *cummax) {
    if (e > s->v[s->n - 1].e) s->v[s->n - 1].e = e;
  } else {
    tr_ivs_push(s, b, e);
  }
  if (e > *cummax) *cummax = e;
}

typedef struct {
  int64_t prev_end;
  size_t idle; /* index into h->idle */
} stream_state;

int trr_long_cmp(const void *pa, const void *pb) {
  long a = *(const long *)pa, b = *(const long *)pb;
  return (a > b) - (a < b);
}

static int idle_stream_cmp(const void *pa, const void *pb) {
  const tr_idle_stream *a = pa, *b = pb;
  return (a->stream > b->stream) - (a->stream < b->stream);
}

typedef struct {
  long count;
  double sum, sumsq, min, max;
} kacc;

static int kstat_cmp(const void *pa, const void *pb) {
  const tr_kernel_stat *a = pa, *b = pb;
  if (a->sum_us != b->sum_us) return a->sum_us > b->sum_us ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* HTA's analyses. The GPU rows are sorted by start (join_and_sort), which is also HTA's order
 * after rounding since ceil is monotone. */
/* HTA's last-step filter: the steps analysed and the span of the one dropped. */
typedef struct {
  int64_t last_start, last_end;
} hta_window;

static hta_window hta_filter(col *c, const tr_rank_opts *opts) {
  tr_hta *h = &c->out->hta;
  bool round = c->float_ts;
  /* HTA filters only when it sees at least two distinct ProfilerStep names. */
  long *ns = pd_xmalloc((c->nst + 1) * sizeof *ns);
  for (size_t i = 0; i < c->nst; i++) ns[i] = c->st[i].n;
  qsort(ns, c->nst, sizeof *ns, trr_long_cmp);
  size_t nd = 0;
  for (size_t i = 0; i < c->nst; i++)
    if (i == 0 || ns[i] != ns[i - 1]) ns[nd++] = ns[i];
  h->filtered = nd >= 2;
  hta_window w = {INT64_MIN, INT64_MIN};
  long last_n = -1;
  for (size_t i = 0; i < c->nst; i++) {
    hspan sp = hta_span(round, c->st[i].ts, c->st[i].end, c->st[i].adj);
    if (sp.ts > w.last_start) {
      w.last_start = sp.ts;
      last_n = c->st[i].n;
    }
    if (sp.end > w.last_end) w.last_end = sp.end;
  }
  h->iterations = ns;
  h->n_iterations = nd;
  if (h->filtered && !opts->include_last) {
    h->dropped_step = last_n;
    size_t k = 0; /* iterations analysed: the steps that start before the last one */
    for (size_t i = 0; i < nd; i++) {
      bool early = false;
      for (size_t j = 0; j < c->nst; j++)
        if (c->st[j].n == ns[i] && hta_span(round, c->st[j].ts, c->st[j].end, c->st[j].adj).ts < w.last_start) early = true;
      if (early) ns[k++] = ns[i];
    }
    h->n_iterations = k;
  }
  return w;
}

/* What the pass over the GPU rows accumulates. */
typedef struct {
  tr_ivs all, comp, comm, mem;
  int64_t cm_all, cm_comp, cm_comm, cm_mem;
  tr_ivs x_all, x_comp; /* the same rows unrounded, for explaining a negative non-compute */
  int64_t cm_x_all, cm_x_comp;
  kacc *acc;        /* per kernel name */
  int64_t *delays;  /* launch delays */
  size_t ndel, cap_idle;
  stream_state *ss; /* per stream, parallel to ss_stream */
  long *ss_stream;
  size_t nss, capss, cap_sss;
} hta_acc;

/* Per-stream idle: the gap to the previous row on the stream (in ts order, not a running
 * maximum, as HTA computes it). */
static void hta_stream_gap(hta_acc *a, tr_hta *h, const gev *g, hspan sp, hspan rs) {
  size_t k = 0;
  while (k < a->nss && a->ss_stream[k] != g->stream) k++;
  if (k == a->nss) {
    size_t n = a->nss;
    *PD_PUSH(a->ss_stream, n, a->cap_sss) = g->stream;
    stream_state *st = PD_PUSH(a->ss, a->nss, a->capss);
    st->idle = h->n_idle;
    tr_idle_stream *is = PD_PUSH(h->idle, h->n_idle, a->cap_idle);
    memset(is, 0, sizeof *is);
    is->stream = g->stream;
  } else {
    tr_idle_stream *is = &h->idle[a->ss[k].idle];
    int64_t prev_end = a->ss[k].prev_end, gap = sp.ts - prev_end;
    double gus = (double)gap / 1000.0;
    if (g->has_rt && rs.ts > prev_end) is->host_wait_us += gus;
    else if (gap < KERNEL_WAIT_NS) is->kernel_wait_us += gus;
    else is->other_us += gus;
  }
  a->ss[k].prev_end = sp.end;
}

static void hta_row(col *c, hta_acc *a, const gev *g, hspan sp, hspan rs) {
  tr_hta *h = &c->out->hta;
  h->n_kernels++;
  int cls = trr_names_class(&c->nm, g->name);
  trr_merge_in_order(&a->all, &a->cm_all, sp.ts, sp.end);
  if (cls == TR_COMP) trr_merge_in_order(&a->comp, &a->cm_comp, sp.ts, sp.end);
  else if (cls == TR_COMM) trr_merge_in_order(&a->comm, &a->cm_comm, sp.ts, sp.end);
  else if (cls == TR_MEM) trr_merge_in_order(&a->mem, &a->cm_mem, sp.ts, sp.end);
  trr_merge_in_order(&a->x_all, &a->cm_x_all, g->ts, g->end);
  if (cls == TR_COMP) trr_merge_in_order(&a->x_comp, &a->cm_x_comp, g->ts, g->end);
  if (sp.end < sp.ts && cls != TR_COMP) { /* rounding made a sub-µs row negative */
    h->neg_rows++;
    h->neg_us += (double)(sp.end - sp.ts) / 1000.0;
  }
  if (g->kcat) hta_stream_gap(a, h, g, sp, rs);
  kacc *k = &a->acc[g->name];
  double d = (double)(sp.end - sp.ts) / 1000.0;
  if (k->count == 0 || d < k->min) k->min = d;
  if (k->count == 0 || d > k->max) k->max = d;
  k->count++;
  k->sum += d;
  k->sumsq += d * d;
  if (g->launch) {
    int64_t delay = sp.ts - rs.end;
    if (delay < 0) delay = 0;
    a->delays[a->ndel++] = delay;
    h->launch_n++;
    if (delay > 100000) h->launch_delay_over_100++;
    if (rs.end - rs.ts > 50000) h->launch_cpu_over_50++;
    if (sp.end - sp.ts < rs.end - rs.ts) h->launch_gpu_shorter++;
  }
}

/* The temporal breakdown and the kernel-type sweep from the accumulated intervals. */
static void hta_breakdown(tr_hta *h, hta_acc *a) {
  if (a->all.n) {
    int64_t kt = a->all.v[a->all.n - 1].e - a->all.v[0].b;
    int64_t idle_t = kt - tr_ivs_total(&a->all);
    int64_t comp_t = tr_ivs_total(&a->comp);
    h->kernel_time_us = (double)kt / 1000.0;
    h->idle_us = (double)idle_t / 1000.0;
    h->compute_us = (double)comp_t / 1000.0;
    h->non_compute_us = (double)(kt - comp_t - idle_t) / 1000.0;
    h->non_compute_exact_us = (double)(tr_ivs_total(&a->x_all) - tr_ivs_total(&a->x_comp)) / 1000.0;
  }
  const tr_ivs *cc[2] = {&a->comm, &a->comp};
  int64_t t2[8];
  tr_ivs_sweep(cc, 2, t2);
  int64_t comm_t = tr_ivs_total(&a->comm);
  h->comm_us = (double)comm_t / 1000.0;
  h->overlap_us = (double)t2[3] / 1000.0;
  h->overlap_pct = comm_t ? 100.0 * (double)t2[3] / (double)comm_t : NAN;
  const tr_ivs *cm[3] = {&a->comp, &a->comm, &a->mem};
  int64_t t3[8];
  tr_ivs_sweep(cm, 3, t3);
  for (int m = 0; m < 8; m++) h->type_us[m] = (double)t3[m] / 1000.0;
}

/* Per-name statistics (sample std, as pandas). */
static void hta_kernel_stats(col *c, tr_hta *h, const kacc *acc) {
  size_t nk = 0;
  for (size_t id = 0; id < c->nm.in.n; id++) nk += acc[id].count ? 1 : 0;
  h->kernels = pd_xcalloc(nk + 1, sizeof *h->kernels);
  for (size_t id = 0; id < c->nm.in.n; id++) {
    const kacc *a = &acc[id];
    if (!a->count) continue;
    tr_kernel_stat *k = &h->kernels[h->n_kernel_stats++];
    k->name = pd_xstrdup(c->nm.in.str[id]);
    k->cls = trr_names_class(&c->nm, (uint32_t)id);
    k->count = a->count;
    k->sum_us = a->sum;
    k->min_us = a->min;
    k->max_us = a->max;
    k->mean_us = a->sum / (double)a->count;
    double var = a->count > 1 ? (a->sumsq - a->sum * a->sum / (double)a->count) / (double)(a->count - 1) : 0;
    k->std_us = var > 0 ? sqrt(var) : 0;
  }
  qsort(h->kernels, h->n_kernel_stats, sizeof *h->kernels, kstat_cmp);
}

static void hta_launch_stats(tr_hta *h, int64_t *delays, size_t ndel) {
  if (!ndel) return;
  pd_sort_inline(delays, ndel, sizeof *delays, trr_i64_cmp);
  double med = ndel % 2 ? (double)delays[ndel / 2]
                        : ((double)delays[ndel / 2 - 1] + (double)delays[ndel / 2]) / 2.0;
  double sum = 0;
  for (size_t i = 0; i < ndel; i++) sum += (double)delays[i];
  h->launch_median_delay_us = med / 1000.0;
  h->launch_mean_delay_us = sum / (double)ndel / 1000.0;
}

void trr_analyze_hta(col *c, const tr_rank_opts *opts) {
  tr_hta *h = &c->out->hta;
  bool round = c->float_ts;
  h->rounded = round;
  h->dropped_step = -1;
  hta_window w = hta_filter(c, opts);
  hta_acc a = {.cm_all = INT64_MIN, .cm_comp = INT64_MIN, .cm_comm = INT64_MIN, .cm_mem = INT64_MIN,
               .cm_x_all = INT64_MIN, .cm_x_comp = INT64_MIN};
  a.acc = pd_xcalloc(c->nm.in.n + 1, sizeof *a.acc);
  a.delays = pd_xmalloc((c->ng + 1) * sizeof *a.delays);
  for (size_t i = 0; i < c->ng; i++) {
    const gev *g = &c->g[i];
    hspan sp = hta_span(round, g->ts, g->end, g->adj);
    hspan rs = g->has_rt ? hta_span(round, g->link, g->link + g->rt_dur, g->rt_adj) : (hspan){0, 0};
    if (h->filtered) {
      /* keep GPU rows launched by a CPU row inside the kept steps; a stream row without a
       * correlation is a "CPU row" to HTA and is judged by its own ts */
      int64_t t;
      if (g->has_corr) {
        if (!g->has_rt) continue;
        t = rs.ts;
      } else {
        t = sp.ts;
      }
      if (opts->include_last ? t > w.last_end : t >= w.last_start) continue;
    }
    hta_row(c, &a, g, sp, rs);
  }
  free(a.ss);
  free(a.ss_stream);
  if (h->n_idle) qsort(h->idle, h->n_idle, sizeof *h->idle, idle_stream_cmp);
  hta_breakdown(h, &a);
  tr_ivs_free(&a.all);
  tr_ivs_free(&a.comp);
  tr_ivs_free(&a.comm);
  tr_ivs_free(&a.mem);
  tr_ivs_free(&a.x_all);
  tr_ivs_free(&a.x_comp);
  hta_kernel_stats(c, h, a.acc);
  free(a.acc);
  hta_launch_stats(h, a.delays, a.ndel);
  free(a.delays);
}
