#include "trace/summary.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "trace/effsum.h"
#include "trace/kname.h"
#include "trace/ktab.h"

#ifndef PD_VERSION
#define PD_VERSION "dev"
#endif

static const char *const TYPE_NAMES[8] = {
    "",
    "COMPUTATION",
    "COMMUNICATION",
    "COMPUTATION overlapping COMMUNICATION",
    "MEMORY",
    "COMPUTATION overlapping MEMORY",
    "COMMUNICATION overlapping MEMORY",
    "COMPUTATION overlapping COMMUNICATION overlapping MEMORY",
};

static const char *class_name(int cls) {
  switch (cls) {
  case TR_COMP: return "COMPUTATION";
  case TR_COMM: return "COMMUNICATION";
  case TR_MEM: return "MEMORY";
  default: return "OTHER";
  }
}

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0; }

/* "rank 3", or "rank 3 [file]" when another file claims the same rank. */
static char *rank_label(const tr_report *rep, size_t i) {
  const tr_rank *r = rep->ranks[i];
  for (size_t j = 0; j < rep->n; j++)
    if (j != i && !rep->ranks[j]->err && rep->ranks[j]->rank == r->rank)
      return pd_xasprintf("rank %d [%s]", r->rank, pd_path_base(r->file));
  return pd_xasprintf("rank %d", r->rank);
}

static size_t n_ok(const tr_report *rep) {
  size_t k = 0;
  for (size_t i = 0; i < rep->n; i++) k += rep->ranks[i]->err ? 0 : 1;
  return k;
}

static bool any_memory(const tr_report *rep) {
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err && rep->ranks[i]->has_memory_events) return true;
  return false;
}

static bool any_gpu_memory(const tr_report *rep) {
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err && rep->ranks[i]->memory.measured) return true;
  return false;
}

static const char *profiler_target(const tr_report *rep) {
  for (size_t i = 0; i < rep->n; i++) {
    const char *b = pd_path_base(rep->ranks[i]->file);
    if (strstr(b, "train_overall")) return "train_overall";
    if (strstr(b, "train_actor")) return "train_actor";
    if (strstr(b, "train_log_probs")) return "train_log_probs";
  }
  return "not named in the file names (Relax writes train_overall by default)";
}

/* ---- hypotheses: each names its evidence and the experiment that would confirm it ---- */

typedef struct {
  char **v;
  size_t n, cap;
} strlist;

static void sum_add(strlist *l, char *s) { *PD_PUSH(l->v, l->n, l->cap) = s; }
static void sum_add_cb(void *l, char *s) { sum_add(l, s); }

/* Appends "#1, #2, #3" for the rows of `rows` (n of them) whose flag is set. */
static void step_list(pd_buf *b, const long *steps, const bool *flag, size_t n) {
  bool first = true;
  for (size_t i = 0; i < n; i++)
    if (flag[i]) {
      pd_buf_printf(b, "%s#%ld", first ? "" : ", ", steps[i]);
      first = false;
    }
}

/* One kind of per-rank loss, gathered over ranks so that the same sentence is not repeated. */
typedef struct {
  pd_buf ranks;
  double lo, hi;
  size_t n;
} rank_group;

static void group_add(rank_group *g, const char *label, double v) {
  pd_buf_printf(&g->ranks, "%s%s", g->n ? ", " : "", label);
  if (!g->n || v < g->lo) g->lo = v;
  if (!g->n || v > g->hi) g->hi = v;
  g->n++;
}

static char *group_share(const rank_group *g) {
  if (g->hi - g->lo < 0.05) return pd_xasprintf("%.1f %%", g->hi);
  return pd_xasprintf("%.1f–%.1f %%", g->lo, g->hi);
}

/* Per rank, the dominant losses, gathered over ranks so that one sentence covers them. */
static void hyp_rank_losses(const tr_report *rep, strlist *out) {
  const tr_cross *x = rep->cross;
  rank_group data = {0}, launch = {0}, comm_wait = {0}, comm_bw = {0};
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    double win = 0, d = 0, l = 0, c = 0;
    for (size_t s = 0; s < r->n_steps; s++) {
      win += r->steps[s].window_us;
      d += r->steps[s].idle_data_us;
      l += r->steps[s].idle_launch_us;
      c += r->steps[s].exposed_comm_us;
    }
    if (win <= 0) continue;
    char *lab = rank_label(rep, i);
    if (d > 0.2 * win) group_add(&data, lab, pct(d, win));
    if (l > 0.2 * win) group_add(&launch, lab, pct(l, win));
    const tr_coll_rank *cr = &x->per_rank[i];
    if (c > 0.2 * win) {
      if (cr->nccl_us > 0 && cr->wait_us > 0.5 * cr->nccl_us) group_add(&comm_wait, lab, pct(c, win));
      else group_add(&comm_bw, lab, pct(c, win));
    }
    free(lab);
  }
  char *sh;
  if (data.n) {
    sh = group_share(&data);
    sum_add(out, pd_xasprintf("On %s the GPU has no work queued while the host is outside launch activity for %s "
                          "of the step windows (data supply or other host-side work): re-profile with "
                          "--profile-with-stack to see which Python code runs in those gaps.",
                          data.ranks.data, sh));
    free(sh);
  }
  if (launch.n) {
    sh = group_share(&launch);
    sum_add(out, pd_xasprintf("On %s the host is issuing work while the GPU idles for %s of the step windows "
                          "(launch-bound): check the launch delays and runtime-call durations in the HTA "
                          "launch statistics and the CPU time of the ops between kernels.",
                          launch.ranks.data, sh));
    free(sh);
  }
  if (comm_wait.n) {
    sh = group_share(&comm_wait);
    sum_add(out, pd_xasprintf("On %s communication not hidden by compute takes %s of the step windows, and most "
                          "of their NCCL time is spent waiting for the last peer: fix the late arrival (see "
                          "the collectives table) before tuning communication.",
                          comm_wait.ranks.data, sh));
    free(sh);
  }
  if (comm_bw.n) {
    sh = group_share(&comm_bw);
    sum_add(out, pd_xasprintf("On %s communication not hidden by compute takes %s of the step windows%s: compare "
                          "the collectives' message sizes and durations with the link bandwidth, and check "
                          "whether they could overlap with compute.",
                          comm_bw.ranks.data, sh,
                          x->coll_instances ? " without much waiting for peers"
                          : !x->coll_total && x->p2p_kernels ? " (point-to-point send/recv only: pipeline transfers)"
                                                             : " (no cross-rank match to split wait from transfer)"));
    free(sh);
  }
  pd_buf_free(&data.ranks);
  pd_buf_free(&launch.ranks);
  pd_buf_free(&comm_wait.ranks);
  pd_buf_free(&comm_bw.ranks);
}

