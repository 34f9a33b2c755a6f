#include "trace/partial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define PARTIAL_FORMAT 1

/* Every field of each struct, by kind: I integer, D double, B bool, S owned string. The save and
 * load sides expand the same lists, so a field added to a list is carried both ways. */
#define RANK_FIELDS(I, D, B, S)                                                                  \
  I(file_bytes) I(json_bytes) I(n_events) I(rank) I(world_size) I(name_rank) I(dp) I(tp) I(pp)   \
  I(base_ns) I(n_gpu_rows) I(n_runtime_rows) I(n_steps_seen) I(p2p_kernels) I(t_begin) I(t_end) \
  I(device_id) I(device_total) I(node_devices) I(mem_at_step) B(gzip) B(array_form) B(has_base) \
  B(has_memory_events) B(device_from_option) B(shapes) S(file) S(device_name) S(mem_at_op) S(err)
#define HTA_FIELDS(I, D, B, S)                                                                   \
  B(filtered) B(rounded) I(dropped_step) I(n_kernels) I(neg_rows) I(launch_n)                    \
  I(launch_delay_over_100) I(launch_cpu_over_50) I(launch_gpu_shorter) D(kernel_time_us)         \
  D(idle_us) D(compute_us) D(non_compute_us) D(neg_us) D(non_compute_exact_us) D(comm_us)        \
  D(overlap_us) D(overlap_pct) D(launch_median_delay_us) D(launch_mean_delay_us)
#define IDLE_FIELDS(I, D, B, S) I(stream) D(host_wait_us) D(kernel_wait_us) D(other_us)
#define KSTAT_FIELDS(I, D, B, S) S(name) I(cls) I(count) D(sum_us) D(min_us) D(max_us) D(mean_us) D(std_us)
#define STEP_FIELDS(I, D, B, S)                                                                  \
  I(step) I(b) I(e) I(n_kernels) I(phase_b) I(phase_e) I(p2p_kernels) I(p2p_sends) D(window_us)  \
  D(compute_us) D(exposed_comm_us) D(exposed_mem_us) D(other_gpu_us) D(idle_collective_us)       \
  D(idle_launch_us) D(idle_data_us) D(comm_us) D(phase_busy_us) D(phase_p2p_us) B(has_phase)
#define COLL_FIELDS(I, D, B, S) S(key) S(what) I(step) I(b) I(e) I(bytes) I(group)
#define MEM_FIELDS(I, D, B, S)                                                                   \
  B(measured) B(steps_exact) I(device_type) I(device_id) I(gpu_devices) I(samples)              \
  I(peak_alloc) I(peak_reserved) I(at_ns) I(at_tid)
#define MEMSTEP_FIELDS(I, D, B, S) I(step) I(peak_alloc) I(peak_reserved)
#define OPS_FIELDS(I, D, B, S) I(calls) I(timed) I(dropped) D(flops) D(kernel_us) D(profiler_flops)
#define OPROW_FIELDS(I, D, B, S) S(name) I(calls) I(timed) D(kernel_us)
#define FL_FIELDS(I, D, B, S) I(kind) I(b) I(m) I(n) I(k) I(heads) I(heads_kv) B(causal) B(backward) D(flops)
#define OPSTEP_FIELDS(I, D, B, S) I(step) D(flops) D(ideal_us) D(flops_no_peak) D(kernel_us)

/* ---- saving ---- */

static json_t *dbl(double v) { return isfinite(v) ? json_real(v) : json_null(); }
static json_t *str(const char *s) { return s ? json_string(s) : json_null(); }

#define SV_I(f) json_object_set_new(o, #f, json_integer((json_int_t)x->f));
#define SV_D(f) json_object_set_new(o, #f, dbl(x->f));
#define SV_B(f) json_object_set_new(o, #f, json_boolean(x->f));
#define SV_S(f) json_object_set_new(o, #f, str(x->f));
#define SAVER(name, type, LIST)                                                                  \
  static json_t *name(const type *x) {                                                          \
    json_t *o = json_object();                                                                  \
    LIST(SV_I, SV_D, SV_B, SV_S)                                                                \
    return o;                                                                                   \
  }
