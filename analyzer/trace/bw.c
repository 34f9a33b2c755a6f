#include "trace/bw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* Recorded names (torch.distributed, as TraceLens's NcclAnalyser lists them) by family. */
static const struct {
  const char *name, *kind;
} KINDS[] = {
    {"allreduce", "allreduce"},
    {"allreduce_coalesced", "allreduce"},
    {"all_reduce", "allreduce"},
    {"reducescatter", "reducescatter"},
    {"reduce_scatter", "reducescatter"},
    {"_reduce_scatter_base", "reducescatter"},
    {"reduce_scatter_tensor_coalesced", "reducescatter"},
    {"allgather", "allgather"},
    {"all_gather", "allgather"},
    {"_allgather_base", "allgather"},
    {"all_gather_into_tensor_coalesced", "allgather"},
    {"allgather_into_tensor_coalesced", "allgather"},
    {"all_to_all", "alltoall"},
    {"alltoall", "alltoall"},
    {"alltoall_base", "alltoall"},
    {"broadcast", "broadcast"},
    {"reduce", "reduce"},
};

const char *tr_bw_kind(const char *collective) {
  if (!collective) return NULL;
  for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
    if (!strcmp(KINDS[i].name, collective)) return KINDS[i].kind;
  return NULL;
}

int tr_bw_elem_bytes(const char *dtype) {
  static const struct {
    const char *name;
    int bytes;
  } T[] = {{"Float", 4}, {"Int", 4},    {"Long", 8},  {"BFloat16", 2}, {"Half", 2},
           {"Bool", 1},  {"Byte", 1},   {"Char", 1},  {"Double", 8},   {"Short", 2},
           {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}};
  if (!dtype) return 0;
  for (size_t i = 0; i < sizeof T / sizeof *T; i++)
    if (!strcmp(T[i].name, dtype)) return T[i].bytes;
  return 0;
}

int64_t tr_bw_bytes(const char *collective, int64_t in_nelems, int64_t out_nelems, const char *dtype) {
  const char *k = tr_bw_kind(collective);
  int eb = tr_bw_elem_bytes(dtype);
  if (!k || !eb) return -1;
  int64_t n = !strcmp(k, "allgather") ? out_nelems : in_nelems;
  return n < 0 ? -1 : n * eb;
}

double tr_bw_factor(const char *collective, int n) {
  const char *k = tr_bw_kind(collective);
  if (!k || n < 1) return NAN;
  if (!strcmp(k, "allreduce")) return 2.0 * (n - 1) / n;
  if (!strcmp(k, "broadcast") || !strcmp(k, "reduce")) return 1.0;
  return (double)(n - 1) / n;
}

void tr_bw_add(tr_bw_rows *rows, const char *what, int64_t bytes, int group, double time_us) {
  if (bytes < 0 || !what) return;
  for (size_t i = 0; i < rows->n; i++) {
    tr_bw_row *r = &rows->v[i];
    if (r->bytes == bytes && r->group == group && !strcmp(r->what, what)) {
      r->count++;
      r->time_us += time_us;
      return;
    }
  }
  tr_bw_row *r = PD_PUSH(rows->v, rows->n, rows->cap);
  *r = (tr_bw_row){pd_xstrdup(what), bytes, group, 1, time_us, NAN, NAN};
}

static int row_cmp(const void *pa, const void *pb) {
  const tr_bw_row *a = pa, *b = pb;
  if (a->time_us != b->time_us) return a->time_us > b->time_us ? -1 : 1;
  if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
  return strcmp(a->what, b->what);
}

void tr_bw_finish(tr_bw_rows *rows) {
  for (size_t i = 0; i < rows->n; i++) {
    tr_bw_row *r = &rows->v[i];
    if (r->time_us <= 0) continue;
    r->algbw_gbps = (double)r->bytes * (double)r->count / (r->time_us * 1e-6) / 1e9;
    r->busbw_gbps = r->algbw_gbps * tr_bw_factor(r->what, r->group);
  }
  if (rows->n) qsort(rows->v, rows->n, sizeof *rows->v, row_cmp);
}

void tr_bw_free(tr_bw_rows *rows) {
  for (size_t i = 0; i < rows->n; i++) free(rows->v[i].what);
  free(rows->v);
  memset(rows, 0, sizeof *rows);
}
