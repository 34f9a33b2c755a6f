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

/* The profiler target the file names say, or the message that they name none (fresh). */
static char *profiler_target(const tr_report *rep, const tr_text *tx) {
  static const char *const targets[] = {"train_overall", "train_actor", "train_log_probs"};
  for (size_t i = 0; i < rep->n; i++) {
    const char *b = pd_path_base(rep->ranks[i]->file);
    for (size_t k = 0; k < sizeof targets / sizeof *targets; k++)
      if (strstr(b, targets[k])) return pd_xstrdup(targets[k]);
  }
  return TR_SAID0(tx, TM_SUM_TARGET_UNNAMED);
}

/* ---- hypotheses: each names its evidence and the experiment that would confirm it ---- */

typedef struct {
  char **v;
  size_t n, cap;
} strlist;

static void sum_add(strlist *l, char *s) { *PD_PUSH(l->v, l->n, l->cap) = s; }
static void sum_add_cb(void *l, char *s) { sum_add(l, s); }

/* "#1, #2, #3" for the rows of `steps` (n of them) whose flag is set (fresh). */
static char *step_list(const long *steps, const bool *flag, size_t n) {
  pd_buf b = {0};
  bool first = true;
  for (size_t i = 0; i < n; i++)
    if (flag[i]) {
      pd_buf_printf(&b, "%s#%ld", first ? "" : ", ", steps[i]);
      first = false;
    }
  return pd_buf_take(&b);
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

/* The group's sentence, when it has ranks, and the group's memory released. */
static void group_say(rank_group *g, const tr_text *tx, tr_msg_id id, strlist *out) {
  if (g->n) {
    char *sh = g->hi - g->lo < 0.05 ? pd_xasprintf("%.1f %%", g->hi) : pd_xasprintf("%.1f–%.1f %%", g->lo, g->hi);
    sum_add(out, TR_SAID(tx, id, PD_MS(g->ranks.data), PD_MS(sh)));
    free(sh);
  }
  pd_buf_free(&g->ranks);
}

/* Per rank, the dominant losses, gathered over ranks so that one sentence covers them. */
static void hyp_rank_losses(const tr_report *rep, const tr_text *tx, strlist *out) {
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
  group_say(&data, tx, TM_HYP_DATA, out);
  group_say(&launch, tx, TM_HYP_LAUNCH, out);
  group_say(&comm_wait, tx, TM_HYP_COMM_WAIT, out);
  group_say(&comm_bw, tx, x->coll_instances ? TM_HYP_COMM_MATCHED : !x->coll_total && x->p2p_kernels ? TM_HYP_COMM_P2P
                                                                                                    : TM_HYP_COMM_UNMATCHED,
            out);
}

/* Ranks that start most matched collectives last and make their peers wait. */
static void hyp_late(const tr_report *rep, const tr_text *tx, strlist *out) {
  const tr_cross *x = rep->cross;
  size_t ok = n_ok(rep);
  double total_wait = 0;
  for (size_t i = 0; i < rep->n; i++) total_wait += x->per_rank[i].wait_us;
  for (size_t i = 0; i < rep->n; i++) {
    const tr_coll_rank *c = &x->per_rank[i];
    if (rep->ranks[i]->err || c->arrived_last == 0 || c->instances < 2) continue;
    if (c->arrived_last * 2 < c->instances || c->imposed_us < 0.2 * total_wait / (double)ok || c->imposed_us < 1000)
      continue;
    char *l = rank_label(rep, i);
    sum_add(out, TR_SAID(tx, TM_HYP_LATE, PD_MS(l), PD_MI(c->arrived_last), PD_MI(c->instances),
                         PD_MF(c->imposed_us / 1000.0)));
    free(l);
  }
}

/* DP groups: data-supply outliers and compute spread, one sentence per rank over its steps. */
static void hyp_dp(const tr_report *rep, const tr_text *tx, strlist *out) {
  const tr_cross *x = rep->cross;
  if (!x->n_dp) return;
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
      char *l = rank_label(rep, i), *sl = step_list(steps, flag, x->n_dp);
      sum_add(out, TR_SAID(tx, TM_HYP_DP_DATA, PD_MS(l), PD_MF(excess / (double)nd / 1000.0), PD_MS(sl),
                           PD_MF(d->data_max_us / 1000.0), PD_MF(d->data_median_us / 1000.0), PD_MI(d->step)));
      free(sl);
      free(l);
    }
    for (size_t k = 0; k < x->n_dp; k++) {
      flag[k] = x->dp[k].slowest == (int)i && x->dp[k].spread_pct > 5;
      if (flag[k] && nc++ == 0) first_c = k;
    }
    if (nc) {
      const tr_dp_row *d = &x->dp[first_c];
      char *l = rank_label(rep, i), *sl = step_list(steps, flag, x->n_dp);
      sum_add(out, TR_SAID(tx, TM_HYP_DP_COMPUTE, PD_MS(l), PD_MS(sl), PD_MF(d->max_us / 1000.0),
                           PD_MF(d->mean_us / 1000.0), PD_MF(d->spread_pct), PD_MI(d->step)));
      free(sl);
      free(l);
    }
  }
  free(steps);
  free(flag);
}