SAVER(sv_idle, tr_idle_stream, IDLE_FIELDS)
SAVER(sv_kstat, tr_kernel_stat, KSTAT_FIELDS)
SAVER(sv_step, tr_step, STEP_FIELDS)
SAVER(sv_coll, tr_coll, COLL_FIELDS)
SAVER(sv_memstep, tr_mem_step, MEMSTEP_FIELDS)
SAVER(sv_opstep, tr_op_step, OPSTEP_FIELDS)
SAVER(sv_fl_scalars, tr_fl, FL_FIELDS)

static json_t *sv_oprow(const tr_op_row *x) {
  json_t *o = json_object();
  OPROW_FIELDS(SV_I, SV_D, SV_B, SV_S)
  json_t *m = sv_fl_scalars(&x->model);
  json_object_set_new(m, "dtype", json_string(x->model.dtype));
  json_object_set_new(o, "model", m);
  return o;
}

#define SV_ARRAY(o, key, base, n, fn)                                                            \
  do {                                                                                          \
    json_t *a_ = json_array();                                                                  \
    for (size_t i_ = 0; i_ < (n); i_++) json_array_append_new(a_, fn(&(base)[i_]));              \
    json_object_set_new(o, key, a_);                                                            \
  } while (0)

static json_t *sv_long(const long *v) { return json_integer(*v); }
static json_t *sv_double(const double *v) { return dbl(*v); }

static json_t *sv_hta(const tr_hta *x) {
  json_t *o = json_object();
  HTA_FIELDS(SV_I, SV_D, SV_B, SV_S)
  SV_ARRAY(o, "type_us", x->type_us, 8, sv_double);
  SV_ARRAY(o, "iterations", x->iterations, x->n_iterations, sv_long);
  SV_ARRAY(o, "idle", x->idle, x->n_idle, sv_idle);
  SV_ARRAY(o, "kernels", x->kernels, x->n_kernel_stats, sv_kstat);
  return o;
}

static json_t *sv_memory(const tr_memory *x) {
  json_t *o = json_object();
  MEM_FIELDS(SV_I, SV_D, SV_B, SV_S)
  SV_ARRAY(o, "steps", x->steps, x->n_steps, sv_memstep);
  return o;
}

static json_t *sv_ops(const tr_ops *x) {
  json_t *o = json_object();
  OPS_FIELDS(SV_I, SV_D, SV_B, SV_S)
  SV_ARRAY(o, "rows", x->rows, x->n_rows, sv_oprow);
  SV_ARRAY(o, "steps", x->steps, x->n_steps, sv_opstep);
  return o;
}

json_t *tr_partial_json(const tr_rank *x, const tr_rank_opts *opts) {
  json_t *o = json_object();
  RANK_FIELDS(SV_I, SV_D, SV_B, SV_S)
  json_object_set_new(o, "rank_source", str(x->rank_source));
  json_object_set_new(o, "mem_at_op_why", str(x->mem_at_op_why));
  json_object_set_new(o, "device", x->device ? json_string(x->device->id) : json_null());
  SV_ARRAY(o, "streams", x->streams, x->n_streams, sv_long);
  json_object_set_new(o, "hta", sv_hta(&x->hta));
  SV_ARRAY(o, "steps", x->steps, x->n_steps, sv_step);
  SV_ARRAY(o, "colls", x->colls, x->n_colls, sv_coll);
  json_object_set_new(o, "memory", sv_memory(&x->memory));
  json_object_set_new(o, "ops", sv_ops(&x->ops));
  return json_pack("{s:i, s:{s:b, s:o}, s:o}", "perf_doctor_partial", PARTIAL_FORMAT, "options", "include_last",
                   opts && opts->include_last, "gpu", opts && opts->gpu ? json_string(opts->gpu) : json_null(),
                   "rank", o);
}

/* ---- loading ---- */

typedef struct {
  char *err; /* the first problem: a field missing or of the wrong type */
} ld;

