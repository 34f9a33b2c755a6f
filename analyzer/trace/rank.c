#include "trace/rank.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/bw.h"
#include "trace/flops.h"
#include "trace/messages.h"
#include "trace/iv.h"
#include "trace/rank_int.h"
#include "trace/read.h"
#include "base/alloc.h"
#include "base/sort.h"
#include "base/hash.h"

/* Host gaps up to this long between CPU ops still count as "launch activity": eager PyTorch
 * spends tens of µs of Python between ops, which is not data supply. */
#define HOST_BRIDGE_NS 100000

/* ---- string interning (kernel names, collective args) ---- */

uint32_t trr_names_intern_n(names *t, const char *s, size_t n) {
  bool added;
  uint32_t id = pd_intern_n(&t->in, s, n, &added);
  if (added) {
    if (t->in.n > t->cap_cls) {
      t->cap_cls = t->in.cap;
      t->cls = pd_xrealloc(t->cls, t->cap_cls);
    }
    t->cls[id] = 0;
  }
  return id;
}

uint32_t trr_names_intern(names *t, const char *s) { return trr_names_intern_n(t, s, strlen(s)); }

static void names_free(names *t) {
  pd_intern_free(&t->in);
  free(t->cls);
}

/* ---- kernel classification: HTA's regexes, spelled out ---- */

/* s starts with the literal lit: the length is known at compile time, so the compiler compares
 * inline (a strlen and a strncmp call per pattern were most of classifying a kernel name). */
#define starts(s, lit) (strncmp((s), (lit), sizeof(lit) - 1) == 0)

int tr_kernel_class(const char *n) {
  /* COMMUNICATION: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) */
  if (starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || strstr(n, "ncclKernel"))
    return TR_COMM;
  /* MEMORY: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) */
  if (starts(n, "Memcpy") || starts(n, "Memset") || starts(n, "hipMemcpy") ||
      starts(n, "hipMemset") || starts(n, "dma"))
    return TR_MEM;
  /* COMPUTATION: everything that does not match HTA's non-compute pattern (re.match, so
   * "(cuda.*LaunchKernel)" is anchored at the start while ".*X" means "contains X"). */
  const char *cuda = starts(n, "cuda") ? strstr(n + 4, "LaunchKernel") : NULL;
  if (starts(n, "nccl") || strstr(n, "Memcpy") || strstr(n, "Memset") || strstr(n, "dma") ||
      strstr(n, "Sync") || starts(n, "Stream Wait Event") || cuda || starts(n, "runFunction") ||
      starts(n, "hip") || starts(n, "job_exe") || starts(n, "packet") || starts(n, "pe_exe") ||
      starts(n, "cpum_exe_subgraph") || starts(n, "hccl") ||
      starts(n, "collective_subgraph_execution"))
    return TR_OTHER;
  return TR_COMP;
}

/* cls holds the class in its low 4 bits and, once asked, whether the kernel is a TF32 one. */
#define CLS_MASK 15u
#define TF32_KNOWN 16u
#define TF32_YES 32u

int trr_names_class(names *t, uint32_t id) {
  if (!(t->cls[id] & CLS_MASK)) t->cls[id] |= (uint8_t)tr_kernel_class(t->in.str[id]);
  return t->cls[id] & CLS_MASK;
}

/* Whether a GEMM kernel's name says it runs fp32 data on tensor cores (TF32): "tf32" in cuBLAS's
 * names, "tensorop_s..." (single precision through tensor ops) in CUTLASS's. */
static bool names_tf32(names *t, uint32_t id) {
  if (!(t->cls[id] & TF32_KNOWN)) {
    const char *n = t->in.str[id];
    t->cls[id] |= TF32_KNOWN | (strstr(n, "tf32") || strstr(n, "tensorop_s") ? TF32_YES : 0);
  }
  return t->cls[id] & TF32_YES;
}

static uint32_t sat_u32(int64_t x) { return x < 0 ? 0 : x > UINT32_MAX ? UINT32_MAX : (uint32_t)x; }

/* ---- field helpers ---- */

static bool jnum(json_t *v, double *out) {
  if (json_is_integer(v)) *out = (double)json_integer_value(v);
  else if (json_is_real(v)) *out = json_real_value(v);
  else return false;
  return true;
}

/* The slice as a NUL-terminated string in one of the collector's two scratch buffers. */
static const char *scratch_str(col *c, int which, const tr_slice *sl) {
  if (!sl->p) return NULL;
  if (c->scap[which] < sl->n + 1) {
    c->scap[which] = sl->n + 64;
    c->scratch[which] = pd_xrealloc(c->scratch[which], c->scap[which]);
  }
  tr_slice_decode(sl, c->scratch[which]);
  return c->scratch[which];
}

/* A string or number arg, interned as text, or NO_ID. */
static uint32_t slice_intern(col *c, const tr_slice *sl) {
  const char *t = scratch_str(c, 1, sl);
  return t ? trr_names_intern(&c->nm, t) : NO_ID;
}

/* ---- runtime map ---- */

/* Names are compared as the slices they are in the window (not NUL-terminated), without a copy;
 * an escaped one is decoded first (on_event). */
static inline bool nm_is(tr_slice m, const char *lit) {
  size_t k = strlen(lit);
  return m.n == k && !memcmp(m.p, lit, k);
}

static inline bool nm_starts(tr_slice m, const char *lit) {
  size_t k = strlen(lit);
  return m.n >= k && !memcmp(m.p, lit, k);
}

static bool is_launch_api(tr_slice n) {
  return nm_is(n, "cudaLaunchKernel") || nm_is(n, "cudaLaunchKernelExC") || nm_is(n, "cudaMemcpyAsync") ||
         nm_is(n, "cudaMemsetAsync");
}