static void build_hypotheses(const tr_report *rep, const tr_text *tx, strlist *out) {
  const tr_cross *x = rep->cross;
  hyp_late(rep, tx, out);
  hyp_dp(rep, tx, out);
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
    sum_add(out, TR_SAID(tx, TM_HYP_PP, PD_MI(worst->stages[worst_s].pp), PD_MF(worst->stages[worst_s].bubble_pct),
                         PD_MI(worst->step), PD_MF(worst->ideal_pct), PD_MI(worst->p), PD_MI(worst->m)));
  hyp_rank_losses(rep, tx, out);
  tr_eff_hypotheses(rep, tx, sum_add_cb, out);
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
  tr_text own;
  const tr_text en = {tr_text_or_builtin(rep->tx, &own)->msgs, TR_EN};
  json_t *root = json_object();
  json_object_set_new(root, "tool", json_string("perf-doctor trace"));
  json_object_set_new(root, "version", json_string(PD_VERSION));
  json_t *src = json_object();
  json_object_set_new(src, "path", json_string(rep->path));
  json_object_set_new(src, "files", json_integer((json_int_t)rep->n));
  json_object_set_new(src, "read", json_integer((json_int_t)n_ok(rep)));
  json_object_set_new(src, "failed", json_integer((json_int_t)(rep->n - n_ok(rep))));
  char *target = profiler_target(rep, &en);
  json_object_set_new(src, "profiler_target", json_string(target));
  free(target);
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
  build_hypotheses(rep, &en, &hyp);
  json_t *hj = json_array();
  for (size_t i = 0; i < hyp.n; i++) {
    json_array_append_new(hj, json_string(hyp.v[i]));
    free(hyp.v[i]);
  }
  free(hyp.v);
  json_object_set_new(root, "hypotheses", hj);
  tr_text_release(&own);
  return root;
}

/* ---- markdown ---- */

/* "\n### title\n\n" and the like: a heading of level `level` from a message. */
static void md_heading(pd_buf *b, const tr_text *tx, int level, tr_msg_id id) {
  pd_buf_printf(b, "%.*s ", level, "####");
  TR_SAY0(b, tx, id);
  pd_buf_puts(b, "\n\n");
}

/* A table's header row from a message and its separator row. */
static void md_table_head(pd_buf *b, const tr_text *tx, tr_msg_id id, int cols) {
  TR_SAY0(b, tx, id);
  pd_buf_putc(b, '\n');
  for (int c = 0; c < cols; c++) pd_buf_puts(b, "|---");
  pd_buf_puts(b, "|\n");
}

/* "#1, #2", or the whole-trace phrase when the trace has no ProfilerStep markers (fresh). */
static char *md_steps_list(const tr_rank *r, const tr_text *tx) {
  pd_buf b = {0};
  for (size_t s = 0; s < r->n_steps; s++) {
    if (r->steps[s].step < 0) TR_SAY0(&b, tx, TM_SUM_WHOLE_TRACE);
    else pd_buf_printf(&b, "%s#%ld", s ? ", " : "", r->steps[s].step);
  }
  return pd_buf_take(&b);
}

