#include "trace/cross.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

typedef struct {
  const char *key;
  int idx;
  int64_t b, e;
  const tr_coll *c;
} inst;

static int inst_cmp(const void *pa, const void *pb) {
  const inst *a = pa, *b = pb;
  int c = strcmp(a->key, b->key);
  if (c) return c;
  return (a->idx > b->idx) - (a->idx < b->idx);
}

static void match_collectives(tr_rank *const *ranks, size_t n, tr_cross *out) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    if (!ranks[i]->err) total += ranks[i]->n_colls;
  out->coll_total = (long)total;
  inst *v = pd_xmalloc((total + 1) * sizeof *v);
  size_t k = 0;
  bool by_id = false, by_seq = false, by_order = false;
  for (size_t i = 0; i < n; i++) {
    if (ranks[i]->err) continue;
    for (size_t j = 0; j < ranks[i]->n_colls; j++) {
      const tr_coll *c = &ranks[i]->colls[j];
      v[k++] = (inst){c->key, (int)i, c->b, c->e, c};
      by_id |= !strncmp(c->key, "id:", 3);
      by_seq |= !strncmp(c->key, "pg:", 3);
      by_order |= !strncmp(c->key, "ord:", 4);
    }
  }
  qsort(v, k, sizeof *v, inst_cmp);
  out->match_kind = by_id ? (by_seq || by_order ? TR_MATCH_ID_MIXED : TR_MATCH_ID)
                    : by_seq ? (by_order ? TR_MATCH_SEQ_MIXED : TR_MATCH_SEQ)
                             : TR_MATCH_ORDER;
  static const char *const basis[] = {
      [TR_MATCH_ID] = "Comms Id",
      [TR_MATCH_ID_MIXED] = "Comms Id where present, else process group + Seq or order",
      [TR_MATCH_SEQ] = "process group + Seq",
      [TR_MATCH_SEQ_MIXED] = "process group + Seq where present, else order",
      [TR_MATCH_ORDER] = "order within (process group ranks, collective, message size)",
  };
  out->match_basis = basis[out->match_kind];
  for (size_t i = 0; i < k;) {
    size_t j = i + 1;
    while (j < k && !strcmp(v[j].key, v[i].key)) j++;
    /* one entry per rank: a repeated key on one rank (should not happen) keeps the first */
    size_t m = 0;
    for (size_t t = i; t < j; t++)
      if (t == i || v[t].idx != v[t - 1].idx) v[i + m++] = v[t];
    if (m >= 2) {
      out->coll_instances++;
      int64_t shortest = INT64_MAX;
      for (size_t t = i; t < i + m; t++)
        if (v[t].e - v[t].b < shortest) shortest = v[t].e - v[t].b;
      tr_bw_add(&out->bw, v[i].c->what, v[i].c->bytes, v[i].c->group, (double)shortest / 1000.0);
      size_t last = i;
      int64_t tmax = v[i].b;
      for (size_t t = i + 1; t < i + m; t++)
        if (v[t].b > tmax) {
          tmax = v[t].b;
          last = t;
        }
      int64_t second = INT64_MIN;
      for (size_t t = i; t < i + m; t++)
        if (t != last && v[t].b > second) second = v[t].b;
      for (size_t t = i; t < i + m; t++) {
        tr_coll_rank *cr = &out->per_rank[v[t].idx];
        int64_t dur = v[t].e - v[t].b, wait = tmax - v[t].b;
        if (wait > dur) wait = dur; /* a rank cannot wait longer than its kernel ran */
        cr->instances++;
        cr->nccl_us += (double)dur / 1000.0;
        cr->wait_us += (double)wait / 1000.0;
        cr->transfer_us += (double)(dur - wait) / 1000.0;
      }
      if (tmax > second) { /* a tie has no last arrival */
        out->per_rank[v[last].idx].arrived_last++;
        out->per_rank[v[last].idx].imposed_us += (double)(tmax - second) / 1000.0;
      }
    }
    i = j;
  }
  free(v);
}