static void build_hypotheses(const tr_report *rep, strlist *out) {
  const tr_cross *x = rep->cross;
  size_t ok = n_ok(rep);
  /* stragglers at collectives */
  double total_wait = 0;
  for (size_t i = 0; i < rep->n; i++) total_wait += x->per_rank[i].wait_us;
  for (size_t i = 0; i < rep->n; i++) {
    const tr_coll_rank *c = &x->per_rank[i];
    if (rep->ranks[i]->err || c->arrived_last == 0 || c->instances < 2) continue;
    if (c->arrived_last * 2 < c->instances || c->imposed_us < 0.2 * total_wait / (double)ok || c->imposed_us < 1000)
      continue;
    char *l = rank_label(rep, i);
    sum_add(out, pd_xasprintf("%s starts %ld of %ld matched collectives last and makes its peers wait %.1f ms in "
                          "total: compare its data-supply idle and compute time per step with its peers "
                          "(tables above), and its data-loader / TransferQueue timings in the Relax timeline.",
                          l, c->arrived_last, c->instances, c->imposed_us / 1000.0));
    free(l);
  }
  /* DP groups: data-supply outliers and compute spread, one sentence per rank over its steps */
  if (x->n_dp) {
    long *steps = pd_xmalloc(x->n_dp * sizeof *steps);
    bool *flag = pd_xmalloc(x->n_dp * sizeof *flag);
    for (size_t k = 0; k < x->n_dp; k++) steps[k] = x->dp[k].step;
    for (size_t i = 0; i < rep->n; i++) {
      if (rep->ranks[i]->err) continue;
      size_t nd = 0, nc = 0, first_d = 0, first_c = 0;
      double excess = 0;
      for (size_t k = 0; k < x->n_dp; k++) {
        const tr_dp_row *d = &x->dp[k];
        double e = d->data_max_us - d->data_median_us;
        flag[k] = d->most_data == (int)i && e > 5000 && e > 0.05 * d->mean_us;
        if (flag[k] && nd++ == 0) first_d = k;
        if (flag[k]) excess += e;
      }
      if (nd) {
        const tr_dp_row *d = &x->dp[first_d];
        char *l = rank_label(rep, i);
        pd_buf b = {0};
        pd_buf_printf(&b, "%s has %.1f ms more data-supply idle (GPU idle, nothing queued, host outside launch "
                          "activity) than the median of its DP group on average in step(s) ",
                      l, excess / (double)nd / 1000.0);
        step_list(&b, steps, flag, x->n_dp);
        pd_buf_printf(&b, " (%.1f vs %.1f ms in #%ld): check its data loading for those steps (e.g. "
                          "train_get_data in the timeline written by Relax's --timeline-dump-dir).",
                      d->data_max_us / 1000.0, d->data_median_us / 1000.0, d->step);
        sum_add(out, pd_buf_take(&b));
        free(l);
      }
      for (size_t k = 0; k < x->n_dp; k++) {
        flag[k] = x->dp[k].slowest == (int)i && x->dp[k].spread_pct > 5;
        if (flag[k] && nc++ == 0) first_c = k;
      }
      if (nc) {
        const tr_dp_row *d = &x->dp[first_c];
        char *l = rank_label(rep, i);
        pd_buf b = {0};
        pd_buf_printf(&b, "%s computes the most among the DP ranks of its pp/tp position in step(s) ", l);
        step_list(&b, steps, flag, x->n_dp);
        pd_buf_printf(&b, " (%.1f ms vs a mean of %.1f ms, spread %.1f %% in #%ld): compare the tokens per "
                          "micro-batch each rank received in those steps.",
                      d->max_us / 1000.0, d->mean_us / 1000.0, d->spread_pct, d->step);
        sum_add(out, pd_buf_take(&b));
        free(l);
      }
    }
    free(steps);
    free(flag);
  }
  /* pipeline: the worst stage against the 1F1B ideal */
  const tr_pp_row *worst = NULL;
  size_t worst_s = 0;
  for (size_t k = 0; k < x->n_pp; k++) {
    const tr_pp_row *p = &x->pp[k];
    if (p->ideal_pct < 0) continue;
    for (size_t st = 0; st < p->n; st++)
      if (!worst || p->stages[st].bubble_pct - p->ideal_pct > worst->stages[worst_s].bubble_pct - worst->ideal_pct) {
        worst = p;
        worst_s = st;
      }
  }
  if (worst && worst->stages[worst_s].bubble_pct > worst->ideal_pct + 2)
    sum_add(out, pd_xasprintf("PP stage %d has a %.1f %% bubble in step #%ld against the 1F1B ideal of %.1f %% "
                          "(p=%d, m=%ld): compare the stages' forward/backward kernel time per micro-batch to "
                          "see whether the layers are split unevenly, and the P2P kernels for slow transfers.",
                          worst->stages[worst_s].pp, worst->stages[worst_s].bubble_pct, worst->step,
                          worst->ideal_pct, worst->p, worst->m));
  hyp_rank_losses(rep, out);
  tr_eff_hypotheses(rep, sum_add_cb, out);
}