static void rt_add(col *c, int64_t corr, int64_t ts, int64_t end, tr_slice name, unsigned adj, int tid) {
  rtev *r = PD_PUSH(c->rt, c->nrt, c->caprt);
  *r = (rtev){corr, ts, sat_u32(end - ts), is_launch_api(name), adj & 15u, (uint32_t)tid & 255u};
}

/* ---- event intake ---- */

static bool parse_step(tr_slice name, long *n) {
  /* HTA: ^ProfilerStep#(\d+) selects the rows; the number is read with ProfilerStep\s*#\s*(\d+) */
  if (!nm_starts(name, "ProfilerStep#") || name.n == 13 || !isdigit((unsigned char)name.p[13])) return false;
  char digits[24];
  size_t k = 0;
  for (size_t i = 13; i < name.n && k + 1 < sizeof digits && isdigit((unsigned char)name.p[i]); i++) digits[k++] = name.p[i];
  digits[k] = '\0';
  *n = strtol(digits, NULL, 10);
  return true;
}

static void host_add(col *c, int64_t b, int64_t e) {
  tr_ivs_push(&c->host, b, e);
  if (c->host.n >= c->host_compact_at) { /* keep memory bounded by the union's size */
    tr_ivs_merge(&c->host);
    tr_ivs_bridge(&c->host, HOST_BRIDGE_NS);
    c->host_compact_at = c->host.n * 2 > 65536 ? c->host.n * 2 : 65536;
  }
}

/* The categories the analyses tell apart (trace-format.md), decoded once per event. */
enum {
  CAT_NONE,    /* no "cat" string: HTA drops the row */
  CAT_OTHER,
  CAT_TRACE,   /* the whole-capture span, dropped by HTA */
  CAT_GPU,     /* kernel / gpu_memcpy / gpu_memset (and HTA's capitalised variants) */
  CAT_CPU_OP,
  CAT_RUNTIME, /* cuda_runtime / cuda_driver / Runtime */
  CAT_USER_ANNOTATION,
  CAT_INSTANT, /* cpu_instant_event: [memory] events */
};

/* One call per event: the literals are compared inline (a memcmp call per table entry was a
 * measurable share of reading); an escaped category is decoded first. */
static int cat_code(const tr_slice *c) {
  if (!c->p) return CAT_NONE;
  char buf[128]; /* an escape is at most 6 bytes a character: longer never decodes to one of ours */
  tr_slice m = *c;
  if (c->escaped) {
    if (c->n >= sizeof buf) return CAT_OTHER;
    m = (tr_slice){buf, (uint32_t)tr_slice_decode(c, buf), false, false};
  }
  if (nm_is(m, "cpu_op")) return CAT_CPU_OP;
  if (nm_is(m, "kernel") || nm_is(m, "gpu_memcpy") || nm_is(m, "gpu_memset")) return CAT_GPU;
  if (nm_is(m, "cuda_runtime") || nm_is(m, "cuda_driver")) return CAT_RUNTIME;
  if (nm_is(m, "user_annotation")) return CAT_USER_ANNOTATION;
  if (nm_is(m, "Trace")) return CAT_TRACE;
  if (nm_is(m, "cpu_instant_event")) return CAT_INSTANT;
  if (nm_is(m, "Kernel") || nm_is(m, "Memcpy") || nm_is(m, "Memset") || nm_is(m, "mtia_ccp_events")) return CAT_GPU;
  if (nm_is(m, "Runtime")) return CAT_RUNTIME;
  return CAT_OTHER;
}

/* HTA rounds with pandas floats: ceil(ts) and floor(ts + dur) on doubles. Past about 2^50 µs
 * (absolute epoch µs with ns decimals) a double cannot hold the ns digits, so its rounding
 * can differ from the exact decimal one by a µs. The difference, -1..1 for start and for end,
 * is packed in 4 bits: (start + 1) * 3 + (end + 1). */
static unsigned hta_adj(const tr_event *ev, int64_t ts, int64_t end) {
  if (!ev->ts.real && !ev->dur.real) return 4; /* integers: doubles are exact */
  double b = ceil(ev->ts_us), e = floor(ev->ts_us + ev->dur_us);
  int64_t db = (int64_t)b - trr_ceil_div(ts, 1000), de = (int64_t)e - trr_floor_div(end, 1000);
  db = db < -1 ? -1 : db > 1 ? 1 : db;
  de = de < -1 ? -1 : de > 1 ? 1 : de;
  return (unsigned)((db + 1) * 3 + (de + 1));
}