/* Source line and the table of files read. */
static void md_source(pd_buf *b, const tr_report *rep, const tr_text *tx) {
  char *target = profiler_target(rep, tx);
  char *mem = TR_SAID0(tx, any_gpu_memory(rep) ? TM_SUM_MEMORY_MEASURED : TM_NOT_MEASURED);
  size_t ok = n_ok(rep);
  if (ok != rep->n)
    TR_SAY(b, tx, TM_SUM_SOURCE_FAILED, PD_MI(ok), PD_MI(rep->n - ok), PD_MS(rep->path), PD_MS(target), PD_MS(mem));
  else
    TR_SAY(b, tx, TM_SUM_SOURCE, PD_MI(ok), PD_MS(rep->path), PD_MS(target), PD_MS(mem));
  free(target);
  free(mem);
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_SUM_FILES_HEAD, 7);
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    char par[64] = "–";
    if (r->dp >= 0 || r->tp >= 0 || r->pp >= 0) snprintf(par, sizeof par, "%d/%d/%d", r->dp, r->tp, r->pp);
    char ws[16] = "–";
    if (r->world_size >= 0) snprintf(ws, sizeof ws, "%d", r->world_size);
    char *from = !strcmp(r->rank_source, "file name") ? TR_SAID0(tx, TM_SUM_FROM_FILE_NAME)
                 : !strcmp(r->rank_source, "default") ? TR_SAID0(tx, TM_SUM_FROM_DEFAULT)
                                                      : pd_xstrdup(r->rank_source);
    pd_buf_printf(b, "| %d | %s | %s | %s | `%s` | %.1f MB%s | %llu |\n", r->rank, from, par, ws,
                  pd_path_base(r->file), (double)r->file_bytes / 1e6, r->gzip ? " gz" : "",
                  (unsigned long long)r->n_events);
    free(from);
  }
  for (size_t i = 0; i < rep->n; i++)
    if (rep->ranks[i]->err) {
      pd_buf_putc(b, '\n');
      TR_SAY(b, tx, TM_COULD_NOT_READ, PD_MS(rep->ranks[i]->err));
    }
  if (ok != rep->n) pd_buf_puts(b, "\n");
}

/* Window, rank / stream and filter: what the figures cover. */
static void md_scope(pd_buf *b, const tr_report *rep, const tr_text *tx) {
  const tr_rank *r0 = NULL;
  for (size_t i = 0; i < rep->n && !r0; i++)
    if (!rep->ranks[i]->err) r0 = rep->ranks[i];
  char *steps = md_steps_list(r0, tx), *hta;
  if (r0->hta.filtered) {
    pd_buf its = {0};
    for (size_t k = 0; k < r0->hta.n_iterations; k++) pd_buf_printf(&its, "%s#%ld", k ? ", " : "", r0->hta.iterations[k]);
    const char *list = its.data ? its.data : "";
    hta = r0->hta.dropped_step >= 0 ? TR_SAID(tx, TM_SUM_HTA_STEPS_DROPPED, PD_MS(list), PD_MI(r0->hta.dropped_step))
                                     : TR_SAID(tx, TM_SUM_HTA_STEPS, PD_MS(list));
    pd_buf_free(&its);
  } else {
    hta = TR_SAID0(tx, TM_SUM_HTA_WHOLE);
  }
  pd_buf_putc(b, '\n');
  TR_SAY(b, tx, TM_SUM_WINDOW, PD_MS(steps), PD_MS(hta));
  pd_buf_puts(b, "\n\n");
  free(steps);
  free(hta);

  pd_buf ranks = {0};
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    char *l = rank_label(rep, i);
    pd_buf st = {0};
    for (size_t s = 0; s < r->n_streams; s++) pd_buf_printf(&st, "%s%ld", s ? "," : "", r->streams[s]);
    if (!r->n_streams) TR_SAY0(&st, tx, TM_SUM_NO_STREAMS);
    pd_buf_puts(&ranks, i ? "; " : "");
    TR_SAY(&ranks, tx, TM_SUM_RANK_STREAMS, PD_MS(l), PD_MS(st.data ? st.data : ""));
    pd_buf_free(&st);
    free(l);
  }
  TR_SAY(b, tx, TM_SUM_STREAMS, PD_MS(ranks.data ? ranks.data : ""));
  pd_buf_free(&ranks);
  pd_buf_puts(b, "\n\n");
  char *rounding = TR_SAID0(tx, r0->hta.rounded ? TM_SUM_ROUNDING_APPLIED : TM_SUM_ROUNDING_NOT_APPLIED);
  TR_SAY(b, tx, TM_SUM_FILTER, PD_MS(rounding));
  free(rounding);
  pd_buf_putc(b, '\n');
}

