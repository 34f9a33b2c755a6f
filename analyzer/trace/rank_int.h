/* trace_rank's private parts, shared by rank.c (reading, joining, per-step decomposition) and
 * hta.c (HTA's figures): the compact per-event records and the collector that holds them
 * while one file is read. Nothing outside trace_rank includes this. */
#ifndef PD_TRACE_RANK_INT_H
#define PD_TRACE_RANK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "trace/iv.h"
#include "trace/mem.h"
#include "trace/ops.h"
#include "trace/rank.h"

#define NO_ID UINT32_MAX

/* Interned strings (kernel names, collective args) with each kernel name's class. */
typedef struct {
  pd_intern in;
  uint8_t *cls; /* kernel class by id, computed on first use */
  size_t cap_cls;
} names;

uint32_t trr_names_intern(names *t, const char *s);
uint32_t trr_names_intern_n(names *t, const char *s, size_t n);
int trr_names_class(names *t, uint32_t id);

/* One GPU row: 40 bytes, as a GB-sized trace holds about a million of them. */
typedef struct {
  int64_t ts, end;  /* ns on the trace clock */
  int64_t link;     /* the correlation id while reading; the launch call's start once joined */
  uint32_t rt_dur;  /* the launch call's duration, ns (saturates at 4.29 s) */
  int32_t stream;
  uint32_t name;
  /* communication rows: index into col.ci (their collective args); other rows, once joined:
   * the modelled op that launched them (trace_ops); AUX_NONE for neither */
  uint32_t aux : 20;
  uint32_t adj : 4;    /* HTA's double rounding of this row, see hta_adj */
  uint32_t rt_adj : 4; /* ... and of its launch call */
  uint32_t kcat : 1;    /* cat kernel/memcpy/memset: what HTA's idle breakdown looks at */
  uint32_t has_corr : 1;
  uint32_t has_rt : 1;  /* a CPU row with the same correlation was found */
  uint32_t launch : 1;  /* ... and it is one of the launch calls HTA's launch stats count */
} gev;

#define AUX_NONE ((1u << 20) - 1)

/* One CPU row with a correlation id (runtime / driver call): 24 bytes. */
typedef struct {
  int64_t corr, ts;
  uint32_t dur; /* ns, saturating */
  uint32_t launch : 1; /* one of the launch calls HTA's launch statistics count */
  uint32_t adj : 4;
  uint32_t tid : 8;    /* thread index (col.threads), 0 when unknown */
} rtev;

typedef struct {
  uint32_t coll, pg, pg_ranks, comms_id, dtype; /* interned, or NO_ID */
  int64_t seq, nelems, out_nelems;
  int group; /* Group size, -1 when not recorded */
} cinfo;

typedef struct {
  long n;
  int64_t ts, end;
  bool user_annotation;
  unsigned adj;
} steprow;

/* deviceProperties: what the rank's device is. */
typedef struct {
  int id;
  char *name;
  int64_t total;
} devprop;

typedef struct {
  names nm;
  gev *g;
  size_t ng, capg;
  rtev *rt;
  size_t nrt, caprt;
  cinfo *ci;
  size_t nci, capci;
  steprow *st;
  size_t nst, capst;
  tr_ivs host, hostcoll;
  size_t host_compact_at;
  bool float_ts;
  bool has_memory;     /* a [memory] event was read */
  bool profile_memory; /* the header says memory was recorded */
  bool profiler_flags; /* the header lists the profiler's options (record_shapes, with_stack, ...) */
  bool host_off_by_header; /* ... without profile_memory, so host ops were not collected */
  bool gpu_seen;       /* a GPU or runtime row was read */
  int64_t tmin, tmax;
  bool any_time;
  char *scratch[2]; /* decoded strings of the current event */
  size_t scap[2];
  /* threads: "pid/tid" -> index 1..255 (0: unknown or one too many), the last one cached */
  pd_map threads;
  char last_thread[64];
  int last_thread_ix;
  int device;       /* the "device" arg of the first GPU row, -1 */
  devprop *props;
  size_t nprops;
  tr_ops_col *ops;
  tr_mem_col *mem;
  tr_rank *out;
} col;

static inline int64_t trr_floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
static inline int64_t trr_ceil_div(int64_t a, int64_t b) { return -trr_floor_div(-a, b); }

/* Appends [b, e) to a set being built from intervals in start order, merging with HTA's rule
 * (a new group only when b is after the running maximum end). */
void trr_merge_in_order(tr_ivs *s, int64_t *cummax, int64_t b, int64_t e);
int trr_long_cmp(const void *pa, const void *pb);
/* Orders by a leading int64_t: int64_t arrays, and structs whose first member is their key. In
 * the header, so that pd_sort_inline inlines it. */
static inline int trr_i64_cmp(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* HTA's figures into c->out->hta, from the joined and sorted GPU rows. */
void trr_analyze_hta(col *c, const tr_rank_opts *opts);

#endif