/* A few bytes equal: a loop, where memcmp is a call (ids are 1-10 bytes). */
static inline bool bytes_eq(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

/* The thread index of a CPU event: 1..255 in order of first appearance, 0 when the event
 * names no thread or there are more. */
static int thread_ix(col *c, const tr_event *ev) {
  if (!ev->tid.p) return 0;
  char key[sizeof c->last_thread];
  size_t np = ev->pid.p ? ev->pid.n : 0, nt = ev->tid.n;
  if (np + nt + 2 > sizeof key) return 0;
  /* the same thread as the last event's, told from the slices without building the key */
  const char *last = c->last_thread;
  if (last[0] && last[np] == '/' && last[np + nt + 1] == '\0' && bytes_eq(last, ev->pid.p, np) &&
      bytes_eq(last + np + 1, ev->tid.p, nt))
    return c->last_thread_ix;
  if (np) memcpy(key, ev->pid.p, np);
  key[np] = '/';
  memcpy(key + np + 1, ev->tid.p, nt);
  key[np + nt + 1] = '\0';
  bool added;
  pd_map_slot *slot = pd_map_put(&c->threads, key, &added);
  if (added) slot->value = c->threads.n <= 255 ? c->threads.n : 0;
  memcpy(c->last_thread, key, np + nt + 2);
  c->last_thread_ix = (int)slot->value;
  return c->last_thread_ix;
}

/* The ProfilerStep windows known so far (CPU-side spans, one per step, by start). */
static tr_mem_win *known_windows(const col *c, size_t *n) {
  tr_mem_win *w = pd_xmalloc((c->nst + 1) * sizeof *w);
  size_t k = 0;
  for (size_t i = 0; i < c->nst; i++) {
    bool dup = false;
    for (size_t j = 0; j < k && !dup; j++) dup = w[j].step == c->st[i].n;
    if (c->st[i].user_annotation && !dup) w[k++] = (tr_mem_win){c->st[i].n, c->st[i].ts, c->st[i].end};
  }
  for (size_t i = 1; i < k; i++) /* insertion sort: a handful of steps */
    for (size_t j = i; j > 0 && w[j - 1].b > w[j].b; j--) {
      tr_mem_win t = w[j];
      w[j] = w[j - 1];
      w[j - 1] = t;
    }
  *n = k;
  return w;
}

static void memory_event(col *c, const tr_event *ev) {
  c->has_memory = true;
  if (!ev->ts.present || !ev->mem_alloc.present) return;
  tr_mem_add(c->mem, ev->dev_type.present ? (int)ev->dev_type.v : -1, ev->dev_id.present ? (int)ev->dev_id.v : -1,
             ev->ts.v, ev->mem_alloc.v, ev->mem_reserved.present ? ev->mem_reserved.v : -1, thread_ix(c, ev));
  if (tr_mem_wants_windows(c->mem)) {
    size_t n;
    tr_mem_win *w = known_windows(c, &n);
    tr_mem_settle(c->mem, w, n);
    free(w);
  }
}

/* A CPU op: kept for "which op ran at the memory peak" while that may be asked, and for FLOPs
 * when its shapes are recorded. */
static void cpu_op(col *c, const tr_event *ev, tr_slice name, int64_t ts, int64_t end) {
  int tid = -1;
  /* PyTorch lists the profiler's options in the header, each only when on ("profile_memory": 1
   * among them): a header listing some but not profile_memory says no memory events follow, and
   * host ops, kept only to name the op at a memory peak, are not collected at all */
  if (c->profiler_flags && !c->profile_memory && !c->has_memory && tr_ops_host_kept(c->ops)) {
    tr_ops_host_stop(c->ops);
    c->host_off_by_header = true;
  }
  if (tr_ops_host_kept(c->ops)) tr_ops_host(c->ops, name.p, name.n, tid = thread_ix(c, ev), ts, end);
  if (ev->dims.p) c->out->shapes = true;
  /* the name as a C string only for the ops the FLOPs formulas may count */
  if (!ev->flops.present && !(ev->dims.p && tr_flops_modelled(name.p, name.n))) return;
  const char *cname = ev->name.p ? scratch_str(c, 0, &ev->name) : "";
  tr_fl fl;
  if (tr_flops_of(cname, ev, &fl)) tr_ops_add(c->ops, cname, &fl, tid >= 0 ? tid : thread_ix(c, ev), ts, end);
}

/* Kineto writes the CPU ops, then the memory events, then the runtime calls and GPU rows: at
 * the first of those with no sign of memory recording, the host ops will not be asked for. */
static void device_rows_begin(col *c) {
  c->gpu_seen = true;
  if (!c->has_memory && !c->profile_memory) tr_ops_host_stop(c->ops);
}

static void gpu_row(col *c, const tr_event *ev, tr_slice name, int cat, int64_t ts, int64_t end, int64_t stream,
                    int64_t corr) {
  gev *g = PD_PUSH(c->g, c->ng, c->capg);
  g->ts = ts;
  g->end = end;
  g->link = corr;
  g->has_corr = corr >= 0;
  g->has_rt = g->launch = 0;
  g->rt_adj = 4;
  g->rt_dur = 0;
  g->stream = stream > INT32_MAX ? INT32_MAX : (int32_t)stream;
  g->name = trr_names_intern_n(&c->nm, name.p, name.n);
  g->kcat = cat == CAT_GPU;
  g->aux = AUX_NONE;
  g->adj = hta_adj(ev, ts, end) & 15u;
  if (c->device < 0 && ev->device.present) c->device = (int)ev->device.v;
  if (trr_names_class(&c->nm, g->name) == TR_COMM && c->nci < AUX_NONE) {
    cinfo *ci = PD_PUSH(c->ci, c->nci, c->capci);
    ci->coll = slice_intern(c, &ev->coll_name);
    ci->pg = slice_intern(c, &ev->pg_name);
    ci->pg_ranks = slice_intern(c, &ev->pg_ranks);
    ci->comms_id = slice_intern(c, &ev->comms_id);
    ci->dtype = slice_intern(c, &ev->dtype);
    ci->seq = ev->seq.present ? ev->seq.v : -1;
    ci->nelems = ev->nelems.present ? ev->nelems.v : -1;
    ci->out_nelems = ev->out_nelems.present ? ev->out_nelems.v : -1;
    ci->group = ev->group_size.present ? (int)ev->group_size.v : -1;
    g->aux = (uint32_t)(c->nci - 1) & AUX_NONE;
  }
}

static void on_event(void *vc, const tr_event *ev, uint64_t offset) {
  (void)offset;
  col *c = vc;
  /* HTA rounds when pandas' ts column is float: any float ts, or any row without one. */
  if (!ev->ts.present || ev->ts.real) c->float_ts = true;
  tr_slice name = ev->name.p && !ev->name.escaped ? ev->name : (tr_slice){"", 0, false, false};
  if (ev->name.p && ev->name.escaped) {
    name.p = scratch_str(c, 0, &ev->name);
    name.n = (uint32_t)strlen(name.p);
  }
  int cat = cat_code(&ev->cat);
  if (cat == CAT_INSTANT && nm_is(name, "[memory]")) {
    memory_event(c, ev);
    return;
  }
  if (cat == CAT_NONE || !ev->ts.present || !ev->dur.present) return; /* HTA drops rows without dur/cat */
  if (cat == CAT_TRACE) return;
  int64_t ts = ev->ts.v, end = ts + ev->dur.v;
  if (!c->any_time || ts < c->tmin) c->tmin = ts;
  if (!c->any_time || end > c->tmax) c->tmax = end;
  c->any_time = true;
  int64_t stream = ev->stream.present ? ev->stream.v : -1;
  int64_t corr = ev->correlation.present ? ev->correlation.v : -1;
  if (!c->gpu_seen && (stream >= 0 || cat == CAT_RUNTIME)) device_rows_begin(c);
  if (stream >= 0) {
    gpu_row(c, ev, name, cat, ts, end, stream, corr);
    return;
  }
  if (corr >= 0) rt_add(c, corr, ts, end, name, hta_adj(ev, ts, end), thread_ix(c, ev));
  long n;
  if (parse_step(name, &n)) {
    steprow *sr = PD_PUSH(c->st, c->nst, c->capst);
    *sr = (steprow){n, ts, end, cat == CAT_USER_ANNOTATION, hta_adj(ev, ts, end)};
  }
  bool op = cat == CAT_CPU_OP;
  if (op || cat == CAT_RUNTIME) host_add(c, ts, end);
  if (op) cpu_op(c, ev, name, ts, end);
  if ((cat == CAT_USER_ANNOTATION && nm_starts(name, "nccl:")) ||
      (op && (nm_is(name, "record_param_comms") || nm_starts(name, "c10d::") || nm_starts(name, "nccl:"))))
    tr_ivs_push(&c->hostcoll, ts, end);
}

/* deviceProperties: [{"id", "name", "totalGlobalMem", ...}, ...] */
static void on_device_props(col *c, json_t *v) {
  size_t i;
  json_t *d;
  json_array_foreach(v, i, d) {
    json_t *id = json_object_get(d, "id"), *nm = json_object_get(d, "name"), *mem = json_object_get(d, "totalGlobalMem");
    if (!json_is_integer(id) || !json_is_string(nm) || c->nprops >= 64) continue;
    c->props = pd_xrealloc(c->props, (c->nprops + 1) * sizeof *c->props);
    c->props[c->nprops++] = (devprop){(int)json_integer_value(id), pd_xstrdup(json_string_value(nm)),
                                      json_is_integer(mem) ? (int64_t)json_integer_value(mem) : -1};
  }
}

static void on_header(void *vc, const char *key, json_t *v) {
  col *c = vc;
  tr_rank *r = c->out;
  if (!strcmp(key, "distributedInfo") && json_is_object(v)) {
    json_t *jr = json_object_get(v, "rank");
    if (json_is_integer(jr)) {
      r->rank = (int)json_integer_value(jr);
      r->rank_source = "distributedInfo";
    }
    json_t *ws = json_object_get(v, "world_size");
    if (json_is_integer(ws)) r->world_size = (int)json_integer_value(ws);
  } else if (!strcmp(key, "deviceProperties") && json_is_array(v)) {
    on_device_props(c, v);
  } else if (!strcmp(key, "profile_memory")) {
    c->profile_memory = json_is_true(v) || (json_is_integer(v) && json_integer_value(v) != 0);
    c->profiler_flags = true;
  } else if (!strcmp(key, "record_shapes") || !strcmp(key, "with_stack") || !strcmp(key, "with_flops") ||
             !strcmp(key, "with_modules")) {
    c->profiler_flags = true;
  } else if (!strcmp(key, "baseTimeNanoseconds")) {
    double d;
    if (json_is_integer(v)) {
      r->base_ns = (int64_t)json_integer_value(v);
      r->has_base = true;
    } else if (jnum(v, &d)) {
      r->base_ns = (int64_t)llround(d);
      r->has_base = true;
    }
  }
}

/* ---- file name ---- */

static int num_after(const char *s, const char *key, bool allow_sep) {
  for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
    const char *q = p + strlen(key);
    if (allow_sep && (*q == '_' || *q == '-')) q++;
    if (isdigit((unsigned char)*q)) return (int)strtol(q, NULL, 10);
  }
  return -1;
}

