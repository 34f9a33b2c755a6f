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

static char *gib(int64_t b) { return b < 0 ? pd_xstrdup("not stated") : pd_xasprintf("%.2f GiB", (double)b / GIB); }

static char *rank_name(const tr_report *rep, const tr_rank *r) {
  for (size_t j = 0; j < rep->n; j++)
    if (rep->ranks[j] != r && !rep->ranks[j]->err && rep->ranks[j]->rank == r->rank)
      return pd_xasprintf("rank %d [%s]", r->rank, pd_path_base(r->file));
  return pd_xasprintf("rank %d", r->rank);
}

static void md_memory_row(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  const tr_memory *m = &r->memory;
  char *l = rank_name(rep, r);
  if (!m->measured) {
    pd_buf_printf(b, "| %s | – | not measured | not measured | %s | – | – | – |\n", l,
                  r->device_total >= 0 ? "see device" : "not stated");
    free(l);
    return;
  }
  char *pa = gib(m->peak_alloc), *pr = gib(m->peak_reserved), *tot = gib(r->device_total);
  pd_buf_printf(b, "| %s | %s:%d | %s | %s | %s | ", l, device_kind(m->device_type), m->device_id, pa, pr, tot);
  if (r->device_total > 0)
    pd_buf_printf(b, "%.2f GiB (%.1f %%)", (double)(r->device_total - m->peak_reserved) / GIB,
                  pct((double)(r->device_total - m->peak_reserved), (double)r->device_total));
  else
    pd_buf_puts(b, "not computed (device memory not stated)");
  char when[64] = "outside the steps";
  if (r->n_steps == 1 && r->steps[0].step < 0) snprintf(when, sizeof when, "no ProfilerStep markers");
  if (r->mem_at_step >= 0) snprintf(when, sizeof when, "step #%ld", r->mem_at_step);
  pd_buf_printf(b, " | %s, ts %.3f µs | ", when, (double)m->at_ns / 1000.0);
  if (r->mem_at_op) {
    char *op = tr_kname_cap(r->mem_at_op, 60);
    tr_kname_md_code(b, op);
    free(op);
  } else {
    pd_buf_puts(b, r->mem_at_op_why);
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
  char *l = rank_name(rep, r);
  pd_buf_printf(b, "- %s, peak allocated / reserved per step%s:", l, m->steps_exact ? "" : " (lower bounds: the event buffer was thinned)");
  for (size_t i = 0; i < m->n_steps; i++) {
    if (m->steps[i].peak_alloc < 0) {
      pd_buf_printf(b, "%s #%ld no events", i ? ";" : "", m->steps[i].step);
      continue;
    }
    pd_buf_printf(b, "%s #%ld %.2f / %.2f GiB", i ? ";" : "", m->steps[i].step, (double)m->steps[i].peak_alloc / GIB,
                  (double)m->steps[i].peak_reserved / GIB);
  }
  pd_buf_puts(b, "\n");
  free(l);
}

static void md_memory(pd_buf *b, const tr_report *rep) {
  pd_buf_puts(b, "\n### Memory\n\n");
  bool any = false;
  for (size_t i = 0; i < rep->n; i++) any |= !rep->ranks[i]->err && rep->ranks[i]->memory.measured;
  if (!any) {
    pd_buf_puts(b, "GPU memory: not measured — no `[memory]` events for a GPU in the trace (Relax records them with "
                   "`--profile-with-memory`, passed to the profiler as `profile_memory=True`).\n");
    return;
  }
  pd_buf_puts(b, "From the caching allocator's totals in the `[memory]` events (exact bytes; *allocated* = held by "
                 "tensors, *reserved* = held by PyTorch from the device):\n\n"
                 "| rank | device | peak allocated | peak reserved | device memory | headroom (memory − reserved) | "
                 "allocated peak reached | CPU op running then |\n|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_memory_row(b, rep, rep->ranks[i]);
  pd_buf_puts(b, "\n");
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_memory_steps(b, rep, rep->ranks[i]);
}

/* A figure, or "not stated" for NAN. */
static const char *fig(char *buf, size_t n, double v, const char *unit) {
  if (isnan(v)) snprintf(buf, n, "not stated");
  else snprintf(buf, n, "%.4g%s", v, unit);
  return buf;
}

static void md_device(pd_buf *b, const tr_rank *r) {
  if (r->device_name) pd_buf_printf(b, "Device: %s (deviceProperties)", r->device_name);
  else pd_buf_puts(b, "Device: not stated in the trace");
  if (!r->device) {
    pd_buf_puts(b, "; not in the device table, so MFU and link figures are not computed (name the device with `--gpu`).\n");
    return;
  }
  char f1[32], f2[32], f3[32], f4[32];
  const pd_device *d = r->device;
  pd_buf_printf(b, "%s %s: dense peak bf16/fp16 %s, fp8 %s, fp32 %s TFLOP/s; %s %s per direction (%s).\n",
                r->device_from_option ? "; judged as `--gpu`" : " →", d->display, fig(f1, sizeof f1, d->bf16_tflops, ""),
                fig(f2, sizeof f2, d->fp8_tflops, ""), fig(f3, sizeof f3, d->fp32_tflops, ""),
                d->link ? d->link : "link", fig(f4, sizeof f4, d->link_gbps, " GB/s"), d->source);
}

static void md_flops_steps(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  char *l = rank_name(rep, r);
  for (size_t i = 0; i < r->ops.n_steps && i < r->n_steps; i++) {
    const tr_op_step *s = &r->ops.steps[i];
    double w = r->steps[i].window_us, m = mfu_pct(s->ideal_us, s->flops, s->flops_no_peak, w);
    char st[24] = "all", mfu[48], kt[48], cov[32];
    if (s->step >= 0) snprintf(st, sizeof st, "#%ld", s->step);
    if (isnan(m)) snprintf(mfu, sizeof mfu, "not computed (%s)", r->device ? "no peak for the dtype" : "device unknown");
    else snprintf(mfu, sizeof mfu, "%.2f %%", m);
    if (s->kernel_us > 0) snprintf(kt, sizeof kt, "%.1f", s->flops / s->kernel_us / 1e6);
    else snprintf(kt, sizeof kt, "no kernels attributed");
    if (r->steps[i].compute_us > 0) snprintf(cov, sizeof cov, "%.1f %%", pct(s->kernel_us, r->steps[i].compute_us));
    else snprintf(cov, sizeof cov, "no compute");
    pd_buf_printf(b, "| %s | %s | %.1f | %.2f | %s | %.1f | %s | %s |\n", l, st, s->flops / 1e9, w > 0 ? s->flops / w / 1e6 : 0,
                  mfu, s->kernel_us / 1000.0, kt, cov);
  }
  free(l);
}

static void shape_text(char *buf, size_t n, const tr_fl *f) {
  if (f->kind == TR_FL_GEMM && f->b == 1)
    snprintf(buf, n, "M=%lld N=%lld K=%lld", (long long)f->m, (long long)f->n, (long long)f->k);
  else if (f->kind == TR_FL_GEMM)
    snprintf(buf, n, "B=%lld M=%lld N=%lld K=%lld", (long long)f->b, (long long)f->m, (long long)f->n, (long long)f->k);
  else if (f->kind == TR_FL_ATTN)
    snprintf(buf, n, "B=%lld H=%lld/%lld Nq=%lld Nkv=%lld d=%lld%s%s", (long long)f->b, (long long)f->heads,
             (long long)f->heads_kv, (long long)f->m, (long long)f->n, (long long)f->k, f->causal ? " causal" : "",
             f->backward ? " bwd" : "");
  else
    snprintf(buf, n, "profiler's count");
}

static void md_top_ops(pd_buf *b, const tr_report *rep, const tr_rank *r) {
  if (!r->ops.n_rows) return;
  char *l = rank_name(rep, r);
  size_t k = r->ops.n_rows < MD_OPS ? r->ops.n_rows : MD_OPS;
  double rest = 0, all = 0;
  for (size_t i = 0; i < r->ops.n_rows; i++) {
    all += r->ops.rows[i].kernel_us;
    if (i >= k) rest += r->ops.rows[i].kernel_us;
  }
  pd_buf_printf(b, "\nModelled ops by kernel time, %s (%zu of %zu (op, shape) rows; all in the JSON):\n\n"
                   "| op | shape | dtype | calls | GFLOP per call | mean kernel µs | TFLOP/s | of peak |\n"
                   "|---|---|---|---|---|---|---|---|\n", l, k, r->ops.n_rows);
  for (size_t i = 0; i < k; i++) {
    const tr_op_row *o = &r->ops.rows[i];
    char sh[160], mean[32] = "no kernels", rate[32] = "–", ofp[32] = "–";
    shape_text(sh, sizeof sh, &o->model);
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
    pd_buf_printf(b, " | %s | %s | %ld | %.4g | %s | %s | %s |\n", sh, o->model.dtype, o->calls, o->model.flops / 1e9, mean,
                  rate, ofp);
  }
  tr_ktab_more_row(b, r->ops.n_rows - k, all > 0 ? 100.0 * rest / all : 0, 8);
  free(l);
}

static void md_flops(pd_buf *b, const tr_report *rep) {
  bool shapes = false, ops = false;
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) {
      shapes |= rep->ranks[i]->shapes;
      ops |= rep->ranks[i]->ops.calls > 0;
    }
  if (!shapes) {
    pd_buf_puts(b, "FLOPs and MFU: not measured — no CPU op recorded its input shapes (`record_shapes`).\n");
    return;
  }
  if (!ops) {
    pd_buf_puts(b, "FLOPs and MFU: not measured — no op the FLOP model covers (`aten::mm`, `addmm`, `bmm`, `baddbmm`, "
                   "scaled-dot-product and flash attention) has recorded shapes; GEMMs launched outside ATen "
                   "(Transformer Engine) record none.\n");
    return;
  }
  pd_buf_puts(b, "FLOPs from the recorded shapes (TraceLens's formulas: GEMMs 2·M·N·K, +M·N for addmm's bias, × batch; "
                 "attention 4·B·H·Nq·Nkv·d, halved when causal). MFU = the time the modelled FLOPs take at the device's "
                 "dense peak for their dtype ÷ the step window. Only modelled ops count (elementwise ops, norms and GEMMs "
                 "outside ATen do not), so MFU is a lower bound when the modelled ops' kernels cover less than all of the "
                 "compute time:\n\n"
                 "| rank | step | modelled GFLOP | TFLOP/s over the window | MFU | modelled ops' kernels ms | their TFLOP/s | "
                 "compute time covered |\n|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) md_flops_steps(b, rep, rep->ranks[i]);
  const tr_rank *r0 = first_ok(rep);
  md_top_ops(b, rep, r0);
}

static void md_bandwidth(pd_buf *b, const tr_report *rep) {
  const tr_cross *x = rep->cross;
  const tr_rank *r0 = first_ok(rep);
  if (!x->bw.n) {
    pd_buf_printf(b, "\nCollective bandwidth: not measured — %s%s.\n",
                  x->coll_total ? "the collective kernels carry no message sizes (record_param_comms arguments)"
                                : "no collective kernels",
                  x->p2p_kernels ? "; point-to-point send/recv kernels (pipeline transfers) are not collectives" : "");
    return;
  }
  pd_buf_printf(b, "\nCollective bandwidth (nccl-tests' conventions, GB/s = 10⁹ B/s; time = %s):\n\n"
                   "| collective | message | group | count | mean µs | algbw GB/s | busbw GB/s | of the link |\n"
                   "|---|---|---|---|---|---|---|---|\n",
                x->bw_matched ? "the shortest rank's kernel of each matched instance, i.e. without waiting for peers"
                              : "each rank's own kernel, so waiting for peers is included and the figures are lower bounds");
  size_t k = x->bw.n < MD_BW ? x->bw.n : MD_BW;
  double rest = 0, all = 0;
  for (size_t i = 0; i < x->bw.n; i++) {
    all += x->bw.v[i].time_us;
    if (i >= k) rest += x->bw.v[i].time_us;
  }
  for (size_t i = 0; i < k; i++) {
    const tr_bw_row *w = &x->bw.v[i];
    double link = r0 && r0->device ? r0->device->link_gbps : NAN;
    char grp[16] = "–", of[64];
    if (w->group > 0) snprintf(grp, sizeof grp, "%d", w->group);
    if (isnan(link) || isnan(w->busbw_gbps)) snprintf(of, sizeof of, "not compared (link not known)");
    else if (r0->node_devices > 0 && w->group > r0->node_devices) snprintf(of, sizeof of, "spans nodes: not compared");
    else snprintf(of, sizeof of, "%.1f %% of %.0f GB/s%s", pct(w->busbw_gbps, link), link, r0->node_devices ? "" : " (one node assumed)");
    char *what = tr_kname_cap(w->what, TR_KNAME_MAX);
    pd_buf_printf(b, "| %s | %.2f MiB | %s | %ld | %.1f | %.2f | %.2f | %s |\n", what, (double)w->bytes / (1024.0 * 1024.0),
                  grp, w->count, w->time_us / (double)w->count, w->algbw_gbps, w->busbw_gbps, of);
    free(what);
  }
  tr_ktab_more_row(b, x->bw.n - k, all > 0 ? 100.0 * rest / all : 0, 8);
}

void tr_eff_md(pd_buf *b, const tr_report *rep) {
  md_memory(b, rep);
  pd_buf_puts(b, "\n### Efficiency\n\n");
  const tr_rank *r0 = first_ok(rep);
  if (r0) md_device(b, r0);
  pd_buf_puts(b, "\n");
  md_flops(b, rep);
  md_bandwidth(b, rep);
}

/* ---- hypotheses ---- */

static void hyp_mfu(const tr_report *rep, const tr_rank *r, void (*add)(void *, char *), void *ctx) {
  totals t = rank_totals(r);
  double m = mfu_pct(t.ideal_us, t.flops, t.no_peak, t.window_us);
  if (isnan(m) || t.window_us <= 0) return;
  double busy = pct(t.compute_us, t.window_us), cover = pct(t.kernel_us, t.compute_us);
  double kpeak = t.kernel_us > 0 ? pct(t.ideal_us, t.kernel_us) : NAN;
  char *l = rank_name(rep, r);
  if (busy >= 70 && m < 40)
    add(ctx, pd_xasprintf("%s: MFU %.1f %% with the GPU computing %.0f %% of the step windows: the kernels are slow, not "
                          "the host. The modelled ops run at %.0f %% of the dense peak while they run and cover %.0f %% of "
                          "the compute time; look at the slowest rows of the ops table (small or odd GEMM shapes are "
                          "memory-bound) and at the compute kernels outside the model.",
                          l, m, busy, kpeak, cover));
  else if (busy < 50)
    add(ctx, pd_xasprintf("%s: MFU %.1f %% and the GPU computes only %.0f %% of the step windows: the time goes to idle "
                          "and communication (per-step table) before kernel speed matters.",
                          l, m, busy));
  free(l);
}

static void hyp_memory(const tr_report *rep, const tr_rank *r, void (*add)(void *, char *), void *ctx) {
  const tr_memory *m = &r->memory;
  if (!m->measured || r->device_total <= 0) return;
  double used = pct((double)m->peak_reserved, (double)r->device_total);
  double frag = pct((double)(m->peak_reserved - m->peak_alloc), (double)r->device_total);
  char *l = rank_name(rep, r);
  if (used >= 95)
    add(ctx, pd_xasprintf("%s: memory is the limit — the allocator reserved %.1f %% of the device at its peak; a larger "
                          "micro-batch or less recomputation will not fit without freeing memory first.", l, used));
  else if (used < 50)
    add(ctx, pd_xasprintf("%s: the allocator's peak reservation is %.1f %% of the device: there is room for a larger "
                          "micro-batch or less activation recomputation (check the estimate with `perf-doctor check`).",
                          l, used));
  if (frag >= 15)
    add(ctx, pd_xasprintf("%s: at the peak %.1f %% of the device was reserved but not allocated (fragmentation or cached "
                          "blocks): try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True and compare the reserved peak.",
                          l, frag));
  free(l);
}

static void hyp_bandwidth(const tr_report *rep, void (*add)(void *, char *), void *ctx) {
  const tr_cross *x = rep->cross;
  const tr_rank *r0 = first_ok(rep);
  if (!x->bw_matched || !r0 || !r0->device || isnan(r0->device->link_gbps)) return;
  double total = 0;
  for (size_t i = 0; i < x->bw.n; i++) total += x->bw.v[i].time_us;
  for (size_t i = 0; i < x->bw.n; i++) {
    const tr_bw_row *w = &x->bw.v[i];
    if (w->time_us < 0.2 * total || isnan(w->busbw_gbps) || w->busbw_gbps >= 0.5 * r0->device->link_gbps) continue;
    if (r0->node_devices > 0 && w->group > r0->node_devices) continue;
    add(ctx, pd_xasprintf("%s of %.2f MiB over %d ranks reaches %.1f GB/s bus bandwidth without waiting, %.0f %% of %s's "
                          "%.0f GB/s: %s",
                          w->what, (double)w->bytes / (1024.0 * 1024.0), w->group, w->busbw_gbps,
                          pct(w->busbw_gbps, r0->device->link_gbps), r0->device->link, r0->device->link_gbps,
                          w->bytes < 4 * 1024 * 1024 ? "messages this small are latency-bound; bucket them larger "
                                                       "(e.g. a larger gradient bucket) to approach the link"
                                                     : "check NCCL's algorithm and protocol (NCCL_DEBUG=INFO) and "
                                                       "whether other traffic shares the link"));
    break;
  }
}

void tr_eff_hypotheses(const tr_report *rep, void (*add)(void *ctx, char *s), void *ctx) {
  for (size_t i = 0; i < rep->n; i++)
    if (!rep->ranks[i]->err) {
      hyp_mfu(rep, rep->ranks[i], add, ctx);
      hyp_memory(rep, rep->ranks[i], add, ctx);
    }
  hyp_bandwidth(rep, add, ctx);
}
