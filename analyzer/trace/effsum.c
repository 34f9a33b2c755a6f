#include "trace/effsum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/bw.h"
#include "trace/flops.h"
#include "trace/kname.h"
#include "trace/ktab.h"
#include "base/path.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MD_OPS 8   /* rows of the ops table; the JSON has every one */
#define MD_BW 10   /* rows of the bandwidth table */

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0; }

static json_t *jn(double x) {
  if (isnan(x) || isinf(x)) return json_null();
  double r = round(x * 1000.0) / 1000.0;
  if (r == floor(r) && fabs(r) < 9e15) return json_integer((json_int_t)r);
  return json_real(r);
}

static json_t *jbytes(int64_t b) { return b >= 0 ? json_integer((json_int_t)b) : json_null(); }

/* ---- per-rank totals over the step windows ---- */

typedef struct {
  double window_us, compute_us;
  double flops, ideal_us, no_peak, kernel_us;
} totals;

static totals rank_totals(const tr_rank *r) {
  totals t = {0};
  for (size_t i = 0; i < r->n_steps; i++) {
    t.window_us += r->steps[i].window_us;
    t.compute_us += r->steps[i].compute_us;
  }
  for (size_t i = 0; i < r->ops.n_steps; i++) {
    const tr_op_step *s = &r->ops.steps[i];
    t.flops += s->flops;
    t.ideal_us += s->ideal_us;
    t.no_peak += s->flops_no_peak;
    t.kernel_us += s->kernel_us;
  }
  return t;
}

/* MFU of a step (or of all steps): the time the modelled work would take at the device's peak
 * over the window. NAN when no FLOP had a known peak. */
static double mfu_pct(double ideal_us, double flops, double no_peak, double window_us) {
  if (flops <= 0 || no_peak >= flops || window_us <= 0) return NAN;
  return 100.0 * ideal_us / window_us;
}

static const char *device_kind(int type) { return type == 6 ? "HIP" : type == 1 ? "CUDA" : "GPU"; }

/* ---- JSON ---- */

static json_t *device_json(const tr_rank *r) {
  json_t *o = json_object();
  json_object_set_new(o, "name", r->device_name ? json_string(r->device_name) : json_null());
  json_object_set_new(o, "id", r->device_id >= 0 ? json_integer(r->device_id) : json_null());
  json_object_set_new(o, "total_bytes", jbytes(r->device_total));
  json_object_set_new(o, "table_entry", r->device ? json_string(r->device->display) : json_null());
  json_object_set_new(o, "from", json_string(r->device_from_option ? "--gpu" : r->device ? "deviceProperties" : "unknown"));
  json_t *pk = json_object();
  const char *dt[] = {"bf16", "fp16", "fp8", "fp32"};
  for (size_t i = 0; i < sizeof dt / sizeof *dt; i++) json_object_set_new(pk, dt[i], jn(tr_flops_peak(r->device, dt[i])));
  json_object_set_new(o, "peak_tflops", pk);
  json_object_set_new(o, "link", r->device && r->device->link ? json_string(r->device->link) : json_null());
  json_object_set_new(o, "link_gbps", jn(r->device ? r->device->link_gbps : NAN));
  json_object_set_new(o, "node_devices", r->node_devices ? json_integer(r->node_devices) : json_null());
  return o;
}