static const json_t *field(ld *l, const json_t *o, const char *k, json_type type) {
  const json_t *v = json_object_get(o, k);
  if (!v || (json_typeof(v) != type && !(type == JSON_REAL && (json_is_integer(v) || json_is_null(v))) &&
             !(type == JSON_TRUE && json_is_boolean(v)) && !(type == JSON_STRING && json_is_null(v)))) {
    if (!l->err) l->err = pd_xasprintf("field \"%s\" is missing or not a %s", k,
                                       type == JSON_INTEGER ? "integer" : type == JSON_REAL ? "number"
                                       : type == JSON_TRUE ? "boolean" : type == JSON_STRING ? "string" : "value");
    return NULL;
  }
  return v;
}
static json_int_t gi(ld *l, const json_t *o, const char *k) {
  const json_t *v = field(l, o, k, JSON_INTEGER);
  return v ? json_integer_value(v) : 0;
}
static double gd(ld *l, const json_t *o, const char *k) {
  const json_t *v = field(l, o, k, JSON_REAL);
  return v && !json_is_null(v) ? json_number_value(v) : NAN;
}
static bool gb(ld *l, const json_t *o, const char *k) { return json_is_true(field(l, o, k, JSON_TRUE)); }
static char *gs(ld *l, const json_t *o, const char *k) {
  const json_t *v = field(l, o, k, JSON_STRING);
  return json_is_string(v) ? pd_xstrdup(json_string_value(v)) : NULL;
}

#define LD_I(f) x->f = gi(l, o, #f);
#define LD_D(f) x->f = gd(l, o, #f);
#define LD_B(f) x->f = gb(l, o, #f);
#define LD_S(f) x->f = gs(l, o, #f);
#define LOADER(name, type, LIST)                                                                 \
  static void name(ld *l, const json_t *o, type *x) { LIST(LD_I, LD_D, LD_B, LD_S) }
LOADER(ld_idle, tr_idle_stream, IDLE_FIELDS)
LOADER(ld_kstat, tr_kernel_stat, KSTAT_FIELDS)
LOADER(ld_step, tr_step, STEP_FIELDS)
LOADER(ld_coll, tr_coll, COLL_FIELDS)
LOADER(ld_memstep, tr_mem_step, MEMSTEP_FIELDS)
LOADER(ld_opstep, tr_op_step, OPSTEP_FIELDS)
LOADER(ld_fl_scalars, tr_fl, FL_FIELDS)

static void ld_oprow(ld *l, const json_t *o, tr_op_row *x) {
  OPROW_FIELDS(LD_I, LD_D, LD_B, LD_S)
  const json_t *m = json_object_get(o, "model");
  ld_fl_scalars(l, m, &x->model);
  const char *dt = json_string_value(json_object_get(m, "dtype"));
  snprintf(x->model.dtype, sizeof x->model.dtype, "%s", dt ? dt : "");
}
static void ld_long(ld *l, const json_t *v, long *x) {
  if (!json_is_integer(v) && !l->err) l->err = pd_xstrdup("an array of integers holds something else");
  *x = json_is_integer(v) ? (long)json_integer_value(v) : 0;
}
static void ld_double(ld *l, const json_t *v, double *x) {
  (void)l;
  *x = json_is_number(v) ? json_number_value(v) : NAN;
}

/* Allocates *base (calloc: a failure half-way leaves zeroed, freeable items) and loads each. */
#define LD_ARRAY(l, o, key, base, n, fn)                                                         \
  do {                                                                                          \
    const json_t *a_ = json_object_get(o, key);                                                 \
    if (!json_is_array(a_)) {                                                                   \
      if (!(l)->err) (l)->err = pd_xasprintf("field \"%s\" is missing or not an array", key);    \
      break;                                                                                    \
    }                                                                                           \
    (n) = json_array_size(a_);                                                                  \
    (base) = (n) ? pd_xcalloc((n), sizeof *(base)) : NULL;                                      \
    for (size_t i_ = 0; i_ < (n); i_++) fn(l, json_array_get(a_, i_), &(base)[i_]);              \
  } while (0)