void tr_parse_file_name(const char *path, int *rank, int *dp, int *tp, int *pp) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  *rank = num_after(base, "rank", true);
  *dp = num_after(base, "_dp", false);
  *tp = num_after(base, "_tp", false);
  *pp = num_after(base, "_pp", false);
}

/* ---- joining GPU rows to their launches ---- */

static int gev_cmp(const void *pa, const void *pb) {
  const gev *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

/* A GPU row's correlation id and its index, for the join. */
typedef struct {
  int64_t corr;
  size_t row;
} corr_ref;

/* Both sides of the join are ordered by trr_i64_cmp on their leading member, the id. */
_Static_assert(offsetof(rtev, corr) == 0 && offsetof(corr_ref, corr) == 0, "the id leads");

static void attach_launch(col *c, gev *g, const rtev *rt) {
  g->has_rt = 1;
  g->link = rt->ts;
  g->rt_dur = rt->dur;
  g->launch = rt->launch;
  g->rt_adj = rt->adj;
  if (trr_names_class(&c->nm, g->name) != TR_COMM) { /* the modelled op it belongs to */
    uint32_t op = tr_ops_find(c->ops, (int)rt->tid, rt->ts);
    g->aux = op < AUX_NONE ? op : AUX_NONE;
  }
}

/* Joins every GPU row with its launching CPU row by correlation id: both sides sorted by id (they
 * come nearly sorted) and walked side by side, where a hash table of millions of ids was a cache
 * miss per row. Of several CPU rows with one id the later one wins, as in HTA (the sort is
 * stable, so it is the last of its run). */
static void join_launches(col *c) {
  pd_sort_inline(c->rt, c->nrt, sizeof *c->rt, trr_i64_cmp);
  corr_ref *ref = pd_xmalloc((c->ng + 1) * sizeof *ref);
  size_t nref = 0;
  for (size_t i = 0; i < c->ng; i++)
    if (c->g[i].has_corr) ref[nref++] = (corr_ref){c->g[i].link, i};
  pd_sort_inline(ref, nref, sizeof *ref, trr_i64_cmp);
  size_t j = 0;
  for (size_t k = 0; k < nref; k++) {
    while (j < c->nrt && (c->rt[j].corr < ref[k].corr || (j + 1 < c->nrt && c->rt[j + 1].corr == ref[k].corr))) j++;
    if (j < c->nrt && c->rt[j].corr == ref[k].corr) attach_launch(c, &c->g[ref[k].row], &c->rt[j]);
  }
  free(ref);
}

/* Joins the GPU rows to their launches, then drops the runtime table (the largest structure
 * after the GPU rows) and sorts the GPU rows by start. */
static void join_and_sort(col *c) {
  join_launches(c);
  free(c->rt);
  c->rt = NULL;
  c->caprt = 0;
  if (c->ng) pd_sort_inline(c->g, c->ng, sizeof *c->g, gev_cmp);
  for (size_t i = 0; i < c->ng; i++) /* in start order, as the busy-time union needs */
    if (c->g[i].aux != AUX_NONE && trr_names_class(&c->nm, c->g[i].name) != TR_COMM)
      tr_ops_kernel(c->ops, c->g[i].aux, c->g[i].ts, c->g[i].end, names_tf32(&c->nm, c->g[i].name));
}

/* ---- per-step decomposition and cross-rank facts ---- */

static bool coll_is(const col *c, const gev *g, const char *what) {
  if (g->aux == AUX_NONE || c->ci[g->aux].coll == NO_ID) return false;
  return !strcmp(c->nm.in.str[c->ci[g->aux].coll], what);
}

static bool is_p2p(const col *c, const gev *g) {
  if (g->aux != AUX_NONE && c->ci[g->aux].coll != NO_ID) {
    const char *n = c->nm.in.str[c->ci[g->aux].coll];
    return !strcmp(n, "send") || !strcmp(n, "recv") || !strcmp(n, "sendrecv") ||
           !strcmp(n, "batch_isend_irecv");
  }
  const char *k = c->nm.in.str[g->name];
  return strstr(k, "SendRecv") || strstr(k, "_Send") || strstr(k, "_Recv");
}

static int step_cmp(const void *pa, const void *pb) {
  const steprow *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

/* Index of the window containing t (trace clock), or -1. Windows are sorted by start. */
static long window_of(const steprow *w, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (w[mid].ts <= t) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return -1;
  return t < w[lo - 1].end ? (long)lo - 1 : -1;
}

typedef struct {
  int64_t ts, end;
  size_t idx;
} commref;

static int commref_cmp(const void *pa, const void *pb) {
  const commref *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->idx > b->idx) - (a->idx < b->idx);
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* The key under which every rank records the same collective instance: Comms Id, else
 * (process group, Seq), else (group, collective, size, ordinal on this rank). */
static char *coll_key(col *c, const gev *g, uint32_t **ord, size_t *nord) {
  const cinfo *ci = g->aux != AUX_NONE ? &c->ci[g->aux] : NULL;
  if (ci && ci->comms_id != NO_ID) return pd_xasprintf("id:%s", c->nm.in.str[ci->comms_id]);
  if (ci && ci->pg != NO_ID && ci->seq >= 0)
    return pd_xasprintf("pg:%s#%lld", c->nm.in.str[ci->pg], (long long)ci->seq);
  const char *grp = ci && ci->pg_ranks != NO_ID ? c->nm.in.str[ci->pg_ranks]
                    : ci && ci->pg != NO_ID     ? c->nm.in.str[ci->pg]
                                                : "";
  const char *what = ci && ci->coll != NO_ID ? c->nm.in.str[ci->coll] : c->nm.in.str[g->name];
  char *prefix = pd_xasprintf("ord:%s|%s|%lld", grp, what, (long long)(ci ? ci->nelems : -1));
  uint32_t id = trr_names_intern(&c->nm, prefix);
  if (id >= *nord) {
    size_t n = (size_t)id + 64;
    *ord = pd_xrealloc(*ord, n * sizeof **ord);
    memset(*ord + *nord, 0, (n - *nord) * sizeof **ord);
    *nord = n;
  }
  char *key = pd_xasprintf("%s|%u", prefix, (*ord)[id]++);
  free(prefix);
  return key;
}

/* The exclusive decomposition of the GPU timeline: compute > exposed comm > exposed memory >
 * other GPU work, and idle split into collective wait > launch-bound > data supply. */
typedef struct {
  tr_ivs all, comp, comm, mem, exp_comm, exp_mem, other, coll_idle, launch_idle;
} step_sets;

static void step_sets_build(col *c, step_sets *t) {
  tr_ivs pend_any = {0}, pend_comm = {0};
  int64_t cm_all = INT64_MIN, cm_comp = INT64_MIN, cm_comm = INT64_MIN, cm_mem = INT64_MIN;
  for (size_t i = 0; i < c->ng; i++) { /* sorted by start: merge as we go */
    const gev *g = &c->g[i];
    int cls = trr_names_class(&c->nm, g->name);
    trr_merge_in_order(&t->all, &cm_all, g->ts, g->end);
    if (cls == TR_COMP) trr_merge_in_order(&t->comp, &cm_comp, g->ts, g->end);
    else if (cls == TR_COMM) trr_merge_in_order(&t->comm, &cm_comm, g->ts, g->end);
    else if (cls == TR_MEM) trr_merge_in_order(&t->mem, &cm_mem, g->ts, g->end);
    int64_t rt_end = g->link + (int64_t)g->rt_dur;
    if (g->has_rt && g->ts > rt_end) { /* launched, not started: the GPU waits on something */
      tr_ivs_push(&pend_any, rt_end, g->ts);
      if (cls == TR_COMM) tr_ivs_push(&pend_comm, rt_end, g->ts);
    }
  }
  tr_ivs *sets[] = {&pend_any, &pend_comm, &c->hostcoll};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) tr_ivs_merge(sets[i]);
  tr_ivs_merge(&c->host);
  tr_ivs_bridge(&c->host, HOST_BRIDGE_NS);
  tr_ivs cc = {0}, ccm = {0}, coll_src = {0}, launch_src = {0}, launch_tmp = {0};
  tr_ivs_union(&t->comp, &t->comm, &cc);
  tr_ivs_subtract(&t->comm, &t->comp, &t->exp_comm);
  tr_ivs_union(&cc, &t->mem, &ccm);
  tr_ivs_subtract(&t->mem, &cc, &t->exp_mem);
  tr_ivs_subtract(&t->all, &ccm, &t->other);
  tr_ivs_union(&pend_comm, &c->hostcoll, &coll_src);
  tr_ivs_subtract(&coll_src, &t->all, &t->coll_idle);
  tr_ivs_union(&pend_any, &c->host, &launch_src);
  tr_ivs_subtract(&launch_src, &t->all, &launch_tmp);
  tr_ivs_subtract(&launch_tmp, &t->coll_idle, &t->launch_idle);
  tr_ivs *tmp[] = {&pend_any, &pend_comm, &cc, &ccm, &coll_src, &launch_src, &launch_tmp};
  for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) tr_ivs_free(tmp[i]);
}