static json_t *memory_json(const tr_rank *r) {
  const tr_memory *m = &r->memory;
  json_t *o = json_object();
  json_object_set_new(o, "measured", json_boolean(m->measured));
  if (!m->measured) {
    json_object_set_new(o, "note", json_string(r->has_memory_events ? "not measured: [memory] events only for the CPU"
                                                                    : "not measured: no [memory] events (profile_memory off)"));
    return o;
  }
  json_object_set_new(o, "device", json_string(device_kind(m->device_type)));
  json_object_set_new(o, "device_id", json_integer(m->device_id));
  json_object_set_new(o, "events", json_integer(m->samples));
  json_object_set_new(o, "peak_allocated_bytes", json_integer((json_int_t)m->peak_alloc));
  json_object_set_new(o, "peak_reserved_bytes", json_integer((json_int_t)m->peak_reserved));
  json_object_set_new(o, "device_total_bytes", jbytes(r->device_total));
  json_object_set_new(o, "headroom_bytes", r->device_total >= 0 ? json_integer((json_int_t)(r->device_total - m->peak_reserved)) : json_null());
  json_object_set_new(o, "at_us", jn((double)m->at_ns / 1000.0));
  json_object_set_new(o, "at_step", r->mem_at_step >= 0 ? json_integer(r->mem_at_step) : json_null());
  json_object_set_new(o, "at_op", r->mem_at_op ? json_string(r->mem_at_op) : json_null());
  if (!r->mem_at_op) json_object_set_new(o, "at_op_note", json_string(r->mem_at_op_why));
  json_t *st = json_array();
  for (size_t i = 0; i < m->n_steps; i++) {
    json_t *s = json_object();
    json_object_set_new(s, "step", m->steps[i].step >= 0 ? json_integer(m->steps[i].step) : json_null());
    json_object_set_new(s, "peak_allocated_bytes", jbytes(m->steps[i].peak_alloc));
    json_object_set_new(s, "peak_reserved_bytes", jbytes(m->steps[i].peak_reserved));
    json_array_append_new(st, s);
  }
  json_object_set_new(o, "steps", st);
  json_object_set_new(o, "steps_exact", json_boolean(m->steps_exact));
  return o;
}

static json_t *op_json(const tr_op_row *row, double window_us) {
  const tr_fl *f = &row->model;
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(row->name));
  json_object_set_new(o, "kind", json_string(f->kind == TR_FL_GEMM ? "gemm" : f->kind == TR_FL_ATTN ? "attention" : "profiler"));
  if (f->kind != TR_FL_PROFILER) {
    json_object_set_new(o, "B", json_integer(f->b));
    json_object_set_new(o, "M", json_integer(f->m));
    json_object_set_new(o, "N", json_integer(f->n));
    json_object_set_new(o, "K", json_integer(f->k));
  }
  if (f->kind == TR_FL_ATTN) {
    json_object_set_new(o, "heads", json_integer(f->heads));
    json_object_set_new(o, "heads_kv", json_integer(f->heads_kv));
    json_object_set_new(o, "causal", json_boolean(f->causal));
    json_object_set_new(o, "backward", json_boolean(f->backward));
  }
  json_object_set_new(o, "dtype", json_string(f->dtype));
  json_object_set_new(o, "calls", json_integer(row->calls));
  json_object_set_new(o, "timed_calls", json_integer(row->timed));
  json_object_set_new(o, "gflops_per_call", json_real(f->flops / 1e9));
  double mean = row->timed ? row->kernel_us / (double)row->timed : NAN;
  json_object_set_new(o, "kernel_us_mean", jn(mean));
  json_object_set_new(o, "kernel_us_total", jn(row->kernel_us));
  json_object_set_new(o, "tflops_per_s", jn(row->kernel_us > 0 ? f->flops * (double)row->timed / row->kernel_us / 1e6 : NAN));
  json_object_set_new(o, "share_of_steps_pct", jn(window_us > 0 ? pct(row->kernel_us, window_us) : NAN));
  return o;
}