/* A negative non-compute time is HTA's rounding, not a measurement: say so. */
static void md_negative(pd_buf *b, const tr_report *rep, const tr_text *tx) {
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err || r->hta.non_compute_us >= 0) continue;
    char *l = rank_label(rep, i);
    pd_buf_putc(b, '\n');
    TR_SAY(b, tx, TM_SUM_NEGATIVE, PD_MS(l), PD_MF(r->hta.non_compute_us), PD_MI(r->hta.neg_rows),
           PD_MF(r->hta.neg_us), PD_MF(r->hta.non_compute_exact_us));
    pd_buf_putc(b, '\n');
    free(l);
  }
}

/* One rank's idle time by stream, its launch statistics and its top kernel. */
static void md_idle_rank(pd_buf *b, const tr_report *rep, size_t i, const tr_text *tx) {
  const tr_hta *h = &rep->ranks[i]->hta;
  char *l = rank_label(rep, i);
  pd_buf st = {0};
  for (size_t s = 0; s < h->n_idle; s++) {
    pd_buf_puts(&st, s ? "; " : " ");
    TR_SAY(&st, tx, TM_SUM_IDLE_STREAM, PD_MI(h->idle[s].stream), PD_MF(h->idle[s].host_wait_us),
           PD_MF(h->idle[s].kernel_wait_us), PD_MF(h->idle[s].other_us));
  }
  TR_SAY(b, tx, TM_SUM_IDLE_RANK, PD_MS(l), PD_MS(st.data ? st.data : ""), PD_MI(h->launch_n),
         PD_MF(h->launch_median_delay_us), PD_MI(h->launch_delay_over_100), PD_MI(h->launch_cpu_over_50));
  pd_buf_free(&st);
  free(l);
  if (h->n_kernel_stats) {
    const tr_kernel_stat *k = &h->kernels[0];
    char *kn = tr_kname_short(k->name, TR_KNAME_COMPACT);
    pd_buf code = {0};
    tr_kname_md_code(&code, kn);
    pd_buf_putc(b, ' ');
    TR_SAY(b, tx, TM_SUM_TOP_KERNEL, PD_MS(code.data), PD_MS(class_name(k->cls)), PD_MF(k->sum_us), PD_MI(k->count));
    pd_buf_free(&code);
    free(kn);
  }
  pd_buf_puts(b, "\n");
}

/* HTA's figures per rank, kernel types, idle by stream and launch statistics. */
static void md_hta(pd_buf *b, const tr_report *rep, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  md_heading(b, tx, 2, TM_SUM_MEASURED);
  md_heading(b, tx, 3, TM_SUM_HTA_TITLE);
  md_table_head(b, tx, TM_SUM_HTA_HEAD, 6);
  double kt[8] = {0}, kts = 0;
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    const tr_hta *h = &r->hta;
    char *l = rank_label(rep, i);
    char *ov = isnan(h->overlap_pct) ? TR_SAID0(tx, TM_SUM_NO_COMM) : pd_xasprintf("%.2f %%", h->overlap_pct);
    pd_buf_printf(b, "| %s | %.0f | %.0f (%.2f) | %.0f (%.2f) | %.0f (%.2f) | %s |\n", l, h->kernel_time_us,
                  h->idle_us, pct(h->idle_us, h->kernel_time_us), h->compute_us,
                  pct(h->compute_us, h->kernel_time_us), h->non_compute_us,
                  pct(h->non_compute_us, h->kernel_time_us), ov);
    free(ov);
    free(l);
    for (int m = 1; m < 8; m++) kt[m] += h->type_us[m];
  }
  for (int m = 1; m < 8; m++) kts += kt[m];
  md_negative(b, rep, tx);
  pd_buf types = {0};
  for (int m = 1; m < 8; m++) {
    if (kt[m] <= 0) continue;
    pd_buf_printf(&types, "%s%s %.0f µs (%.1f %%)", types.len ? " · " : "", TYPE_NAMES[m], kt[m], pct(kt[m], kts));
  }
  if (!types.len) TR_SAY0(&types, tx, TM_SUM_NO_KERNELS);
  pd_buf_putc(b, '\n');
  TR_SAY(b, tx, TM_SUM_KERNEL_TYPES, PD_MS(types.data));
  pd_buf_free(&types);
  pd_buf_puts(b, "\n\n");
  TR_SAY0(b, tx, TM_SUM_IDLE_HEAD);
  pd_buf_putc(b, '\n');
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_idle_rank(b, rep, i, tx);
  tr_ktab kernels;
  tr_ktab_build(rep, &kernels);
  tr_ktab_md(b, &kernels, 10, tx);
  tr_ktab_free(&kernels);
}

