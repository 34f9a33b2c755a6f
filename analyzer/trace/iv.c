#include "trace/iv.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "base/sort.h"

void tr_ivs_push(tr_ivs *s, int64_t b, int64_t e) {
  tr_iv *iv = PD_PUSH(s->v, s->n, s->cap);
  iv->b = b;
  iv->e = e;
}

void tr_ivs_free(tr_ivs *s) {
  free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

static int iv_cmp(const void *pa, const void *pb) {
  const tr_iv *a = pa, *b = pb;
  if (a->b != b->b) return a->b < b->b ? -1 : 1;
  return (a->e > b->e) - (a->e < b->e);
}

void tr_ivs_merge(tr_ivs *s) {
  if (s->n == 0) return;
  pd_sort_inline(s->v, s->n, sizeof *s->v, iv_cmp); /* host intervals come nearly sorted */
  size_t out = 0;
  int64_t cummax = s->v[0].e;
  tr_iv cur = s->v[0];
  for (size_t i = 1; i < s->n; i++) {
    tr_iv x = s->v[i];
    if (x.b > cummax) {
      s->v[out++] = cur;
      cur = x;
    } else if (x.e > cur.e) {
      cur.e = x.e;
    }
    if (x.e > cummax) cummax = x.e;
  }
  s->v[out++] = cur;
  s->n = out;
}

int64_t tr_ivs_total(const tr_ivs *s) {
  int64_t t = 0;
  for (size_t i = 0; i < s->n; i++) t += s->v[i].e - s->v[i].b;
  return t;
}

void tr_ivs_bridge(tr_ivs *s, int64_t gap) {
  if (s->n == 0) return;
  size_t out = 0;
  for (size_t i = 1; i < s->n; i++) {
    if (s->v[i].b - s->v[out].e <= gap) {
      if (s->v[i].e > s->v[out].e) s->v[out].e = s->v[i].e;
    } else {
      s->v[++out] = s->v[i];
    }
  }
  s->n = out + 1;
}

/* Appends [b, e) to a merged set being built in start order. */
static void iv_append(tr_ivs *out, int64_t b, int64_t e) {
  if (e <= b) return;
  if (out->n && b <= out->v[out->n - 1].e) {
    if (e > out->v[out->n - 1].e) out->v[out->n - 1].e = e;
    return;
  }
  tr_ivs_push(out, b, e);
}

void tr_ivs_union(const tr_ivs *a, const tr_ivs *b, tr_ivs *out) {
  size_t i = 0, j = 0;
  while (i < a->n || j < b->n) {
    const tr_iv *x;
    if (j >= b->n || (i < a->n && a->v[i].b <= b->v[j].b)) x = &a->v[i++];
    else x = &b->v[j++];
    iv_append(out, x->b, x->e);
  }
}

void tr_ivs_intersect(const tr_ivs *a, const tr_ivs *b, tr_ivs *out) {
  size_t i = 0, j = 0;
  while (i < a->n && j < b->n) {
    int64_t lo = a->v[i].b > b->v[j].b ? a->v[i].b : b->v[j].b;
    int64_t hi = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
    if (lo < hi) iv_append(out, lo, hi);
    if (a->v[i].e < b->v[j].e) i++;
    else j++;
  }
}

void tr_ivs_subtract(const tr_ivs *a, const tr_ivs *b, tr_ivs *out) {
  size_t j = 0;
  for (size_t i = 0; i < a->n; i++) {
    int64_t cur = a->v[i].b, end = a->v[i].e;
    while (j < b->n && b->v[j].e <= cur) j++;
    size_t k = j;
    while (k < b->n && b->v[k].b < end) {
      if (b->v[k].b > cur) iv_append(out, cur, b->v[k].b);
      if (b->v[k].e > cur) cur = b->v[k].e;
      if (cur >= end) break;
      k++;
    }
    if (cur < end) iv_append(out, cur, end);
  }
}

int64_t tr_ivs_len_in(const tr_ivs *s, int64_t b, int64_t e) {
  if (e <= b || s->n == 0) return 0;
  /* first interval ending after b */
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->v[mid].e <= b) lo = mid + 1;
    else hi = mid;
  }
  int64_t t = 0;
  for (size_t i = lo; i < s->n && s->v[i].b < e; i++) {
    int64_t x = s->v[i].b > b ? s->v[i].b : b;
    int64_t y = s->v[i].e < e ? s->v[i].e : e;
    if (y > x) t += y - x;
  }
  return t;
}

typedef struct {
  int64_t t;
  int d;
} sweep_pt;

static int pt_cmp(const void *pa, const void *pb) {
  const sweep_pt *a = pa, *b = pb;
  return (a->t > b->t) - (a->t < b->t);
}

void tr_ivs_sweep(const tr_ivs *const *sets, int nsets, int64_t time[8]) {
  for (int m = 0; m < 8; m++) time[m] = 0;
  size_t n = 0;
  for (int k = 0; k < nsets; k++) n += 2 * sets[k]->n;
  if (n == 0) return;
  sweep_pt *pts = pd_xmalloc(n * sizeof *pts);
  size_t p = 0;
  for (int k = 0; k < nsets; k++) {
    int v = 1 << k;
    for (size_t i = 0; i < sets[k]->n; i++) {
      pts[p++] = (sweep_pt){sets[k]->v[i].b, v};
      pts[p++] = (sweep_pt){sets[k]->v[i].e, -v};
    }
  }
  pd_sort_inline(pts, n, sizeof *pts, pt_cmp);
  int running = 0;
  for (size_t i = 0; i + 1 < n; i++) {
    running += pts[i].d;
    if (running > 0 && running < 8) time[running] += pts[i + 1].t - pts[i].t;
  }
  free(pts);
}