static json_t *flops_json(const tr_rank *r, const totals *t) {
  json_t *o = json_object();
  json_object_set_new(o, "shapes_recorded", json_boolean(r->shapes));
  json_object_set_new(o, "modelled_calls", json_integer(r->ops.calls));
  json_object_set_new(o, "timed_calls", json_integer(r->ops.timed));
  json_object_set_new(o, "gflops", jn(r->ops.flops / 1e9));
  json_object_set_new(o, "gflops_from_profiler", jn(r->ops.profiler_flops / 1e9));
  json_object_set_new(o, "kernel_us", jn(r->ops.kernel_us));
  json_object_set_new(o, "compute_covered_pct", jn(t->compute_us > 0 ? pct(t->kernel_us, t->compute_us) : NAN));
  json_object_set_new(o, "mfu_pct", jn(mfu_pct(t->ideal_us, t->flops, t->no_peak, t->window_us)));
  json_t *st = json_array();
  for (size_t i = 0; i < r->ops.n_steps && i < r->n_steps; i++) {
    const tr_op_step *s = &r->ops.steps[i];
    double w = r->steps[i].window_us;
    json_t *so = json_object();
    json_object_set_new(so, "step", s->step >= 0 ? json_integer(s->step) : json_null());
    json_object_set_new(so, "gflops", jn(s->flops / 1e9));
    json_object_set_new(so, "achieved_tflops_per_s", jn(w > 0 ? s->flops / w / 1e6 : NAN));
    json_object_set_new(so, "mfu_pct", jn(mfu_pct(s->ideal_us, s->flops, s->flops_no_peak, w)));
    json_object_set_new(so, "gflops_without_peak", jn(s->flops_no_peak / 1e9));
    json_object_set_new(so, "modelled_kernel_us", jn(s->kernel_us));
    json_object_set_new(so, "modelled_kernel_tflops_per_s", jn(s->kernel_us > 0 ? s->flops / s->kernel_us / 1e6 : NAN));
    json_object_set_new(so, "compute_covered_pct", jn(r->steps[i].compute_us > 0 ? pct(s->kernel_us, r->steps[i].compute_us) : NAN));
    json_array_append_new(st, so);
  }
  json_object_set_new(o, "steps", st);
  return o;
}

static json_t *bw_rows_json(const tr_bw_rows *rows, const tr_rank *r) {
  json_t *a = json_array();
  for (size_t i = 0; i < rows->n; i++) {
    const tr_bw_row *b = &rows->v[i];
    json_t *o = json_object();
    json_object_set_new(o, "collective", json_string(b->what));
    json_object_set_new(o, "bytes", json_integer((json_int_t)b->bytes));
    json_object_set_new(o, "group_size", b->group > 0 ? json_integer(b->group) : json_null());
    json_object_set_new(o, "count", json_integer(b->count));
    json_object_set_new(o, "time_us_mean", jn(b->time_us / (double)b->count));
    json_object_set_new(o, "algbw_gbps", jn(b->algbw_gbps));
    json_object_set_new(o, "busbw_gbps", jn(b->busbw_gbps));
    double link = r && r->device ? r->device->link_gbps : NAN;
    json_object_set_new(o, "link_gbps", jn(link));
    json_object_set_new(o, "busbw_of_link_pct", jn(!isnan(link) && !isnan(b->busbw_gbps) ? pct(b->busbw_gbps, link) : NAN));
    json_array_append_new(a, o);
  }
  return a;
}

static void rank_bw(const tr_rank *r, tr_bw_rows *rows) {
  for (size_t j = 0; j < r->n_colls; j++)
    tr_bw_add(rows, r->colls[j].what, r->colls[j].bytes, r->colls[j].group, (double)(r->colls[j].e - r->colls[j].b) / 1000.0);
  tr_bw_finish(rows);
}

void tr_eff_rank_json(json_t *o, const tr_rank *r) {
  totals t = rank_totals(r);
  json_object_set_new(o, "device", device_json(r));
  json_object_set_new(o, "memory", memory_json(r));
  json_object_set_new(o, "flops", flops_json(r, &t));
  json_t *ops = json_array();
  for (size_t i = 0; i < r->ops.n_rows; i++) json_array_append_new(ops, op_json(&r->ops.rows[i], t.window_us));
  json_object_set_new(o, "ops", ops);
  json_object_set_new(o, "ops_total", json_integer((json_int_t)r->ops.n_rows));
  tr_bw_rows rows = {0};
  rank_bw(r, &rows);
  json_object_set_new(o, "collective_bandwidth", bw_rows_json(&rows, r));
  tr_bw_free(&rows);
}

static const tr_rank *first_ok(const tr_report *rep) {
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) return rep->ranks[i];
  return NULL;
}