/* ---- JSON ---- */

static json_t *jn(double x) {
  if (isnan(x) || isinf(x)) return json_null();
  double r = round(x * 1000.0) / 1000.0;
  if (r == floor(r) && fabs(r) < 9e15) return json_integer((json_int_t)r);
  return json_real(r);
}

static json_t *jp(double x) { return isnan(x) ? json_null() : json_real(round(x * 100.0) / 100.0); }

/* Collective kernel time per process-group size over the step windows (waiting for peers
 * included): what the TP, CP or DP groups cost, when their sizes tell them apart. */
static json_t *by_group_json(const tr_rank *r) {
  enum { MAX_GROUPS = 16 };
  typedef struct {
    int size;
    long n;
    double us;
  } group;
  group g[MAX_GROUPS];
  size_t ng = 0;
  double win = 0;
  for (size_t k = 0; k < r->n_steps; k++) win += r->steps[k].window_us;
  for (size_t c = 0; c < r->n_colls; c++) {
    const tr_coll *x = &r->colls[c];
    bool in_step = false;
    for (size_t k = 0; k < r->n_steps && !in_step; k++) in_step = r->steps[k].step == x->step;
    if (x->group < 1 || !in_step) continue;
    size_t j = 0;
    while (j < ng && g[j].size != x->group) j++;
    if (j == ng) {
      if (ng == MAX_GROUPS) continue;
      g[ng++] = (group){x->group, 0, 0};
    }
    g[j].n++;
    g[j].us += (double)(x->e - x->b) / 1000.0;
  }
  json_t *a = json_array();
  for (size_t j = 0; j < ng; j++)
    json_array_append_new(a, json_pack("{s:i, s:I, s:o, s:o}", "group_size", g[j].size, "kernels", (json_int_t)g[j].n,
                                       "kernel_us", jn(g[j].us), "pct_of_steps", jn(win > 0 ? 100.0 * g[j].us / win : NAN)));
  return a;
}