static void step_sets_free(step_sets *t) {
  tr_ivs *all[] = {&t->all, &t->comp, &t->comm, &t->mem, &t->exp_comm, &t->exp_mem, &t->other,
                   &t->coll_idle, &t->launch_idle};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tr_ivs_free(all[i]);
}

/* Windows: the CPU-side ProfilerStep spans, one per step number (the whole trace without). */
static steprow *step_windows(col *c, size_t *nw_out) {
  steprow *w = pd_xmalloc((c->nst + 1) * sizeof *w);
  size_t nw = 0;
  for (size_t i = 0; i < c->nst; i++)
    if (c->st[i].user_annotation) w[nw++] = c->st[i];
  qsort(w, nw, sizeof *w, step_cmp);
  size_t k = 0;
  for (size_t i = 0; i < nw; i++) {
    bool dup = false;
    for (size_t j = 0; j < k; j++) dup |= w[j].n == w[i].n;
    if (!dup) w[k++] = w[i];
  }
  nw = k;
  if (nw == 0 && c->any_time) w[nw++] = (steprow){-1, c->tmin, c->tmax, true, 4};
  *nw_out = nw;
  return w;
}

static void step_fill(tr_step *s, const steprow *w, const step_sets *t, int64_t base) {
  int64_t b = w->ts, e = w->end;
  s->step = w->n;
  s->b = b + base;
  s->e = e + base;
  int64_t win = e - b, busy = tr_ivs_len_in(&t->all, b, e);
  s->window_us = us(win);
  s->compute_us = us(tr_ivs_len_in(&t->comp, b, e));
  s->exposed_comm_us = us(tr_ivs_len_in(&t->exp_comm, b, e));
  s->exposed_mem_us = us(tr_ivs_len_in(&t->exp_mem, b, e));
  s->other_gpu_us = us(tr_ivs_len_in(&t->other, b, e));
  int64_t ic = tr_ivs_len_in(&t->coll_idle, b, e), il = tr_ivs_len_in(&t->launch_idle, b, e);
  s->idle_collective_us = us(ic);
  s->idle_launch_us = us(il);
  s->idle_data_us = us(win - busy - ic - il);
  s->comm_us = us(tr_ivs_len_in(&t->comm, b, e));
}