json_t *tr_eff_bw_json(const tr_report *rep) {
  const tr_cross *x = rep->cross;
  json_t *o = json_object();
  json_object_set_new(o, "basis", json_string(x->bw_matched ? "shortest kernel among the ranks of each matched instance"
                                                            : "each rank's own kernel time (includes waiting for peers)"));
  json_object_set_new(o, "units", json_string("GB/s = 10^9 bytes/s, nccl-tests' algbw and busbw"));
  json_object_set_new(o, "rows", bw_rows_json(&x->bw, first_ok(rep)));
  return o;
}


/* ---- markdown ---- */

static char *gib(int64_t b, const tr_text *tx) {
  return b < 0 ? TR_SAID0(tx, TM_NOT_STATED) : pd_xasprintf("%.2f GiB", (double)b / GIB);
}

static char *rank_name(const tr_report *rep, const tr_rank *r) {
  for (size_t j = 0; j < rep->n; j++)
    if (rep->ranks[j] != r && !rep->ranks[j]->err && rep->ranks[j]->rank == r->rank)
      return pd_xasprintf("rank %d [%s]", r->rank, pd_path_base(r->file));
  return pd_xasprintf("rank %d", r->rank);
}

/* A heading of level `level` from a message, with the blank line after it. */
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

/* Why the CPU op at the memory peak is not named (r->mem_at_op_why, one of TR_AT_OP_*). */
static tr_msg_id at_op_why(const char *why) {
  if (why && !strcmp(why, TR_AT_OP_NOT_KEPT)) return TM_EFF_AT_OP_NOT_KEPT;
  if (why && !strcmp(why, TR_AT_OP_HEADER)) return TM_EFF_AT_OP_HEADER;
  return TM_EFF_AT_OP_NO_SPAN;
}

static void md_memory_row(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  const tr_text *tx = rep->tx;
  const tr_memory *m = &r->memory;
  char *l = rank_name(rep, r);
  if (!m->measured) {
    char *nm = TR_SAID0(tx, TM_NOT_MEASURED), *dev = TR_SAID0(tx, r->device_total >= 0 ? TM_EFF_SEE_DEVICE : TM_NOT_STATED);
    pd_buf_printf(b, "| %s | – | %s | %s | %s | – | – | – |\n", l, nm, nm, dev);
    free(nm);
    free(dev);
    free(l);
    return;
  }
  char *pa = gib(m->peak_alloc, tx), *pr = gib(m->peak_reserved, tx), *tot = gib(r->device_total, tx);
  pd_buf_printf(b, "| %s | %s:%d | %s | %s | %s | ", l, device_kind(m->device_type), m->device_id, pa, pr, tot);
  if (r->device_total > 0)
    pd_buf_printf(b, "%.2f GiB (%.1f %%)", (double)(r->device_total - m->peak_reserved) / GIB,
                  pct((double)(r->device_total - m->peak_reserved), (double)r->device_total));
  else
    TR_SAY0(b, tx, TM_EFF_HEADROOM_UNKNOWN);
  pd_buf_puts(b, " | ");
  if (r->mem_at_step >= 0) TR_SAY(b, tx, TM_EFF_AT_STEP, PD_MI(r->mem_at_step));
  else TR_SAY0(b, tx, r->n_steps == 1 && r->steps[0].step < 0 ? TM_EFF_NO_MARKERS : TM_EFF_OUTSIDE_STEPS);
  pd_buf_printf(b, ", ts %.3f µs | ", (double)m->at_ns / 1000.0);
  if (r->mem_at_op) {
    char *op = tr_kname_cap(r->mem_at_op, 60);
    tr_kname_md_code(b, op);
    free(op);
  } else {
    TR_SAY0(b, tx, at_op_why(r->mem_at_op_why));
  }
  pd_buf_puts(b, " |\n");
  free(l);
  free(pa);
  free(pr);
  free(tot);
}