static json_t *json_rank(const tr_report *rep, size_t i) {
  const tr_rank *r = rep->ranks[i];
  const tr_hta *h = &r->hta;
  json_t *o = json_object();
  json_object_set_new(o, "rank", json_integer(r->rank));
  json_object_set_new(o, "file", json_string(r->file));
  json_object_set_new(o, "rank_source", json_string(r->rank_source));
  json_object_set_new(o, "world_size", r->world_size >= 0 ? json_integer(r->world_size) : json_null());
  json_object_set_new(o, "dp", r->dp >= 0 ? json_integer(r->dp) : json_null());
  json_object_set_new(o, "tp", r->tp >= 0 ? json_integer(r->tp) : json_null());
  json_object_set_new(o, "pp", r->pp >= 0 ? json_integer(r->pp) : json_null());
  json_object_set_new(o, "bytes", json_integer((json_int_t)r->file_bytes));
  json_object_set_new(o, "json_bytes", json_integer((json_int_t)r->json_bytes));
  json_object_set_new(o, "events", json_integer((json_int_t)r->n_events));
  json_object_set_new(o, "base_time_ns", r->has_base ? json_integer(r->base_ns) : json_null());
  json_t *streams = json_array();
  for (size_t s = 0; s < r->n_streams; s++) json_array_append_new(streams, json_integer(r->streams[s]));
  json_object_set_new(o, "streams", streams);

  json_t *hj = json_object();
  json_object_set_new(hj, "kernel_time_us", jn(h->kernel_time_us));
  json_object_set_new(hj, "idle_us", jn(h->idle_us));
  json_object_set_new(hj, "compute_us", jn(h->compute_us));
  json_object_set_new(hj, "non_compute_us", jn(h->non_compute_us));
  json_object_set_new(hj, "idle_pct", jp(pct(h->idle_us, h->kernel_time_us)));
  json_object_set_new(hj, "compute_pct", jp(pct(h->compute_us, h->kernel_time_us)));
  json_object_set_new(hj, "non_compute_pct", jp(pct(h->non_compute_us, h->kernel_time_us)));
  json_object_set_new(hj, "non_compute_unrounded_us", jn(h->non_compute_exact_us));
  json_object_set_new(hj, "negative_rounded_rows", json_integer(h->neg_rows));
  json_object_set_new(hj, "comm_comp_overlap_pct", jp(h->overlap_pct));
  json_object_set_new(hj, "comm_us", jn(h->comm_us));
  json_object_set_new(hj, "gpu_rows", json_integer(h->n_kernels));
  json_t *it = json_array();
  for (size_t k = 0; k < h->n_iterations; k++) json_array_append_new(it, json_integer(h->iterations[k]));
  json_object_set_new(hj, "iterations", it);
  json_object_set_new(hj, "dropped_step", h->dropped_step >= 0 ? json_integer(h->dropped_step) : json_null());
  json_object_set_new(hj, "ns_rounding", json_boolean(h->rounded));
  json_t *idle = json_array();
  for (size_t k = 0; k < h->n_idle; k++) {
    json_t *s = json_object();
    json_object_set_new(s, "stream", json_integer(h->idle[k].stream));
    json_object_set_new(s, "host_wait_us", jn(h->idle[k].host_wait_us));
    json_object_set_new(s, "kernel_wait_us", jn(h->idle[k].kernel_wait_us));
    json_object_set_new(s, "other_us", jn(h->idle[k].other_us));
    json_array_append_new(idle, s);
  }
  json_object_set_new(hj, "idle_breakdown", idle);
  json_t *kt = json_object();
  for (int m = 1; m < 8; m++) json_object_set_new(kt, TYPE_NAMES[m], jn(h->type_us[m]));
  json_object_set_new(hj, "kernel_types_us", kt);
  json_t *top = json_array();
  for (size_t k = 0; k < h->n_kernel_stats && k < 10; k++) {
    const tr_kernel_stat *ks = &h->kernels[k];
    json_t *s = json_object();
    json_object_set_new(s, "name", json_string(ks->name));
    json_object_set_new(s, "type", json_string(class_name(ks->cls)));
    json_object_set_new(s, "count", json_integer(ks->count));
    json_object_set_new(s, "sum_us", jn(ks->sum_us));
    json_object_set_new(s, "mean_us", jn(ks->mean_us));
    json_object_set_new(s, "min_us", jn(ks->min_us));
    json_object_set_new(s, "max_us", jn(ks->max_us));
    json_object_set_new(s, "std_us", jn(ks->std_us));
    json_array_append_new(top, s);
  }
  json_object_set_new(hj, "top_kernels", top);
  json_t *ls = json_object();
  json_object_set_new(ls, "launches", json_integer(h->launch_n));
  json_object_set_new(ls, "median_delay_us", jn(h->launch_median_delay_us));
  json_object_set_new(ls, "mean_delay_us", jn(h->launch_mean_delay_us));
  json_object_set_new(ls, "delay_over_100us", json_integer(h->launch_delay_over_100));
  json_object_set_new(ls, "runtime_over_50us", json_integer(h->launch_cpu_over_50));
  json_object_set_new(ls, "gpu_shorter_than_runtime", json_integer(h->launch_gpu_shorter));
  json_object_set_new(hj, "launch", ls);
  json_object_set_new(o, "hta", hj);

  json_t *steps = json_array();
  for (size_t k = 0; k < r->n_steps; k++) {
    const tr_step *s = &r->steps[k];
    json_t *so = json_object();
    json_object_set_new(so, "step", s->step >= 0 ? json_integer(s->step) : json_null());
    json_object_set_new(so, "window_us", jn(s->window_us));
    const struct {
      const char *name;
      double v;
    } parts[] = {{"compute", s->compute_us},
                 {"exposed_comm", s->exposed_comm_us},
                 {"exposed_memcpy", s->exposed_mem_us},
                 {"other_gpu", s->other_gpu_us},
                 {"idle_collective_wait", s->idle_collective_us},
                 {"idle_launch_bound", s->idle_launch_us},
                 {"idle_data_supply", s->idle_data_us}};
    for (size_t t = 0; t < sizeof parts / sizeof *parts; t++) {
      char key[64];
      snprintf(key, sizeof key, "%s_us", parts[t].name);
      json_object_set_new(so, key, jn(parts[t].v));
      snprintf(key, sizeof key, "%s_pct", parts[t].name);
      json_object_set_new(so, key, jp(pct(parts[t].v, s->window_us)));
    }
    json_object_set_new(so, "comm_kernels_us", jn(s->comm_us));
    json_object_set_new(so, "gpu_rows", json_integer(s->n_kernels));
    if (s->has_phase) {
      json_object_set_new(so, "pipeline_phase_us", jn((double)(s->phase_e - s->phase_b) / 1000.0));
      json_object_set_new(so, "pipeline_phase_compute_us", jn(s->phase_busy_us));
      json_object_set_new(so, "p2p_kernels", json_integer(s->p2p_kernels));
    }
    json_array_append_new(steps, so);
  }
  json_object_set_new(o, "steps", steps);
  const tr_coll_rank *c = &rep->cross->per_rank[i];
  json_t *co = json_object();
  json_object_set_new(co, "matched", json_integer(c->instances));
  json_object_set_new(co, "nccl_us", jn(c->nccl_us));
  json_object_set_new(co, "wait_us", jn(c->wait_us));
  json_object_set_new(co, "transfer_us", jn(c->transfer_us));
  json_object_set_new(co, "arrived_last", json_integer(c->arrived_last));
  json_object_set_new(co, "imposed_wait_us", jn(c->imposed_us));
  json_object_set_new(co, "collective_kernels", json_integer((json_int_t)r->n_colls));
  json_object_set_new(co, "p2p_kernels", json_integer(r->p2p_kernels));
  json_object_set_new(co, "by_group", by_group_json(r));
  json_object_set_new(o, "collectives", co);
  tr_eff_rank_json(o, r);
  return o;
}