static void ld_hta(ld *l, const json_t *o, tr_hta *x) {
  HTA_FIELDS(LD_I, LD_D, LD_B, LD_S)
  const json_t *t = json_object_get(o, "type_us");
  for (size_t i = 0; i < 8; i++) ld_double(l, json_array_get(t, i), &x->type_us[i]);
  LD_ARRAY(l, o, "iterations", x->iterations, x->n_iterations, ld_long);
  LD_ARRAY(l, o, "idle", x->idle, x->n_idle, ld_idle);
  LD_ARRAY(l, o, "kernels", x->kernels, x->n_kernel_stats, ld_kstat);
}

static void ld_memory(ld *l, const json_t *o, tr_memory *x) {
  MEM_FIELDS(LD_I, LD_D, LD_B, LD_S)
  LD_ARRAY(l, o, "steps", x->steps, x->n_steps, ld_memstep);
}

static void ld_ops(ld *l, const json_t *o, tr_ops *x) {
  OPS_FIELDS(LD_I, LD_D, LD_B, LD_S)
  LD_ARRAY(l, o, "rows", x->rows, x->n_rows, ld_oprow);
  LD_ARRAY(l, o, "steps", x->steps, x->n_steps, ld_opstep);
}

/* The static texts a rank points at, matched back. */
static const char *static_text(const char *s, const char *const *known) {
  for (; s && *known; known++)
    if (!strcmp(s, *known)) return *known;
  return NULL;
}

static void ld_rank(ld *l, const json_t *o, tr_rank *x) {
  RANK_FIELDS(LD_I, LD_D, LD_B, LD_S)
  static const char *const sources[] = {"distributedInfo", "file name", "default", NULL};
  static const char *const whys[] = {TR_AT_OP_NO_SPAN, TR_AT_OP_NOT_KEPT, TR_AT_OP_HEADER, NULL};
  x->rank_source = static_text(json_string_value(json_object_get(o, "rank_source")), sources);
  if (!x->rank_source) x->rank_source = "default";
  x->mem_at_op_why = static_text(json_string_value(json_object_get(o, "mem_at_op_why")), whys);
  const char *dev = json_string_value(json_object_get(o, "device"));
  x->device = dev ? pd_device_find(dev, NULL) : NULL;
  LD_ARRAY(l, o, "streams", x->streams, x->n_streams, ld_long);
  ld_hta(l, json_object_get(o, "hta"), &x->hta);
  LD_ARRAY(l, o, "steps", x->steps, x->n_steps, ld_step);
  LD_ARRAY(l, o, "colls", x->colls, x->n_colls, ld_coll);
  ld_memory(l, json_object_get(o, "memory"), &x->memory);
  ld_ops(l, json_object_get(o, "ops"), &x->ops);
}

tr_rank *tr_partial_load(const json_t *doc, tr_rank_opts *opts, char **err) {
  *err = NULL;
  if (!json_is_object(doc) || json_integer_value(json_object_get(doc, "perf_doctor_partial")) != PARTIAL_FORMAT ||
      !json_is_object(json_object_get(doc, "rank"))) {
    *err = pd_xstrdup("not a perf-doctor partial (made by `perf-doctor trace --partial FILE`)");
    return NULL;
  }
  const json_t *op = json_object_get(doc, "options");
  opts->include_last = json_is_true(json_object_get(op, "include_last"));
  opts->gpu = json_string_value(json_object_get(op, "gpu"));
  ld l = {NULL};
  tr_rank *r = pd_xcalloc(1, sizeof *r);
  const json_t *o = json_object_get(doc, "rank");
  ld_rank(&l, o, r);
  /* the per-step arrays are one per step window: a partial that says otherwise was edited */
  if (!l.err && (r->memory.n_steps > r->n_steps || r->ops.n_steps > r->n_steps))
    l.err = pd_xstrdup("inconsistent partial: more memory or op steps than steps");
  if (l.err) {
    *err = l.err;
    tr_rank_free(r);
    return NULL;
  }
  return r;
}