static void md_memory_steps(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  const tr_memory *m = &r->memory;
  if (!m->measured || m->n_steps < 2) return;
  char *l = rank_name(rep, r), *none = TR_SAID0(rep->tx, TM_EFF_NO_EVENTS);
  pd_buf st = {0};
  for (size_t i = 0; i < m->n_steps; i++) {
    if (m->steps[i].peak_alloc < 0) {
      pd_buf_printf(&st, "%s #%ld %s", i ? ";" : "", m->steps[i].step, none);
      continue;
    }
    pd_buf_printf(&st, "%s #%ld %.2f / %.2f GiB", i ? ";" : "", m->steps[i].step, (double)m->steps[i].peak_alloc / GIB,
                  (double)m->steps[i].peak_reserved / GIB);
  }
  pd_buf_puts(b, "- ");
  TR_SAY(b, rep->tx, m->steps_exact ? TM_EFF_MEM_STEPS : TM_EFF_MEM_STEPS_BOUNDS, PD_MS(l), PD_MS(st.data ? st.data : ""));
  pd_buf_puts(b, "\n");
  pd_buf_free(&st);
  free(none);
  free(l);
}

static void md_memory(pd_buf *b, const tr_report *rep) {
  const tr_text *tx = rep->tx;
  pd_buf_putc(b, '\n');
  md_heading(b, tx, 3, TM_EFF_MEMORY);
  bool any = false;
  for (size_t i = 0; i < rep->n; i++) any |= !rep->ranks[i]->err && rep->ranks[i]->memory.measured;
  if (!any) {
    TR_SAY0(b, tx, TM_EFF_MEM_NONE);
    pd_buf_putc(b, '\n');
    return;
  }
  TR_SAY0(b, tx, TM_EFF_MEM_INTRO);
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_EFF_MEM_HEAD, 8);
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_memory_row(b, rep, rep->ranks[i]);
  pd_buf_puts(b, "\n");
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_memory_steps(b, rep, rep->ranks[i]);
}

/* A figure, or "not stated" for NAN (fresh). */
static char *fig(double v, const char *unit, const tr_text *tx) {
  return isnan(v) ? TR_SAID0(tx, TM_NOT_STATED) : pd_xasprintf("%.4g%s", v, unit);
}

static void md_device(pd_buf *b, const tr_rank *r, const tr_text *tx) {
  if (r->device_name) TR_SAY(b, tx, TM_EFF_DEVICE, PD_MS(r->device_name));
  else TR_SAY0(b, tx, TM_EFF_DEVICE_UNKNOWN);
  if (!r->device) {
    TR_SAY0(b, tx, TM_EFF_DEVICE_NOT_IN_TABLE);
    pd_buf_putc(b, '\n');
    return;
  }
  const pd_device *d = r->device;
  char *dev = r->device_from_option ? TR_SAID(tx, TM_EFF_DEVICE_AS, PD_MS(d->display)) : pd_xasprintf(" → %s", d->display);
  char *f1 = fig(d->bf16_tflops, "", tx), *f2 = fig(d->fp8_tflops, "", tx), *f3 = fig(d->fp32_tflops, "", tx);
  char *f4 = fig(d->link_gbps, " GB/s", tx), *link = d->link ? pd_xstrdup(d->link) : TR_SAID0(tx, TM_EFF_LINK);
  TR_SAY(b, tx, TM_EFF_DEVICE_PEAKS, PD_MS(dev), PD_MS(f1), PD_MS(f2), PD_MS(f3), PD_MS(link), PD_MS(f4), PD_MS(d->source));
  pd_buf_putc(b, '\n');
  free(dev);
  free(f1);
  free(f2);
  free(f3);
  free(f4);
  free(link);
}

static void md_flops_steps(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  const tr_text *tx = rep->tx;
  char *l = rank_name(rep, r);
  for (size_t i = 0; i < r->ops.n_steps && i < r->n_steps; i++) {
    const tr_op_step *s = &r->ops.steps[i];
    double w = r->steps[i].window_us, m = mfu_pct(s->ideal_us, s->flops, s->flops_no_peak, w);
    char *st = s->step >= 0 ? pd_xasprintf("#%ld", s->step) : TR_SAID0(tx, TM_STEP_ALL);
    char *mfu = !isnan(m) ? pd_xasprintf("%.2f %%", m) : TR_SAID0(tx, r->device ? TM_EFF_MFU_NO_PEAK : TM_EFF_MFU_NO_DEVICE);
    char *kt = s->kernel_us > 0 ? pd_xasprintf("%.1f", s->flops / s->kernel_us / 1e6) : TR_SAID0(tx, TM_EFF_NO_KERNELS_ATTRIBUTED);
    char *cov = r->steps[i].compute_us > 0 ? pd_xasprintf("%.1f %%", pct(s->kernel_us, r->steps[i].compute_us))
                                            : TR_SAID0(tx, TM_EFF_NO_COMPUTE);
    pd_buf_printf(b, "| %s | %s | %.1f | %.2f | %s | %.1f | %s | %s |\n", l, st, s->flops / 1e9, w > 0 ? s->flops / w / 1e6 : 0,
                  mfu, s->kernel_us / 1000.0, kt, cov);
    free(st);
    free(mfu);
    free(kt);
    free(cov);
  }
  free(l);
}