double tr_summary_num(const json_t *o, const char *key) {
  const json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

long long tr_summary_int(const json_t *o, const char *key) {
  double v = tr_summary_num(o, key);
  return isfinite(v) && fabs(v) < 9e18 ? (long long)v : -1;
}

const json_t *tr_summary_job(const json_t *summary) {
  const json_t *jobs = json_object_get(summary, "jobs");
  return json_is_array(jobs) && json_array_size(jobs) ? json_array_get(jobs, 0) : summary;
}

json_t *tr_summary_job_ranks(const json_t *summary) {
  const json_t *jobs = json_object_get(summary, "jobs");
  json_int_t id = json_array_size(jobs) ? json_integer_value(json_object_get(json_array_get(jobs, 0), "id")) : -1;
  json_t *out = json_array();
  size_t i;
  json_t *rk;
  json_array_foreach(json_object_get(summary, "ranks"), i, rk)
    if (id < 0 || json_integer_value(json_object_get(rk, "job")) == id) json_array_append(out, rk);
  return out;
}

char *tr_summary_dump(const json_t *doc) {
  char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
  char *out = pd_xstrdup(s ? s : "{}");
  free(s);
  return out;
}

json_t *tr_summary_json_value(const tr_report *rep) {
  const tr_cross *x = rep->cross;
  json_t *root = json_object();
  json_object_set_new(root, "tool", json_string("perf-doctor trace"));
  json_object_set_new(root, "version", json_string(PD_VERSION));
  json_t *src = json_object();
  json_object_set_new(src, "path", json_string(rep->path));
  json_object_set_new(src, "files", json_integer((json_int_t)rep->n));
  json_object_set_new(src, "read", json_integer((json_int_t)n_ok(rep)));
  json_object_set_new(src, "failed", json_integer((json_int_t)(rep->n - n_ok(rep))));
  json_object_set_new(src, "profiler_target", json_string(profiler_target(rep)));
  json_object_set_new(root, "source", src);
  json_object_set_new(root, "include_last_profiler_step", json_boolean(rep->include_last));
  json_object_set_new(root, "gpu_memory", json_string(any_gpu_memory(rep) ? "measured (ranks[].memory)"
                                                     : any_memory(rep) ? "not measured: [memory] events only for the CPU"
                                                                       : "not measured"));
  json_t *errs = json_array();
  for (size_t i = 0; i < rep->n; i++)
    if (rep->ranks[i]->err) {
      json_t *e = json_object();
      json_object_set_new(e, "file", json_string(rep->ranks[i]->file));
      json_object_set_new(e, "message", json_string(rep->ranks[i]->err));
      json_array_append_new(errs, e);
    }
  json_object_set_new(root, "errors", errs);
  json_t *ranks = json_array();
  double kt[8] = {0};
  for (size_t i = 0; i < rep->n; i++) {
    if (rep->ranks[i]->err) continue;
    json_array_append_new(ranks, json_rank(rep, i));
    for (int m = 1; m < 8; m++) kt[m] += rep->ranks[i]->hta.type_us[m];
  }
  json_object_set_new(root, "ranks", ranks);
  json_t *kto = json_object();
  double kts = 0;
  for (int m = 1; m < 8; m++) kts += kt[m];
  for (int m = 1; m < 8; m++) {
    json_t *e = json_object();
    json_object_set_new(e, "us", jn(kt[m]));
    json_object_set_new(e, "pct", json_real(round(pct(kt[m], kts) * 10.0) / 10.0));
    json_object_set_new(kto, TYPE_NAMES[m], e);
  }
  json_object_set_new(root, "kernel_types_all_ranks", kto);
  tr_ktab kernels;
  tr_ktab_build(rep, &kernels);
  json_object_set_new(root, "kernels", tr_ktab_json(&kernels));
  tr_ktab_free(&kernels);

  json_t *cross = json_object();
  json_t *cj = json_object();
  json_object_set_new(cj, "collective_kernels", json_integer(x->coll_total));
  json_object_set_new(cj, "p2p_kernels", json_integer(x->p2p_kernels));
  json_object_set_new(cj, "matched_instances", json_integer(x->coll_instances));
  json_object_set_new(cj, "matched_by", json_string(x->coll_instances ? x->match_basis : "none"));
  json_t *last = json_array();
  for (size_t i = 0; i < rep->n; i++) {
    const tr_coll_rank *c = &x->per_rank[i];
    if (rep->ranks[i]->err || !c->arrived_last) continue;
    json_t *e = json_object();
    json_object_set_new(e, "rank", json_integer(rep->ranks[i]->rank));
    json_object_set_new(e, "file", json_string(rep->ranks[i]->file));
    json_object_set_new(e, "arrived_last", json_integer(c->arrived_last));
    json_object_set_new(e, "instances", json_integer(c->instances));
    json_object_set_new(e, "imposed_wait_us", jn(c->imposed_us));
    json_array_append_new(last, e);
  }
  json_object_set_new(cj, "last_arrivals", last);
  json_object_set_new(cj, "bandwidth", tr_eff_bw_json(rep));
  json_object_set_new(cross, "collectives", cj);
  json_t *dp = json_array();
  for (size_t k = 0; k < x->n_dp; k++) {
    const tr_dp_row *d = &x->dp[k];
    json_t *e = json_object();
    json_object_set_new(e, "step", json_integer(d->step));
    json_object_set_new(e, "pp", d->pp >= 0 ? json_integer(d->pp) : json_null());
    json_object_set_new(e, "tp", d->tp >= 0 ? json_integer(d->tp) : json_null());
    json_t *rk = json_array();
    for (size_t t = 0; t < d->n; t++) json_array_append_new(rk, json_integer(rep->ranks[d->idx[t]]->rank));
    json_object_set_new(e, "ranks", rk);
    json_object_set_new(e, "compute_min_us", jn(d->min_us));
    json_object_set_new(e, "compute_mean_us", jn(d->mean_us));
    json_object_set_new(e, "compute_max_us", jn(d->max_us));
    json_object_set_new(e, "spread_pct", jp(d->spread_pct));
    json_object_set_new(e, "slowest_rank", json_integer(rep->ranks[d->slowest]->rank));
    json_object_set_new(e, "most_data_supply_rank", json_integer(rep->ranks[d->most_data]->rank));
    json_object_set_new(e, "data_supply_max_us", jn(d->data_max_us));
    json_object_set_new(e, "data_supply_median_us", jn(d->data_median_us));
    json_array_append_new(dp, e);
  }
  json_object_set_new(cross, "dp_compute_spread", dp);
  json_t *pp = json_array();
  for (size_t k = 0; k < x->n_pp; k++) {
    const tr_pp_row *p = &x->pp[k];
    json_t *e = json_object();
    json_object_set_new(e, "step", json_integer(p->step));
    json_object_set_new(e, "dp", p->dp >= 0 ? json_integer(p->dp) : json_null());
    json_object_set_new(e, "tp", p->tp >= 0 ? json_integer(p->tp) : json_null());
    json_object_set_new(e, "stages", json_integer(p->p));
    json_object_set_new(e, "micro_batches", p->m > 0 ? json_integer(p->m) : json_null());
    json_object_set_new(e, "ideal_bubble_pct", p->ideal_pct >= 0 ? jp(p->ideal_pct) : json_null());
    json_object_set_new(e, "window_us", jn(p->window_us));
    json_t *st = json_array();
    for (size_t s = 0; s < p->n; s++) {
      json_t *so = json_object();
      json_object_set_new(so, "pp", json_integer(p->stages[s].pp));
      json_object_set_new(so, "rank", json_integer(rep->ranks[p->stages[s].idx]->rank));
      json_object_set_new(so, "compute_us", jn(p->stages[s].busy_us));
      json_object_set_new(so, "bubble_pct", jp(p->stages[s].bubble_pct));
      json_object_set_new(so, "bubble_in_p2p_pct", jp(p->stages[s].p2p_pct));
      json_array_append_new(st, so);
    }
    json_object_set_new(e, "per_stage", st);
    json_array_append_new(pp, e);
  }
  json_object_set_new(cross, "pipeline", pp);
  json_object_set_new(root, "cross_rank", cross);
  strlist hyp = {0};
  build_hypotheses(rep, &hyp);
  json_t *hj = json_array();
  for (size_t i = 0; i < hyp.n; i++) {
    json_array_append_new(hj, json_string(hyp.v[i]));
    free(hyp.v[i]);
  }
  free(hyp.v);
  json_object_set_new(root, "hypotheses", hj);
  return root;
}

/* ---- markdown ---- */

static void md_steps_list(pd_buf *b, const tr_rank *r) {
  for (size_t s = 0; s < r->n_steps; s++) {
    if (r->steps[s].step < 0) pd_buf_puts(b, "whole trace (no ProfilerStep markers)");
    else pd_buf_printf(b, "%s#%ld", s ? ", " : "", r->steps[s].step);
  }
}

/* Source line and the table of files read. */
static void md_source(pd_buf *b, const tr_report *rep) {
  pd_buf_printf(b, "**Source:** %zu file(s) read", n_ok(rep));
  if (n_ok(rep) != rep->n) pd_buf_printf(b, ", %zu failed", rep->n - n_ok(rep));
  pd_buf_printf(b, " from `%s` · profiler target: %s · GPU memory: %s\n\n", rep->path,
                profiler_target(rep), any_gpu_memory(rep) ? "measured (see Memory)" : "not measured");
  pd_buf_puts(b, "| rank | rank from | dp/tp/pp (file name) | world size | file | size | events |\n"
                  "|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    char par[64] = "–";
    if (r->dp >= 0 || r->tp >= 0 || r->pp >= 0) snprintf(par, sizeof par, "%d/%d/%d", r->dp, r->tp, r->pp);
    char ws[16] = "–";
    if (r->world_size >= 0) snprintf(ws, sizeof ws, "%d", r->world_size);
    pd_buf_printf(b, "| %d | %s | %s | %s | `%s` | %.1f MB%s | %llu |\n", r->rank, r->rank_source, par, ws,
                  pd_path_base(r->file), (double)r->file_bytes / 1e6, r->gzip ? " gz" : "",
                  (unsigned long long)r->n_events);
  }
  for (size_t i = 0; i < rep->n; i++)
    if (rep->ranks[i]->err) pd_buf_printf(b, "\n**Could not read:** %s", rep->ranks[i]->err);
  if (n_ok(rep) != rep->n) pd_buf_puts(b, "\n");

}

/* Window, rank / stream and filter: what the figures cover. */
static void md_scope(pd_buf *b, const tr_report *rep) {
  const tr_rank *r0 = NULL;
  for (size_t i = 0; i < rep->n && !r0; i++)
    if (!rep->ranks[i]->err) r0 = rep->ranks[i];
  pd_buf_puts(b, "\n**Window:** per-step figures cover each `ProfilerStep` span on the CPU timeline (");
  md_steps_list(b, r0);
  pd_buf_puts(b, "), GPU activity clipped to it. HTA-parity figures cover ");
  if (r0->hta.filtered) {
    pd_buf_puts(b, "the events launched in steps ");
    for (size_t k = 0; k < r0->hta.n_iterations; k++)
      pd_buf_printf(b, "%s#%ld", k ? ", " : "", r0->hta.iterations[k]);
    if (r0->hta.dropped_step >= 0)
      pd_buf_printf(b, "; #%ld is dropped because HTA drops the last ProfilerStep by default", r0->hta.dropped_step);
    pd_buf_puts(b, ".\n");
  } else {
    pd_buf_puts(b, "the whole trace (fewer than two ProfilerStep markers, so HTA does not filter).\n");
  }

  pd_buf_puts(b, "\n**Rank / stream:** ");
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    char *l = rank_label(rep, i);
    pd_buf_printf(b, "%s%s: streams ", i ? "; " : "", l);
    free(l);
    for (size_t s = 0; s < r->n_streams; s++) pd_buf_printf(b, "%s%ld", s ? "," : "", r->streams[s]);
    if (!r->n_streams) pd_buf_puts(b, "none (no GPU rows)");
  }
  pd_buf_puts(b, ". Every utilisation figure is a union over all streams of the rank's device.\n");

  pd_buf_puts(b, "\n**Filter:** HTA's name rules — communication = `^nccl|^hip|^hccl|ncclKernel`; memory = "
                  "`^Memcpy|^Memset|^dma`; compute = every other GPU row except sync/wait rows (other). "
                  "Exposed communication = communication with no compute kernel running on any stream; "
                  "exposed memcpy = copies with neither. Idle = no GPU row on any stream, split into "
                  "*collective wait* (an NCCL kernel launched but not started, or the host inside a "
                  "collective call), *launch-bound* (work launched but not started, or the host inside "
                  "CPU ops / runtime calls, gaps under 100 µs bridged) and *data supply* (nothing queued "
                  "and the host outside launch activity). NCCL kernel time includes waiting for peers; "
                  "the cross-rank section splits it. HTA figures use HTA's ns rounding");
  pd_buf_printf(b, "%s.\n", r0->hta.rounded ? " (applied: some ts are floats or missing, so pandas reads them as floats)"
                                              : " (not applied: every ts is an integer)");

}