/* Comm kernels in time order: P2P counts and the steps' last P2P kernel, the collective
 * instances, and the P2P time with no compute running (into p2p_x). */
static void step_comms(col *c, const commref *cr, size_t ncr, const steprow *w, size_t nw,
                       int64_t *last_p2p, const tr_ivs *comp, tr_ivs *p2p_x) {
  tr_rank *r = c->out;
  int64_t base = r->has_base ? r->base_ns : 0;
  uint32_t *ord = NULL;
  size_t nord = 0, capcoll = 0;
  tr_ivs p2p = {0};
  int64_t cm_p2p = INT64_MIN;
  for (size_t i = 0; i < ncr; i++) {
    const gev *g = &c->g[cr[i].idx];
    long wi = window_of(w, nw, g->ts);
    if (is_p2p(c, g)) {
      r->p2p_kernels++;
      trr_merge_in_order(&p2p, &cm_p2p, g->ts, g->end);
      if (wi >= 0) {
        r->steps[wi].p2p_kernels++;
        if (coll_is(c, g, "send")) r->steps[wi].p2p_sends++;
        if (g->end > last_p2p[wi]) last_p2p[wi] = g->end;
      }
      continue;
    }
    tr_coll *co = PD_PUSH(r->colls, r->n_colls, capcoll);
    co->key = coll_key(c, g, &ord, &nord);
    const cinfo *ci = g->aux != AUX_NONE ? &c->ci[g->aux] : NULL;
    co->what = pd_xstrdup(ci && ci->coll != NO_ID ? c->nm.in.str[ci->coll] : c->nm.in.str[g->name]);
    co->bytes = ci && ci->coll != NO_ID && ci->dtype != NO_ID
                    ? tr_bw_bytes(co->what, ci->nelems, ci->out_nelems, c->nm.in.str[ci->dtype])
                    : -1;
    co->group = ci ? ci->group : -1;
    co->step = wi >= 0 ? w[wi].n : -1;
    co->b = g->ts + base;
    co->e = g->end + base;
  }
  free(ord);
  tr_ivs_subtract(&p2p, comp, p2p_x);
  tr_ivs_free(&p2p);
}