static void shape_text(pd_buf *b, const tr_fl *f, const tr_text *tx) {
  if (f->kind == TR_FL_GEMM && f->b == 1)
    pd_buf_printf(b, "M=%lld N=%lld K=%lld", (long long)f->m, (long long)f->n, (long long)f->k);
  else if (f->kind == TR_FL_GEMM)
    pd_buf_printf(b, "B=%lld M=%lld N=%lld K=%lld", (long long)f->b, (long long)f->m, (long long)f->n, (long long)f->k);
  else if (f->kind == TR_FL_ATTN)
    pd_buf_printf(b, "B=%lld H=%lld/%lld Nq=%lld Nkv=%lld d=%lld%s%s", (long long)f->b, (long long)f->heads,
                  (long long)f->heads_kv, (long long)f->m, (long long)f->n, (long long)f->k, f->causal ? " causal" : "",
                  f->backward ? " bwd" : "");
  else
    TR_SAY0(b, tx, TM_EFF_PROFILER_COUNT);
}

static void md_top_ops(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  const tr_text *tx = rep->tx;
  if (!r->ops.n_rows) return;
  char *l = rank_name(rep, r);
  size_t k = r->ops.n_rows < MD_OPS ? r->ops.n_rows : MD_OPS;
  double rest = 0, all = 0;
  for (size_t i = 0; i < r->ops.n_rows; i++) {
    all += r->ops.rows[i].kernel_us;
    if (i >= k) rest += r->ops.rows[i].kernel_us;
  }
  pd_buf_putc(b, '\n');
  TR_SAY(b, tx, TM_EFF_OPS_TITLE, PD_MS(l), PD_MI(k), PD_MI(r->ops.n_rows));
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_EFF_OPS_HEAD, 8);
  char *no_kernels = TR_SAID0(tx, TM_EFF_NO_KERNELS);
  for (size_t i = 0; i < k; i++) {
    const tr_op_row *o = &r->ops.rows[i];
    char rate[32] = "–", ofp[32] = "–", mean[32];
    if (o->timed) {
      double tf = o->kernel_us > 0 ? o->model.flops * (double)o->timed / o->kernel_us / 1e6 : 0;
      double peak = tr_flops_peak(r->device, o->model.dtype);
      snprintf(mean, sizeof mean, "%.2f", o->kernel_us / (double)o->timed);
      snprintf(rate, sizeof rate, "%.2f", tf);
      if (!isnan(peak) && peak > 0) snprintf(ofp, sizeof ofp, "%.1f %%", pct(tf, peak));
    }
    char *name = tr_kname_cap(o->name, TR_KNAME_MAX);
    pd_buf_puts(b, "| ");
    tr_kname_md_code(b, name);
    free(name);
    pd_buf_puts(b, " | ");
    shape_text(b, &o->model, tx);
    pd_buf_printf(b, " | %s | %ld | %.4g | %s | %s | %s |\n", o->model.dtype, o->calls, o->model.flops / 1e9,
                  o->timed ? mean : no_kernels, rate, ofp);
  }
  free(no_kernels);
  tr_ktab_more_row(b, r->ops.n_rows - k, all > 0 ? 100.0 * rest / all : 0, 8, tx);
  free(l);
}