/* A negative non-compute time is HTA's rounding, not a measurement: say so. */
static void md_negative(pd_buf *b, const tr_report *rep) {
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err || r->hta.non_compute_us >= 0) continue;
    char *l = rank_label(rep, i);
    pd_buf_printf(b, "\n%s's non-compute time is negative (%.0f µs) because HTA rounds every GPU row to whole µs (start up, "
                     "end down): %ld non-compute rows shorter than 1 µs come out with a negative length (%.0f µs in all). "
                     "The figure is kept for parity with HTA; without rounding the non-compute time is %.3f µs.\n",
                  l, r->hta.non_compute_us, r->hta.neg_rows, r->hta.neg_us, r->hta.non_compute_exact_us);
    free(l);
  }
}

/* HTA's figures per rank, kernel types, idle by stream and launch statistics. */
static void md_hta(pd_buf *b, const tr_report *rep) {
  pd_buf_puts(b, "\n## Measured\n\n### HTA parity (temporal breakdown over the GPU busy span)\n\n"
                  "| rank | kernel time µs | idle µs (%) | compute µs (%) | non-compute µs (%) | comm–comp overlap |\n"
                  "|---|---|---|---|---|---|\n");
  double kt[8] = {0}, kts = 0;
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    const tr_hta *h = &r->hta;
    char *l = rank_label(rep, i);
    char ov[32] = "n/a (no communication)";
    if (!isnan(h->overlap_pct)) snprintf(ov, sizeof ov, "%.2f %%", h->overlap_pct);
    pd_buf_printf(b, "| %s | %.0f | %.0f (%.2f) | %.0f (%.2f) | %.0f (%.2f) | %s |\n", l, h->kernel_time_us,
                  h->idle_us, pct(h->idle_us, h->kernel_time_us), h->compute_us,
                  pct(h->compute_us, h->kernel_time_us), h->non_compute_us,
                  pct(h->non_compute_us, h->kernel_time_us), ov);
    free(l);
    for (int m = 1; m < 8; m++) kt[m] += h->type_us[m];
  }
  for (int m = 1; m < 8; m++) kts += kt[m];
  md_negative(b, rep);
  pd_buf_puts(b, "\nKernel types, all ranks (exclusive sweep): ");
  bool first = true;
  for (int m = 1; m < 8; m++) {
    if (kt[m] <= 0) continue;
    pd_buf_printf(b, "%s%s %.0f µs (%.1f %%)", first ? "" : " · ", TYPE_NAMES[m], kt[m], pct(kt[m], kts));
    first = false;
  }
  if (first) pd_buf_puts(b, "no GPU kernels");
  pd_buf_puts(b, ".\n\nIdle by stream (HTA: host wait / kernel wait / other, µs) and launch statistics:\n");
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    const tr_hta *h = &r->hta;
    char *l = rank_label(rep, i);
    pd_buf_printf(b, "- %s:", l);
    free(l);
    for (size_t s = 0; s < h->n_idle; s++)
      pd_buf_printf(b, "%s stream %ld %.0f / %.0f / %.0f", s ? ";" : "", h->idle[s].stream,
                    h->idle[s].host_wait_us, h->idle[s].kernel_wait_us, h->idle[s].other_us);
    pd_buf_printf(b, ". Launches %ld, median launch delay %.0f µs, %ld delays > 100 µs, %ld runtime calls > 50 µs.",
                  h->launch_n, h->launch_median_delay_us, h->launch_delay_over_100, h->launch_cpu_over_50);
    if (h->n_kernel_stats) {
      const tr_kernel_stat *k = &h->kernels[0];
      char *kn = tr_kname_short(k->name, TR_KNAME_COMPACT);
      pd_buf_puts(b, " Top kernel: ");
      tr_kname_md_code(b, kn);
      pd_buf_printf(b, " (%s) %.0f µs in %ld calls.", class_name(k->cls), k->sum_us, k->count);
      free(kn);
    }
    pd_buf_puts(b, "\n");
  }
  tr_ktab kernels;
  tr_ktab_build(rep, &kernels);
  tr_ktab_md(b, &kernels, 10);
  tr_ktab_free(&kernels);

}

