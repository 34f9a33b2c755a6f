#include "trace/mem.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define MAX_DEV 8
#define BUF_CAP 65536

/* A buffered event, or after thinning a run of neighbours [b, e] kept as its maxima. */
typedef struct {
  int64_t b, e, amax_ts, amax, rmax;
  int dev;
} sample;

typedef struct {
  int type, id;
  long n;
  int64_t pa, pr, at;
  int tid;
} device;

/* A settled per-step peak. */
typedef struct {
  long step;
  int dev;
  int64_t pa, pr;
} acc;

struct tr_mem_col {
  device dev[MAX_DEV];
  int ndev;
  sample *buf;
  size_t nbuf;
  acc *acc;
  size_t nacc, capacc;
  bool lossy;
};

tr_mem_col *tr_mem_new(void) {
  return pd_xcalloc(1, sizeof(tr_mem_col)); /* the buffer comes with the first event */
}

static int dev_index(tr_mem_col *m, int type, int id) {
  for (int i = 0; i < m->ndev; i++)
    if (m->dev[i].type == type && m->dev[i].id == id) return i;
  if (m->ndev == MAX_DEV) return -1;
  m->dev[m->ndev] = (device){type, id, 0, -1, -1, 0, 0};
  return m->ndev++;
}

void tr_mem_add(tr_mem_col *m, int dev_type, int dev_id, int64_t ts, int64_t alloc, int64_t reserved, int tid) {
  if (dev_type <= 0 || dev_id < 0) return; /* the CPU (type 0, id -1) */
  int di = dev_index(m, dev_type, dev_id);
  if (di < 0) return;
  device *d = &m->dev[di];
  d->n++;
  /* the first time the maximum is reached (events need not come in time order) */
  if (alloc > d->pa || (alloc == d->pa && ts < d->at)) {
    d->pa = alloc;
    d->at = ts;
    d->tid = tid;
  }
  if (reserved > d->pr) d->pr = reserved;
  if (!m->buf) m->buf = pd_xmalloc(BUF_CAP * sizeof *m->buf);
  if (m->nbuf < BUF_CAP) m->buf[m->nbuf++] = (sample){ts, ts, ts, alloc, reserved, di};
}

bool tr_mem_wants_windows(const tr_mem_col *m) { return m->nbuf >= BUF_CAP; }

long tr_mem_win_at(const tr_mem_win *w, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (w[mid].b <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && t < w[lo - 1].e ? (long)lo - 1 : -1;
}

/* Index of the window holding all of [b, e], or -1. */
static long window_of(const tr_mem_win *w, size_t n, int64_t b, int64_t e) {
  long i = tr_mem_win_at(w, n, b);
  return i >= 0 && e < w[i].e ? i : -1;
}

static void acc_add(tr_mem_col *m, long step, int dev, int64_t pa, int64_t pr) {
  for (size_t i = 0; i < m->nacc; i++)
    if (m->acc[i].step == step && m->acc[i].dev == dev) {
      if (pa > m->acc[i].pa) m->acc[i].pa = pa;
      if (pr > m->acc[i].pr) m->acc[i].pr = pr;
      return;
    }
  *PD_PUSH(m->acc, m->nacc, m->capacc) = (acc){step, dev, pa, pr};
}

/* Moves the buffered samples that lie inside a window into the per-step peaks. */
static void settle_known(tr_mem_col *m, const tr_mem_win *w, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < m->nbuf; i++) {
    const sample *s = &m->buf[i];
    long wi = window_of(w, n, s->b, s->e);
    if (wi >= 0) acc_add(m, w[wi].step, s->dev, s->amax, s->rmax);
    else m->buf[k++] = *s;
  }
  m->nbuf = k;
}

static int sample_cmp(const void *pa, const void *pb) {
  const sample *a = pa, *b = pb;
  if (a->dev != b->dev) return a->dev - b->dev;
  return (a->b > b->b) - (a->b < b->b);
}

/* Halves the buffer: neighbours in time (same device) become one sample of their maxima. */
static void thin(tr_mem_col *m) {
  qsort(m->buf, m->nbuf, sizeof *m->buf, sample_cmp);
  size_t k = 0;
  for (size_t i = 0; i < m->nbuf; i++) {
    sample s = m->buf[i];
    if (i + 1 < m->nbuf && m->buf[i + 1].dev == s.dev) {
      const sample *t = &m->buf[++i];
      if (t->e > s.e) s.e = t->e;
      if (t->amax > s.amax) {
        s.amax = t->amax;
        s.amax_ts = t->amax_ts;
      }
      if (t->rmax > s.rmax) s.rmax = t->rmax;
    }
    m->buf[k++] = s;
  }
  m->nbuf = k;
  m->lossy = true;
}

void tr_mem_settle(tr_mem_col *m, const tr_mem_win *w, size_t n) {
  settle_known(m, w, n);
  if (m->nbuf > BUF_CAP / 2) thin(m);
}

static int64_t step_peak(const tr_mem_col *m, long step, int dev, bool reserved) {
  for (size_t i = 0; i < m->nacc; i++)
    if (m->acc[i].step == step && m->acc[i].dev == dev) return reserved ? m->acc[i].pr : m->acc[i].pa;
  return -1;
}

void tr_mem_finish(tr_mem_col *m, const tr_mem_win *w, size_t n, tr_memory *out) {
  memset(out, 0, sizeof *out);
  settle_known(m, w, n);
  /* thinned samples that straddle a window: counted where their maximum lies (a lower bound) */
  for (size_t i = 0; i < m->nbuf; i++) {
    long wi = window_of(w, n, m->buf[i].amax_ts, m->buf[i].amax_ts);
    if (wi >= 0) acc_add(m, w[wi].step, m->buf[i].dev, m->buf[i].amax, m->buf[i].rmax);
  }
  int best = -1;
  for (int i = 0; i < m->ndev; i++)
    if (best < 0 || m->dev[i].pa > m->dev[best].pa) best = i;
  out->gpu_devices = m->ndev;
  out->steps_exact = !m->lossy;
  if (best >= 0) {
    const device *d = &m->dev[best];
    out->measured = true;
    out->device_type = d->type;
    out->device_id = d->id;
    out->samples = d->n;
    out->peak_alloc = d->pa;
    out->peak_reserved = d->pr;
    out->at_ns = d->at;
    out->at_tid = d->tid;
    out->steps = pd_xcalloc(n + 1, sizeof *out->steps);
    out->n_steps = n;
    for (size_t i = 0; i < n; i++)
      out->steps[i] = (tr_mem_step){w[i].step, step_peak(m, w[i].step, best, false), step_peak(m, w[i].step, best, true)};
  }
  free(m->buf);
  free(m->acc);
  free(m);
}

void tr_memory_free(tr_memory *mem) {
  free(mem->steps);
  memset(mem, 0, sizeof *mem);
}