static void md_flops(pd_buf *b, const tr_report *rep) {
  const tr_text *tx = rep->tx;
  bool shapes = false, ops = false;
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) {
      shapes |= rep->ranks[i]->shapes;
      ops |= rep->ranks[i]->ops.calls > 0;
    }
  if (!shapes || !ops) {
    TR_SAY0(b, tx, !shapes ? TM_EFF_FLOPS_NO_SHAPES : TM_EFF_FLOPS_NO_OPS);
    pd_buf_putc(b, '\n');
    return;
  }
  TR_SAY0(b, tx, TM_EFF_FLOPS_INTRO);
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_EFF_FLOPS_HEAD, 8);
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_flops_steps(b, rep, rep->ranks[i]);
  const tr_rank *r0 = first_ok(rep);
  md_top_ops(b, rep, r0);
}

/* The last cell of a bandwidth row: the bus bandwidth against the device's link (fresh). */
static char *of_link(const tr_bw_row *w, const tr_rank *r0, const tr_text *tx) {
  double link = r0 && r0->device ? r0->device->link_gbps : NAN;
  if (isnan(link) || isnan(w->busbw_gbps)) return TR_SAID0(tx, TM_EFF_BW_NO_LINK);
  if (r0->node_devices > 0 && w->group > r0->node_devices) return TR_SAID0(tx, TM_EFF_BW_SPANS_NODES);
  return TR_SAID(tx, r0->node_devices ? TM_EFF_BW_OF_LINK : TM_EFF_BW_OF_LINK_ONE_NODE, PD_MF(pct(w->busbw_gbps, link)),
                 PD_MF(link));
}

static void md_bandwidth(pd_buf *b, const tr_report *rep) {
  const tr_text *tx = rep->tx;
  const tr_cross *x = rep->cross;
  const tr_rank *r0 = first_ok(rep);
  pd_buf_putc(b, '\n');
  if (!x->bw.n) {
    char *why = TR_SAID0(tx, x->coll_total ? TM_EFF_BW_NO_SIZES : TM_EFF_BW_NO_COLLECTIVES);
    if (x->p2p_kernels) {
      char *more = TR_SAID(tx, TM_EFF_BW_AND_P2P, PD_MS(why));
      free(why);
      why = more;
    }
    TR_SAY(b, tx, TM_EFF_BW_NONE, PD_MS(why));
    pd_buf_putc(b, '\n');
    free(why);
    return;
  }
  char *basis = TR_SAID0(tx, x->bw_matched ? TM_EFF_BW_MATCHED : TM_EFF_BW_OWN);
  TR_SAY(b, tx, TM_EFF_BW_TITLE, PD_MS(basis));
  free(basis);
  pd_buf_puts(b, "\n\n");
  md_table_head(b, tx, TM_EFF_BW_HEAD, 8);
  size_t k = x->bw.n < MD_BW ? x->bw.n : MD_BW;
  double rest = 0, all = 0;
  for (size_t i = 0; i < x->bw.n; i++) {
    all += x->bw.v[i].time_us;
    if (i >= k) rest += x->bw.v[i].time_us;
  }
  for (size_t i = 0; i < k; i++) {
    const tr_bw_row *w = &x->bw.v[i];
    char grp[16] = "–";
    if (w->group > 0) snprintf(grp, sizeof grp, "%d", w->group);
    char *of = of_link(w, r0, tx), *what = tr_kname_cap(w->what, TR_KNAME_MAX);
    pd_buf_printf(b, "| %s | %.2f MiB | %s | %ld | %.1f | %.2f | %.2f | %s |\n", what, (double)w->bytes / (1024.0 * 1024.0),
                  grp, w->count, w->time_us / (double)w->count, w->algbw_gbps, w->busbw_gbps, of);
    free(what);
    free(of);
  }
  tr_ktab_more_row(b, x->bw.n - k, all > 0 ? 100.0 * rest / all : 0, 8, tx);
}

