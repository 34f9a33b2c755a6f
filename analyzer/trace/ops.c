#include "trace/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "base/hash.h"

#define ROW_MAX ((1u << 24) - 1)

/* One op occurrence: 16 bytes. */
typedef struct {
  int64_t ts;
  uint32_t dur; /* ns, saturating */
  uint32_t id : 24; /* row (modelled ops) or name (host ops) */
  uint32_t tid : 8;
} occ;

typedef struct {
  occ *v;
  size_t n, cap;
  int64_t *reach; /* once indexed: the latest end among v[0..i] on v[i]'s thread */
} occs;

struct tr_ops_col {
  pd_map keys; /* "name|shape|dtype" -> row */
  tr_op_row *rows;
  size_t nrows, caprows;
  occs ops;
  int64_t *last_end; /* per op, while kernels are attributed */
  uint32_t *busy;    /* per op, ns */
  long dropped;
  bool host_on;
  occs host;
  pd_intern host_names;
};

tr_ops_col *tr_ops_new(void) {
  tr_ops_col *o = pd_xcalloc(1, sizeof *o);
  o->host_on = true;
  return o;
}

static uint32_t sat(int64_t x) { return x < 0 ? 0 : x > UINT32_MAX ? UINT32_MAX : (uint32_t)x; }

static void occ_push(occs *s, uint32_t id, int tid, int64_t ts, int64_t end) {
  occ *r = PD_PUSH(s->v, s->n, s->cap);
  r->ts = ts;
  r->dur = sat(end - ts);
  r->id = id;
  r->tid = (uint32_t)(tid < 0 || tid > 255 ? 0 : tid);
}

/* u in decimal and a '|' at o; returns the end. */
static char *put_u64(char *o, uint64_t u) {
  char t[20];
  int n = 0;
  do t[n++] = (char)('0' + u % 10); while (u /= 10);
  while (n) *o++ = t[--n];
  *o++ = '|';
  return o;
}

static char *put_i64(char *o, int64_t v) {
  if (v < 0) *o++ = '-';
  return put_u64(o, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* The row of this (op, shape, dtype). Its key is name|kind|b|m|n|k|heads|heads_kv|causal|dtype|
 * flops, written by hand (snprintf per op occurrence was a tenth of reading a small trace), the
 * profiler's flops as the double's bits. */
static uint32_t row_of(tr_ops_col *o, const char *name, const tr_fl *fl) {
  size_t nlen = strlen(name), dlen = strnlen(fl->dtype, sizeof fl->dtype);
  char stack[512], *key = nlen + dlen + 12 * 22 <= sizeof stack ? stack : pd_xmalloc(nlen + dlen + 12 * 22);
  char *w = key;
  memcpy(w, name, nlen);
  w += nlen;
  *w++ = '|';
  const int64_t f[] = {fl->kind, fl->b, fl->m, fl->n, fl->k, fl->heads, fl->heads_kv, fl->causal};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++) w = put_i64(w, f[i]);
  memcpy(w, fl->dtype, dlen);
  w += dlen;
  *w++ = '|';
  uint64_t bits = 0;
  double flops = fl->kind == TR_FL_PROFILER ? fl->flops : 0;
  memcpy(&bits, &flops, sizeof bits);
  w = put_u64(w, bits);
  bool added;
  pd_map_slot *s = pd_map_putn(&o->keys, key, (size_t)(w - key), &added);
  if (key != stack) free(key);
  if (!added) return (uint32_t)s->value;
  if (o->nrows >= ROW_MAX) return TR_OPS_NONE;
  s->value = o->nrows;
  tr_op_row *r = PD_PUSH(o->rows, o->nrows, o->caprows);
  memset(r, 0, sizeof *r);
  r->name = pd_xstrdup(name);
  r->model = *fl;
  return (uint32_t)s->value;
}

void tr_ops_add(tr_ops_col *o, const char *name, const tr_fl *fl, int tid, int64_t ts, int64_t end) {
  uint32_t row = row_of(o, name, fl);
  if (row == TR_OPS_NONE || o->ops.n >= UINT32_MAX - 1) {
    o->dropped++;
    return;
  }
  o->rows[row].calls++;
  occ_push(&o->ops, row, tid, ts, end);
}

void tr_ops_host(tr_ops_col *o, const char *name, size_t len, int tid, int64_t ts, int64_t end) {
  if (!o->host_on) return;
  uint32_t id = pd_intern_n(&o->host_names, name, len, NULL);
  if (id >= ROW_MAX) { /* more distinct names than a record holds: give up, say so */
    tr_ops_host_stop(o);
    return;
  }
  occ_push(&o->host, id, tid, ts, end);
}

bool tr_ops_host_kept(const tr_ops_col *o) { return o->host_on; }

static void occs_free(occs *s) {
  free(s->v);
  free(s->reach);
  *s = (occs){0};
}

void tr_ops_host_stop(tr_ops_col *o) {
  o->host_on = false;
  occs_free(&o->host);
}

static int occ_cmp(const void *pa, const void *pb) {
  const occ *a = pa, *b = pb;
  if (a->tid != b->tid) return (int)a->tid - (int)b->tid;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->dur < b->dur) - (a->dur > b->dur); /* the outer of two ops starting together first */
}

static void occs_index(occs *s) {
  if (s->n) pd_sort_inline(s->v, s->n, sizeof *s->v, occ_cmp);
  s->reach = pd_xmalloc((s->n + 1) * sizeof *s->reach);
  for (size_t i = 0; i < s->n; i++) {
    int64_t end = s->v[i].ts + (int64_t)s->v[i].dur;
    s->reach[i] = i && s->v[i - 1].tid == s->v[i].tid && s->reach[i - 1] > end ? s->reach[i - 1] : end;
  }
}