/* Pipeline phase of each step: first compute kernel to the first non-P2P collective after the
 * step's last P2P kernel (or the last compute kernel). */
static void step_phases(col *c, const commref *cr, size_t ncr, const steprow *w, size_t nw,
                        const int64_t *last_p2p, const tr_ivs *comp, const tr_ivs *p2p_x) {
  tr_rank *r = c->out;
  int64_t base = r->has_base ? r->base_ns : 0;
  int64_t *after = pd_xmalloc((nw + 1) * sizeof *after);
  for (size_t i = 0; i < nw; i++) after[i] = INT64_MIN;
  for (size_t i = 0; i < ncr; i++) {
    const gev *g = &c->g[cr[i].idx];
    long wi = window_of(w, nw, g->ts);
    if (wi < 0 || last_p2p[wi] == INT64_MIN || is_p2p(c, g)) continue;
    if (g->ts >= last_p2p[wi] && after[wi] == INT64_MIN) after[wi] = g->ts;
  }
  for (size_t i = 0; i < nw; i++) {
    tr_step *s = &r->steps[i];
    int64_t b = w[i].ts, e = w[i].end, fb = INT64_MIN, le = INT64_MIN;
    for (size_t j = 0; j < comp->n; j++) { /* comp is sorted; stop once past the window */
      if (comp->v[j].b >= e) break;
      if (comp->v[j].e <= b) continue;
      if (fb == INT64_MIN) fb = comp->v[j].b > b ? comp->v[j].b : b;
      le = comp->v[j].e < e ? comp->v[j].e : e;
    }
    if (fb == INT64_MIN) continue;
    int64_t pe = after[i] != INT64_MIN ? after[i] : le;
    if (pe < fb) pe = fb;
    s->has_phase = true;
    s->phase_b = fb + base;
    s->phase_e = pe + base;
    s->phase_busy_us = us(tr_ivs_len_in(comp, fb, pe));
    s->phase_p2p_us = us(tr_ivs_len_in(p2p_x, fb, pe));
  }
  free(after);
}

static void analyze_steps(col *c) {
  tr_rank *r = c->out;
  int64_t base = r->has_base ? r->base_ns : 0;
  step_sets t = {0};
  step_sets_build(c, &t);
  size_t nw;
  steprow *w = step_windows(c, &nw);
  r->steps = pd_xcalloc(nw + 1, sizeof *r->steps);
  r->n_steps = nw;
  for (size_t i = 0; i < nw; i++) step_fill(&r->steps[i], &w[i], &t, base);
  commref *cr = pd_xmalloc((c->ng + 1) * sizeof *cr);
  size_t ncr = 0;
  for (size_t i = 0; i < c->ng; i++)
    if (trr_names_class(&c->nm, c->g[i].name) == TR_COMM) cr[ncr++] = (commref){c->g[i].ts, c->g[i].end, i};
  qsort(cr, ncr, sizeof *cr, commref_cmp);
  for (size_t i = 0; i < c->ng; i++) {
    long wi = window_of(w, nw, c->g[i].ts);
    if (wi >= 0) r->steps[wi].n_kernels++;
  }
  int64_t *last_p2p = pd_xmalloc((nw + 1) * sizeof *last_p2p);
  for (size_t i = 0; i < nw; i++) last_p2p[i] = INT64_MIN;
  tr_ivs p2p_x = {0};
  step_comms(c, cr, ncr, w, nw, last_p2p, &t.comp, &p2p_x);
  step_phases(c, cr, ncr, w, nw, last_p2p, &t.comp, &p2p_x);
  tr_ivs_free(&p2p_x);
  free(last_p2p);
  free(cr);
  free(w);
  step_sets_free(&t);
}

static void col_free(col *c) {
  names_free(&c->nm);
  free(c->g);
  free(c->rt);
  free(c->ci);
  free(c->st);
  tr_ivs_free(&c->host);
  tr_ivs_free(&c->hostcoll);
  free(c->scratch[0]);
  free(c->scratch[1]);
  pd_map_free(&c->threads);
  for (size_t i = 0; i < c->nprops; i++) free(c->props[i].name);
  free(c->props);
  if (c->ops) { /* not finished: an error path */
    tr_ops discard;
    tr_ops_finish(c->ops, NULL, 0, NULL, &discard);
    tr_ops_free(&discard);
  }
  if (c->mem) {
    tr_memory discard;
    tr_mem_finish(c->mem, NULL, 0, &discard);
    tr_memory_free(&discard);
  }
}

/* ---- the device, GPU memory and FLOPs ---- */