/* The exclusive per-step decomposition. */
static void md_per_step(pd_buf *b, const tr_report *rep, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  md_heading(b, tx, 3, TM_SUM_STEP_TITLE);
  md_table_head(b, tx, TM_SUM_STEP_HEAD, 10);
  char *all = TR_SAID0(tx, TM_STEP_ALL);
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    char *l = rank_label(rep, i);
    for (size_t k = 0; k < r->n_steps; k++) {
      const tr_step *s = &r->steps[k];
      char st[24];
      if (s->step >= 0) snprintf(st, sizeof st, "#%ld", s->step);
      double w = s->window_us;
      pd_buf_printf(b, "| %s | %s | %.1f | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% |\n", l,
                    s->step >= 0 ? st : all, w / 1000.0, pct(s->compute_us, w), pct(s->exposed_comm_us, w),
                    pct(s->exposed_mem_us, w), pct(s->other_gpu_us, w), pct(s->idle_collective_us, w),
                    pct(s->idle_launch_us, w), pct(s->idle_data_us, w));
    }
    free(l);
  }
  free(all);
}

static const tr_msg_id BASIS_MSG[] = {
    [TR_MATCH_ID] = TM_SUM_BASIS_ID,     [TR_MATCH_ID_MIXED] = TM_SUM_BASIS_ID_MIXED,
    [TR_MATCH_SEQ] = TM_SUM_BASIS_SEQ,   [TR_MATCH_SEQ_MIXED] = TM_SUM_BASIS_SEQ_MIXED,
    [TR_MATCH_ORDER] = TM_SUM_BASIS_ORDER,
};

/* Collectives matched across ranks. */
static void md_collectives(pd_buf *b, const tr_report *rep, const tr_cross *x, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  md_heading(b, tx, 3, TM_SUM_CROSS);
  if (x->coll_instances) {
    char *basis = TR_SAID0(tx, BASIS_MSG[x->match_kind]);
    TR_SAY(b, tx, TM_SUM_COLL_MATCHED, PD_MI(x->coll_instances), PD_MS(basis), PD_MI(x->coll_total));
    free(basis);
    pd_buf_puts(b, "\n\n");
    md_table_head(b, tx, TM_SUM_COLL_HEAD, 7);
    for (size_t i = 0; i < rep->n; i++) {
      const tr_coll_rank *c = &x->per_rank[i];
      if (rep->ranks[i]->err || !c->instances) continue;
      char *l = rank_label(rep, i);
      pd_buf_printf(b, "| %s | %ld | %.2f | %.2f | %.2f | %ld | %.2f |\n", l, c->instances, c->nccl_us / 1000.0,
                    c->wait_us / 1000.0, c->transfer_us / 1000.0, c->arrived_last, c->imposed_us / 1000.0);
      free(l);
    }
  } else {
    if (x->p2p_kernels) TR_SAY(b, tx, TM_SUM_COLL_NONE_P2P, PD_MI(x->coll_total), PD_MI(x->p2p_kernels), PD_MI(n_ok(rep)));
    else TR_SAY(b, tx, TM_SUM_COLL_NONE, PD_MI(x->coll_total), PD_MI(n_ok(rep)));
    pd_buf_putc(b, '\n');
  }
}