void tr_ops_index(tr_ops_col *o) {
  occs_index(&o->ops);
  occs_index(&o->host);
  o->last_end = pd_xmalloc((o->ops.n + 1) * sizeof *o->last_end);
  o->busy = pd_xcalloc(o->ops.n + 1, sizeof *o->busy);
  for (size_t i = 0; i < o->ops.n; i++) o->last_end[i] = INT64_MIN;
}

/* The innermost occurrence on tid containing ts: the latest-starting one that still runs. Ops
 * nest, so walking back from the last start before ts meets the enclosing ones; a bounded walk
 * keeps a look-up cheap. */
static size_t occ_find(const occs *s, int tid, int64_t ts) {
  size_t lo = 0, hi = s->n;
  uint32_t t = (uint32_t)(tid < 0 || tid > 255 ? 0 : tid);
  while (lo < hi) { /* first (tid, ts') > (t, ts) */
    size_t mid = (lo + hi) / 2;
    const occ *m = &s->v[mid];
    if (m->tid < t || (m->tid == t && m->ts <= ts)) lo = mid + 1;
    else hi = mid;
  }
  /* nothing up to there still runs at ts: most look-ups (a kernel launched outside any
   * modelled op) end here instead of walking back */
  if (lo == 0 || s->v[lo - 1].tid != t || s->reach[lo - 1] <= ts) return SIZE_MAX;
  for (size_t k = 0; k < 64 && lo > 0; k++, lo--) {
    const occ *m = &s->v[lo - 1];
    if (m->tid != t) break;
    if (ts < m->ts + (int64_t)m->dur) return lo - 1;
  }
  return SIZE_MAX;
}

uint32_t tr_ops_find(const tr_ops_col *o, int tid, int64_t ts) {
  size_t i = occ_find(&o->ops, tid, ts);
  return i == SIZE_MAX || i >= TR_OPS_NONE ? TR_OPS_NONE : (uint32_t)i;
}

void tr_ops_kernel(tr_ops_col *o, uint32_t op, int64_t b, int64_t e, bool tf32) {
  if (op == TR_OPS_NONE || op >= o->ops.n || e <= b) return;
  tr_fl *m = &o->rows[o->ops.v[op].id].model;
  if (tf32 && !strcmp(m->dtype, "fp32")) strcpy(m->dtype, "tf32");
  int64_t *last = &o->last_end[op];
  int64_t add = *last == INT64_MIN || b >= *last ? e - b : e > *last ? e - *last : 0;
  if (*last == INT64_MIN || e > *last) *last = e;
  o->busy[op] = sat((int64_t)o->busy[op] + add);
}

char *tr_ops_host_at(const tr_ops_col *o, int tid, int64_t ts) {
  if (!o->host_on) return NULL;
  size_t i = occ_find(&o->host, tid, ts);
  return i == SIZE_MAX ? NULL : pd_xstrdup(o->host_names.str[o->host.v[i].id]);
}

static int row_cmp(const void *pa, const void *pb) {
  const tr_op_row *a = pa, *b = pb;
  if (a->kernel_us != b->kernel_us) return a->kernel_us > b->kernel_us ? -1 : 1;
  double fa = a->model.flops * (double)a->calls, fb = b->model.flops * (double)b->calls;
  if (fa != fb) return fa > fb ? -1 : 1;
  return strcmp(a->name, b->name);
}

void tr_ops_finish(tr_ops_col *o, const tr_mem_win *w, size_t n, const pd_device *dev, tr_ops *out) {
  memset(out, 0, sizeof *out);
  out->steps = pd_xcalloc(n + 1, sizeof *out->steps);
  out->n_steps = n;
  for (size_t i = 0; i < n; i++) out->steps[i].step = w[i].step;
  for (size_t i = 0; i < o->ops.n; i++) {
    const occ *c = &o->ops.v[i];
    tr_op_row *r = &o->rows[c->id];
    bool timed = o->last_end && o->last_end[i] != INT64_MIN;
    double busy = o->busy ? (double)o->busy[i] / 1000.0 : 0;
    if (timed) {
      r->timed++;
      r->kernel_us += busy;
      out->timed++;
      out->kernel_us += busy;
    }
    out->calls++;
    out->flops += r->model.flops;
    if (r->model.kind == TR_FL_PROFILER) out->profiler_flops += r->model.flops;
    long wi = tr_mem_win_at(w, n, c->ts);
    if (wi < 0) continue;
    tr_op_step *s = &out->steps[wi];
    double peak = tr_flops_peak(dev, r->model.dtype);
    s->flops += r->model.flops;
    if (isnan(peak) || peak <= 0) s->flops_no_peak += r->model.flops;
    else s->ideal_us += r->model.flops / (peak * 1e12) * 1e6;
    s->kernel_us += busy;
  }
  out->dropped = o->dropped;
  out->rows = o->rows;
  out->n_rows = o->nrows;
  if (out->n_rows) qsort(out->rows, out->n_rows, sizeof *out->rows, row_cmp);
  pd_map_free(&o->keys);
  occs_free(&o->ops);
  free(o->last_end);
  free(o->busy);
  occs_free(&o->host);
  pd_intern_free(&o->host_names);
  free(o);
}

void tr_ops_free(tr_ops *ops) {
  for (size_t i = 0; i < ops->n_rows; i++) free(ops->rows[i].name);
  free(ops->rows);
  free(ops->steps);
  memset(ops, 0, sizeof *ops);
}