/* The exclusive per-step decomposition. */
static void md_per_step(pd_buf *b, const tr_report *rep) {
  pd_buf_puts(b, "\n### Per step (share of the ProfilerStep window; rows sum to 100 %)\n\n"
                  "| rank | step | window ms | compute | exposed comm | exposed memcpy | other GPU | idle: collective wait | idle: launch-bound | idle: data supply |\n"
                  "|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    char *l = rank_label(rep, i);
    for (size_t k = 0; k < r->n_steps; k++) {
      const tr_step *s = &r->steps[k];
      char st[24] = "all";
      if (s->step >= 0) snprintf(st, sizeof st, "#%ld", s->step);
      double w = s->window_us;
      pd_buf_printf(b, "| %s | %s | %.1f | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% |\n", l, st,
                    w / 1000.0, pct(s->compute_us, w), pct(s->exposed_comm_us, w), pct(s->exposed_mem_us, w),
                    pct(s->other_gpu_us, w), pct(s->idle_collective_us, w), pct(s->idle_launch_us, w),
                    pct(s->idle_data_us, w));
    }
    free(l);
  }

}

/* Collectives matched across ranks. */
static void md_collectives(pd_buf *b, const tr_report *rep, const tr_cross *x) {
  pd_buf_puts(b, "\n### Cross-rank\n\n");
  if (x->coll_instances) {
    pd_buf_printf(b, "Collectives: %ld instances matched across ranks (by %s) out of %ld collective kernels "
                      "(P2P send/recv excluded). NCCL time split per rank:\n\n"
                      "| rank | matched | NCCL ms | waiting for the last peer ms | transfer ms | arrived last | peers' wait caused ms |\n"
                      "|---|---|---|---|---|---|---|\n",
                  x->coll_instances, x->match_basis, x->coll_total);
    for (size_t i = 0; i < rep->n; i++) {
      const tr_coll_rank *c = &x->per_rank[i];
      if (rep->ranks[i]->err || !c->instances) continue;
      char *l = rank_label(rep, i);
      pd_buf_printf(b, "| %s | %ld | %.2f | %.2f | %.2f | %ld | %.2f |\n", l, c->instances, c->nccl_us / 1000.0,
                    c->wait_us / 1000.0, c->transfer_us / 1000.0, c->arrived_last, c->imposed_us / 1000.0);
      free(l);
    }
  } else {
    pd_buf_printf(b, "Collectives: no instance could be matched across ranks (%ld collective kernel(s)", x->coll_total);
    if (x->p2p_kernels) pd_buf_printf(b, " and %ld point-to-point send/recv kernel(s), which are not collectives", x->p2p_kernels);
    pd_buf_printf(b, ", %zu rank(s)); the wait/transfer split needs the same collective on at least two ranks.\n", n_ok(rep));
  }
}