/* Compute spread across DP ranks. */
static void md_dp_spread(pd_buf *b, const tr_report *rep, const tr_cross *x, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  if (!x->n_dp) {
    TR_SAY0(b, tx, TM_SUM_DP_NONE);
    pd_buf_putc(b, '\n');
    return;
  }
  TR_SAY0(b, tx, TM_SUM_DP_TITLE);
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_SUM_DP_HEAD, 7);
  for (size_t k = 0; k < x->n_dp; k++) {
    const tr_dp_row *d = &x->dp[k];
    pd_buf_printf(b, "| #%ld | ", d->step);
    if (d->pp < 0 && d->tp < 0) TR_SAY0(b, tx, TM_SUM_DP_NO_LAYOUT);
    else pd_buf_printf(b, "%d/%d", d->pp, d->tp);
    pd_buf_puts(b, " | ");
    for (size_t t = 0; t < d->n; t++) pd_buf_printf(b, "%s%d", t ? "," : "", rep->ranks[d->idx[t]]->rank);
    pd_buf_printf(b, " | %.1f / %.1f / %.1f | %.1f %% | rank %d | ", d->min_us / 1000.0, d->mean_us / 1000.0,
                  d->max_us / 1000.0, d->spread_pct, rep->ranks[d->slowest]->rank);
    TR_SAY(b, tx, TM_SUM_DP_MOST, PD_MI(rep->ranks[d->most_data]->rank), PD_MF(d->data_max_us / 1000.0),
           PD_MF(d->data_median_us / 1000.0));
    pd_buf_puts(b, " |\n");
  }
}

/* Pipeline bubbles per stage. */
static void md_pipeline(pd_buf *b, const tr_cross *x, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  if (!x->n_pp) {
    TR_SAY0(b, tx, TM_SUM_PP_NONE);
    pd_buf_putc(b, '\n');
    return;
  }
  TR_SAY0(b, tx, TM_SUM_PP_TITLE);
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_SUM_PP_HEAD, 7);
  for (size_t k = 0; k < x->n_pp; k++) {
    const tr_pp_row *p = &x->pp[k];
    char *ideal = p->ideal_pct >= 0 ? pd_xasprintf("%.1f %%", p->ideal_pct) : TR_SAID0(tx, TM_SUM_PP_UNKNOWN_M);
    pd_buf_printf(b, "| #%ld | %d/%d | %d | %ld | %s | %.1f | ", p->step, p->dp, p->tp, p->p, p->m, ideal, p->window_us / 1000.0);
    free(ideal);
    for (size_t s = 0; s < p->n; s++)
      pd_buf_printf(b, "%spp%d %.1f %% (P2P %.1f %%)", s ? ", " : "", p->stages[s].pp, p->stages[s].bubble_pct,
                    p->stages[s].p2p_pct);
    pd_buf_puts(b, " |\n");
  }
}

/* The hypotheses the figures suggest, to verify. */
static void md_hypotheses(pd_buf *b, const tr_report *rep, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  md_heading(b, tx, 2, TM_SUM_HYPOTHESES);
  strlist hyp = {0};
  build_hypotheses(rep, tx, &hyp);
  for (size_t i = 0; i < hyp.n; i++) {
    pd_buf_printf(b, "- %s\n", hyp.v[i]);
    free(hyp.v[i]);
  }
  if (!hyp.n) {
    pd_buf_puts(b, "- ");
    TR_SAY0(b, tx, TM_HYP_NONE);
    pd_buf_putc(b, '\n');
  }
  free(hyp.v);
  pd_buf_putc(b, '\n');
  TR_SAY0(b, tx, TM_SUM_ONLY_TRACE);
  pd_buf_putc(b, '\n');
}

char *tr_summary_md(const tr_report *rep) {
  tr_text own;
  tr_report r = *rep;
  r.tx = tr_text_or_builtin(rep->tx, &own);
  const tr_text *tx = r.tx;
  pd_buf b = {0};
  if (r.title) {
    pd_buf_printf(&b, "## %s\n\n", r.title);
  } else {
    pd_buf_puts(&b, "# ");
    TR_SAY(&b, tx, TM_SUM_TITLE, PD_MS(pd_path_base(r.path)));
    pd_buf_puts(&b, "\n\n");
  }
  md_source(&b, &r, tx);
  md_scope(&b, &r, tx);
  md_hta(&b, &r, tx);
  md_per_step(&b, &r, tx);
  tr_eff_md(&b, &r);
  md_collectives(&b, &r, r.cross, tx);
  md_dp_spread(&b, &r, r.cross, tx);
  md_pipeline(&b, r.cross, tx);
  md_hypotheses(&b, &r, tx);
  tr_text_release(&own);
  return pd_buf_take(&b);
}