static int dbl_cmp(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

static const tr_step *find_step(const tr_rank *r, long step) {
  for (size_t i = 0; i < r->n_steps; i++)
    if (r->steps[i].step == step) return &r->steps[i];
  return NULL;
}

/* Distinct step numbers over all ranks, sorted. */
static long *all_steps(tr_rank *const *ranks, size_t n, size_t *count) {
  long *s = NULL;
  size_t ns = 0, cap = 0;
  for (size_t i = 0; i < n; i++) {
    if (ranks[i]->err) continue;
    for (size_t j = 0; j < ranks[i]->n_steps; j++) {
      long x = ranks[i]->steps[j].step;
      bool seen = false;
      for (size_t t = 0; t < ns && !seen; t++) seen = s[t] == x;
      if (!seen) *PD_PUSH(s, ns, cap) = x;
    }
  }
  for (size_t i = 1; i < ns; i++) /* insertion sort: a handful of steps */
    for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
      long t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  *count = ns;
  return s;
}

static void dp_spread(tr_rank *const *ranks, size_t n, const long *steps, size_t nsteps, tr_cross *out) {
  size_t cap = 0;
  bool *used = pd_xcalloc(n + 1, sizeof *used);
  for (size_t si = 0; si < nsteps; si++) {
    memset(used, 0, (n + 1) * sizeof *used);
    for (size_t i = 0; i < n; i++) {
      if (used[i] || ranks[i]->err || !find_step(ranks[i], steps[si])) continue;
      int pp = ranks[i]->pp, tp = ranks[i]->tp;
      int *idx = pd_xmalloc(n * sizeof *idx);
      size_t m = 0;
      for (size_t j = i; j < n; j++)
        if (!used[j] && !ranks[j]->err && ranks[j]->pp == pp && ranks[j]->tp == tp &&
            find_step(ranks[j], steps[si])) {
          used[j] = true;
          idx[m++] = (int)j;
        }
      if (m < 2) {
        free(idx);
        continue;
      }
      tr_dp_row *row = PD_PUSH(out->dp, out->n_dp, cap);
      memset(row, 0, sizeof *row);
      row->step = steps[si];
      row->pp = pp;
      row->tp = tp;
      row->n = m;
      row->idx = idx;
      double sum = 0;
      double *data = pd_xmalloc(m * sizeof *data);
      for (size_t t = 0; t < m; t++) {
        const tr_step *s = find_step(ranks[idx[t]], steps[si]);
        double c = s->compute_us;
        sum += c;
        if (t == 0 || c < row->min_us) {
          row->min_us = c;
          row->fastest = idx[t];
        }
        if (t == 0 || c > row->max_us) {
          row->max_us = c;
          row->slowest = idx[t];
        }
        data[t] = s->idle_data_us;
        if (t == 0 || s->idle_data_us > row->data_max_us) {
          row->data_max_us = s->idle_data_us;
          row->most_data = idx[t];
        }
      }
      row->mean_us = sum / (double)m;
      row->spread_pct = row->mean_us > 0 ? 100.0 * (row->max_us - row->min_us) / row->mean_us : 0;
      qsort(data, m, sizeof *data, dbl_cmp);
      row->data_median_us = m % 2 ? data[m / 2] : (data[m / 2 - 1] + data[m / 2]) / 2;
      free(data);
    }
  }
  free(used);
}

static void pp_bubbles(tr_rank *const *ranks, size_t n, const long *steps, size_t nsteps, tr_cross *out) {
  size_t cap = 0;
  bool *used = pd_xcalloc(n + 1, sizeof *used);
  for (size_t si = 0; si < nsteps; si++) {
    memset(used, 0, (n + 1) * sizeof *used);
    for (size_t i = 0; i < n; i++) {
      if (used[i] || ranks[i]->err || ranks[i]->pp < 0) continue;
      int dp = ranks[i]->dp, tp = ranks[i]->tp;
      tr_pp_stage *st = pd_xcalloc(n, sizeof *st);
      size_t m = 0;
      int pmax = -1;
      int64_t wb = INT64_MAX, we = INT64_MIN;
      for (size_t j = i; j < n; j++) {
        if (used[j] || ranks[j]->err || ranks[j]->pp < 0 || ranks[j]->dp != dp || ranks[j]->tp != tp)
          continue;
        used[j] = true;
        const tr_step *s = find_step(ranks[j], steps[si]);
        if (!s || !s->has_phase) continue;
        st[m++] = (tr_pp_stage){ranks[j]->pp, (int)j, s->phase_busy_us, 0, s->phase_p2p_us};
        if (ranks[j]->pp > pmax) pmax = ranks[j]->pp;
        if (s->phase_b < wb) wb = s->phase_b;
        if (s->phase_e > we) we = s->phase_e;
      }
      if (m < 2 || we <= wb) {
        free(st);
        continue;
      }
      for (size_t a = 1; a < m; a++) /* by stage */
        for (size_t b = a; b > 0 && st[b - 1].pp > st[b].pp; b--) {
          tr_pp_stage t = st[b];
          st[b] = st[b - 1];
          st[b - 1] = t;
        }
      tr_pp_row *row = PD_PUSH(out->pp, out->n_pp, cap);
      memset(row, 0, sizeof *row);
      row->step = steps[si];
      row->dp = dp;
      row->tp = tp;
      row->p = pmax + 1;
      row->window_us = (double)(we - wb) / 1000.0;
      row->stages = st;
      row->n = m;
      for (size_t t = 0; t < m; t++) {
        st[t].bubble_pct = 100.0 * (1.0 - st[t].busy_us / row->window_us);
        st[t].p2p_pct = 100.0 * st[t].p2p_pct / row->window_us; /* held µs until here */
      }
      const tr_step *first = find_step(ranks[st[0].idx], steps[si]);
      row->m = first->p2p_sends > 0 ? first->p2p_sends : first->p2p_kernels / 2;
      row->ideal_pct = row->m > 0 ? 100.0 * (row->p - 1) / (double)(row->m + row->p - 1) : -1;
    }
  }
  free(used);
}

void tr_cross_compute(tr_rank *const *ranks, size_t n, tr_cross *out) {
  memset(out, 0, sizeof *out);
  out->per_rank = pd_xcalloc(n + 1, sizeof *out->per_rank);
  match_collectives(ranks, n, out);
  out->bw_matched = out->coll_instances > 0;
  for (size_t i = 0; i < n; i++) {
    if (ranks[i]->err) continue;
    out->p2p_kernels += ranks[i]->p2p_kernels;
    for (size_t j = 0; j < ranks[i]->n_colls && !out->bw_matched; j++) {
      const tr_coll *c = &ranks[i]->colls[j];
      tr_bw_add(&out->bw, c->what, c->bytes, c->group, (double)(c->e - c->b) / 1000.0);
    }
  }
  tr_bw_finish(&out->bw);
  size_t nsteps = 0;
  long *steps = all_steps(ranks, n, &nsteps);
  dp_spread(ranks, n, steps, nsteps, out);
  pp_bubbles(ranks, n, steps, nsteps, out);
  free(steps);
}

void tr_cross_free(tr_cross *c) {
  free(c->per_rank);
  for (size_t i = 0; i < c->n_dp; i++) free(c->dp[i].idx);
  free(c->dp);
  for (size_t i = 0; i < c->n_pp; i++) free(c->pp[i].stages);
  free(c->pp);
  tr_bw_free(&c->bw);
  memset(c, 0, sizeof *c);
}