void tr_eff_md(pd_buf *b, const tr_report *rep) {
  tr_text own;
  tr_report r = *rep;
  r.tx = tr_text_or_builtin(rep->tx, &own);
  md_memory(b, &r);
  pd_buf_putc(b, '\n');
  md_heading(b, r.tx, 3, TM_EFF_TITLE);
  const tr_rank *r0 = first_ok(&r);
  if (r0) md_device(b, r0, r.tx);
  pd_buf_puts(b, "\n");
  md_flops(b, &r);
  md_bandwidth(b, &r);
  tr_text_release(&own);
}

/* ---- hypotheses ---- */

typedef void (*hyp_add)(void *ctx, char *s);

static void hyp_mfu(const tr_report *rep, const tr_rank *r, const tr_text *tx, hyp_add add, void *ctx) {
  totals t = rank_totals(r);
  double m = mfu_pct(t.ideal_us, t.flops, t.no_peak, t.window_us);
  if (isnan(m) || t.window_us <= 0) return;
  double busy = pct(t.compute_us, t.window_us), cover = pct(t.kernel_us, t.compute_us);
  double kpeak = t.kernel_us > 0 ? pct(t.ideal_us, t.kernel_us) : NAN;
  char *l = rank_name(rep, r);
  if (busy >= 70 && m < 40)
    add(ctx, TR_SAID(tx, TM_HYP_SLOW_KERNELS, PD_MS(l), PD_MF(m), PD_MF(busy), PD_MF(kpeak), PD_MF(cover)));
  else if (busy < 50)
    add(ctx, TR_SAID(tx, TM_HYP_IDLE_FIRST, PD_MS(l), PD_MF(m), PD_MF(busy)));
  free(l);
}

static void hyp_memory(const tr_report *rep, const tr_rank *r, const tr_text *tx, hyp_add add, void *ctx) {
  const tr_memory *m = &r->memory;
  if (!m->measured || r->device_total <= 0) return;
  double used = pct((double)m->peak_reserved, (double)r->device_total);
  double frag = pct((double)(m->peak_reserved - m->peak_alloc), (double)r->device_total);
  char *l = rank_name(rep, r);
  if (used >= 95) add(ctx, TR_SAID(tx, TM_HYP_MEM_LIMIT, PD_MS(l), PD_MF(used)));
  else if (used < 50) add(ctx, TR_SAID(tx, TM_HYP_MEM_ROOM, PD_MS(l), PD_MF(used)));
  if (frag >= 15) add(ctx, TR_SAID(tx, TM_HYP_MEM_FRAG, PD_MS(l), PD_MF(frag)));
  free(l);
}

static void hyp_bandwidth(const tr_report *rep, const tr_text *tx, hyp_add add, void *ctx) {
  const tr_cross *x = rep->cross;
  const tr_rank *r0 = first_ok(rep);
  if (!x->bw_matched || !r0 || !r0->device || isnan(r0->device->link_gbps)) return;
  double total = 0;
  for (size_t i = 0; i < x->bw.n; i++) total += x->bw.v[i].time_us;
  for (size_t i = 0; i < x->bw.n; i++) {
    const tr_bw_row *w = &x->bw.v[i];
    if (w->time_us < 0.2 * total || isnan(w->busbw_gbps) || w->busbw_gbps >= 0.5 * r0->device->link_gbps) continue;
    if (r0->node_devices > 0 && w->group > r0->node_devices) continue;
    add(ctx, TR_SAID(tx, w->bytes < 4 * 1024 * 1024 ? TM_HYP_BW_SMALL : TM_HYP_BW_LOW, PD_MS(w->what),
                     PD_MF((double)w->bytes / (1024.0 * 1024.0)), PD_MI(w->group), PD_MF(w->busbw_gbps),
                     PD_MF(pct(w->busbw_gbps, r0->device->link_gbps)), PD_MS(r0->device->link),
                     PD_MF(r0->device->link_gbps)));
    break;
  }
}

void tr_eff_hypotheses(const tr_report *rep, const tr_text *tx, void (*add)(void *ctx, char *s), void *ctx) {
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) {
      hyp_mfu(rep, rep->ranks[i], tx, add, ctx);
      hyp_memory(rep, rep->ranks[i], tx, add, ctx);
    }
  hyp_bandwidth(rep, tx, add, ctx);
}