/* The rank's device: the one its memory events or GPU rows name, in deviceProperties. */
static void find_device(col *c, const tr_rank_opts *opts) {
  tr_rank *r = c->out;
  int id = r->memory.measured ? r->memory.device_id : c->device;
  const devprop *p = NULL;
  for (size_t i = 0; i < c->nprops && !p; i++)
    if (c->props[i].id == id) p = &c->props[i];
  if (!p && c->nprops && id < 0) p = &c->props[0]; /* one rank, one device: Kineto lists all */
  r->device_id = p ? p->id : id;
  r->device_name = p ? pd_xstrdup(p->name) : NULL;
  r->device_total = p ? p->total : -1;
  r->node_devices = (int)c->nprops;
  if (opts->gpu) {
    r->device = pd_device_find(opts->gpu, NULL);
    r->device_from_option = r->device != NULL;
  }
  if (!r->device && p) r->device = tr_flops_device(p->name, p->total);
}

static void analyze_efficiency(col *c, const tr_rank_opts *opts) {
  tr_rank *r = c->out;
  size_t nw;
  steprow *sw = step_windows(c, &nw);
  tr_mem_win *w = pd_xmalloc((nw + 1) * sizeof *w);
  for (size_t i = 0; i < nw; i++) w[i] = (tr_mem_win){sw[i].n, sw[i].ts, sw[i].end};
  free(sw);
  tr_mem_finish(c->mem, w, nw, &r->memory);
  c->mem = NULL;
  r->mem_at_step = -1;
  if (r->memory.measured) {
    long wi = tr_mem_win_at(w, nw, r->memory.at_ns);
    if (wi >= 0) r->mem_at_step = w[wi].step;
    r->mem_at_op = tr_ops_host_at(c->ops, r->memory.at_tid, r->memory.at_ns);
    if (!r->mem_at_op)
      r->mem_at_op_why = tr_ops_host_kept(c->ops) ? TR_AT_OP_NO_SPAN
                         : c->host_off_by_header ? TR_AT_OP_HEADER
                                                 : TR_AT_OP_NOT_KEPT;
  }
  find_device(c, opts);
  tr_ops_finish(c->ops, w, nw, r->device, &r->ops);
  c->ops = NULL;
  free(w);
}


tr_rank *tr_rank_analyze(const char *path, const tr_rank_opts *opts) {
  static const tr_rank_opts defaults = {false, NULL, 0};
  if (!opts) opts = &defaults;
  tr_rank *r = pd_xcalloc(1, sizeof *r);
  r->file = pd_xstrdup(path);
  r->world_size = -1;
  r->rank_source = "default";
  r->hta.overlap_pct = NAN;
  tr_parse_file_name(path, &r->name_rank, &r->dp, &r->tp, &r->pp);
  struct stat sb;
  if (stat(path, &sb) == 0) r->file_bytes = (uint64_t)sb.st_size;
  r->device_id = -1;
  r->device_total = -1;
  r->mem_at_step = -1;
  col c = {.out = r, .host_compact_at = 65536, .device = -1, .ops = tr_ops_new(), .mem = tr_mem_new()};
  static const char *const header_keys[] = {"distributedInfo", "baseTimeNanoseconds", "deviceProperties",
                                            "profile_memory",  "record_shapes",       "with_stack",
                                            "with_flops",      "with_modules",        NULL};
  tr_read_sink sink = {on_event, on_header, &c, header_keys};
  tr_read_stats st;
  char *err = NULL;
  bool ok = tr_read_file(path, &sink, &st, opts->lang, &err);
  r->json_bytes = st.json_bytes;
  r->n_events = st.events;
  r->gzip = st.gzip;
  r->array_form = st.array_form;
  if (!ok) {
    r->err = err;
    col_free(&c);
    return r;
  }
  if (!c.any_time) { /* e.g. Relax's timeline_step_N.json: Chrome events without categories */
    r->err = TR_SAID_IN(opts->lang, TM_ERR_NOT_PYTORCH, PD_MS(path), PD_MI(st.events), PD_MI(st.json_bytes));
    col_free(&c);
    return r;
  }
  if (strcmp(r->rank_source, "distributedInfo") != 0 && r->name_rank >= 0) {
    r->rank = r->name_rank;
    r->rank_source = "file name";
  }
  r->has_memory_events = c.has_memory;
  r->n_gpu_rows = (long)c.ng;
  r->n_runtime_rows = (long)c.nrt;
  int64_t base = r->has_base ? r->base_ns : 0;
  r->t_begin = c.tmin + base;
  r->t_end = c.tmax + base;
  tr_ops_index(c.ops);
  join_and_sort(&c);
  r->n_steps_seen = (long)c.nst;
  size_t caps = 0;
  for (size_t i = 0; i < c.ng; i++) {
    bool seen = false;
    for (size_t j = 0; j < r->n_streams && !seen; j++) seen = r->streams[j] == c.g[i].stream;
    if (!seen) *PD_PUSH(r->streams, r->n_streams, caps) = (long)c.g[i].stream;
  }
  if (r->n_streams) qsort(r->streams, r->n_streams, sizeof *r->streams, trr_long_cmp);
  trr_analyze_hta(&c, opts);
  analyze_steps(&c);
  analyze_efficiency(&c, opts);
  col_free(&c);
  return r;
}

void tr_rank_free(tr_rank *r) {
  if (!r) return;
  free(r->file);
  free(r->streams);
  free(r->hta.iterations);
  free(r->hta.idle);
  for (size_t i = 0; i < r->hta.n_kernel_stats; i++) free(r->hta.kernels[i].name);
  free(r->hta.kernels);
  free(r->steps);
  for (size_t i = 0; i < r->n_colls; i++) {
    free(r->colls[i].key);
    free(r->colls[i].what);
  }
  free(r->colls);
  free(r->device_name);
  tr_memory_free(&r->memory);
  free(r->mem_at_op);
  tr_ops_free(&r->ops);
  free(r->err);
  free(r);
}