/* Compute spread across DP ranks. */
static void md_dp_spread(pd_buf *b, const tr_report *rep, const tr_cross *x) {
  if (x->n_dp) {
    pd_buf_puts(b, "\nCompute spread across DP ranks (same pp/tp position):\n\n"
                    "| step | pp/tp | ranks | compute min / mean / max ms | spread | slowest | most data-supply idle |\n"
                    "|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < x->n_dp; k++) {
      const tr_dp_row *d = &x->dp[k];
      if (d->pp < 0 && d->tp < 0) pd_buf_printf(b, "| #%ld | – (no layout in file names) | ", d->step);
      else pd_buf_printf(b, "| #%ld | %d/%d | ", d->step, d->pp, d->tp);
      for (size_t t = 0; t < d->n; t++) pd_buf_printf(b, "%s%d", t ? "," : "", rep->ranks[d->idx[t]]->rank);
      pd_buf_printf(b, " | %.1f / %.1f / %.1f | %.1f %% | rank %d | rank %d: %.1f ms (median %.1f) |\n", d->min_us / 1000.0,
                    d->mean_us / 1000.0, d->max_us / 1000.0, d->spread_pct, rep->ranks[d->slowest]->rank,
                    rep->ranks[d->most_data]->rank, d->data_max_us / 1000.0, d->data_median_us / 1000.0);
    }
  } else {
    pd_buf_puts(b, "\nCompute spread across DP ranks: needs at least two ranks at the same pp/tp position.\n");
  }
}

/* Pipeline bubbles per stage. */
static void md_pipeline(pd_buf *b, const tr_cross *x) {
  if (x->n_pp) {
    pd_buf_puts(b, "\nPipeline bubbles (pipeline phase = first compute kernel to the first non-P2P collective after "
                    "the last P2P kernel; window = union over the stages of one DP replica):\n\n"
                    "| step | dp/tp | p | m | 1F1B ideal | window ms | bubble per stage (of which in P2P kernels) |\n|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < x->n_pp; k++) {
      const tr_pp_row *p = &x->pp[k];
      char ideal[32] = "unknown m";
      if (p->ideal_pct >= 0) snprintf(ideal, sizeof ideal, "%.1f %%", p->ideal_pct);
      pd_buf_printf(b, "| #%ld | %d/%d | %d | %ld | %s | %.1f | ", p->step, p->dp, p->tp, p->p, p->m, ideal, p->window_us / 1000.0);
      for (size_t s = 0; s < p->n; s++)
        pd_buf_printf(b, "%spp%d %.1f %% (P2P %.1f %%)", s ? ", " : "", p->stages[s].pp, p->stages[s].bubble_pct,
                      p->stages[s].p2p_pct);
      pd_buf_puts(b, " |\n");
    }
  } else {
    pd_buf_puts(b, "\nPipeline bubbles: no PP layout (needs `_pp{P}` in the file names and two stages or more).\n");
  }

}

/* The hypotheses the figures suggest, to verify. */
static void md_hypotheses(pd_buf *b, const tr_report *rep) {
  pd_buf_puts(b, "\n## Hypotheses to verify\n\n");
  strlist hyp = {0};
  build_hypotheses(rep, &hyp);
  for (size_t i = 0; i < hyp.n; i++) {
    pd_buf_printf(b, "- %s\n", hyp.v[i]);
    free(hyp.v[i]);
  }
  if (!hyp.n) pd_buf_puts(b, "- No single cause stands out in these figures; compare the per-step rows across steps and ranks.\n");
  free(hyp.v);
  pd_buf_puts(b, "\nOnly the trace was read: nothing was run on a GPU.\n");
}

char *tr_summary_md(const tr_report *rep) {
  const tr_cross *x = rep->cross;
  pd_buf b = {0};
  if (rep->title) pd_buf_printf(&b, "## %s\n\n", rep->title);
  else pd_buf_printf(&b, "# perf-doctor trace: %s\n\n", pd_path_base(rep->path));
  md_source(&b, rep);
  md_scope(&b, rep);
  md_hta(&b, rep);
  md_per_step(&b, rep);
  tr_eff_md(&b, rep);
  md_collectives(&b, rep, x);
  md_dp_spread(&b, rep, x);
  md_pipeline(&b, x);
  md_hypotheses(&b, rep);
  return pd_buf_take(&b);
}
