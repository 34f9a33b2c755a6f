#include "evidence/evidence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts.h"
#include "base/alloc.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* The measures: what each means, its unit, and how ranks combine (mean, or the worst). */
typedef enum { M_STEP_MS, M_COMPUTE, M_COMM, M_DATA, M_COLLWAIT, M_RESERVED, M_ALLOCATED, M_MFU, M_COUNT } m_id;

static const struct {
  const char *name, *label, *unit;
  bool worst_is_max; /* the figure is the maximum over ranks (memory), else the mean */
} measures[M_COUNT] = {
    {"step_ms", "step time", " ms", false},
    {"compute_pct", "GPU computing", " % of the step", false},
    {"exposed_comm_pct", "communication not hidden behind computation", " % of the step", false},
    {"idle_data_supply_pct", "GPU idle waiting for the host (data supply)", " % of the step", false},
    {"idle_collective_wait_pct", "GPU idle waiting for a collective's peers", " % of the step", false},
    {"peak_reserved_gib", "peak reserved GPU memory", " GiB", true},
    {"peak_allocated_gib", "peak allocated GPU memory", " GiB", true},
    {"mfu_pct", "MFU (modelled GEMM/attention FLOPs)", " %", false},
};

typedef struct {
  bool have;
  double value;  /* mean over ranks, or max for memory */
  double worst;  /* the rank farthest in the bad direction (max) */
  long worst_rank;
  int n;         /* ranks that measured it */
} measure;

/* Collective kernel time per process-group size, over the ranks (collectives.by_group). */
#define MAX_GROUPS 16
typedef struct {
  int size;
  double sum, worst; /* of the ranks' pct_of_steps */
  long worst_rank;
} group;

struct evd_trace {
  char *path, *note;
  json_t *ranks; /* the summary's ranks (a reference) */
  measure m[M_COUNT];
  group groups[MAX_GROUPS];
  size_t ngroups;
  int group_ranks; /* ranks that listed their collectives by group */
  int nsteps;
  double device_gib; /* device_total_bytes of the ranks, 0 when not known */
  /* whose run it is: the world size distributedInfo gives, the highest rank and where it was
   * read (-1: not known) */
  long world_size, max_rank;
  const char *rank_source;
};

static long int_of(const json_t *o, const char *key) {
  const json_t *v = json_object_get(o, key);
  return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

/* One rank's identity: world size and rank. */
static void rank_identity(evd_trace *t, const json_t *rk, long rank) {
  long ws = int_of(rk, "world_size");
  if (ws > t->world_size) t->world_size = ws;
  if (rank > t->max_rank) {
    t->max_rank = rank;
    t->rank_source = json_string_value(json_object_get(rk, "rank_source"));
  }
}


static void add(measure *m, double v, long rank) {
  if (!isfinite(v)) return;
  if (!m->n || v > m->worst) {
    m->worst = v;
    m->worst_rank = rank;
  }
  m->value += v;
  m->n++;
  m->have = true;
}

static double num(const json_t *o, const char *key) {
  const json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* One rank's step figures: sums of the per-step values, as shares of the summed windows. */
static void rank_steps(evd_trace *t, const json_t *rk, long rank) {
  const json_t *steps = json_object_get(rk, "steps");
  double win = 0, comp = 0, comm = 0, data = 0, wait = 0;
  size_t i, n = json_array_size(steps);
  json_t *s;
  json_array_foreach(steps, i, s) {
    win += num(s, "window_us");
    comp += num(s, "compute_us");
    comm += num(s, "exposed_comm_us");
    data += num(s, "idle_data_supply_us");
    wait += num(s, "idle_collective_wait_us");
  }
  if (!n || !(win > 0)) return;
  if ((int)n > t->nsteps) t->nsteps = (int)n;
  add(&t->m[M_STEP_MS], win / (double)n / 1000.0, rank);
  add(&t->m[M_COMPUTE], 100.0 * comp / win, rank);
  add(&t->m[M_COMM], 100.0 * comm / win, rank);
  add(&t->m[M_DATA], 100.0 * data / win, rank);
  add(&t->m[M_COLLWAIT], 100.0 * wait / win, rank);
}

static void rank_groups(evd_trace *t, const json_t *rk, long rank) {
  const json_t *bg = json_object_get(json_object_get(rk, "collectives"), "by_group");
  if (!json_is_array(bg)) return;
  t->group_ranks++;
  size_t i;
  json_t *g;
  json_array_foreach(bg, i, g) {
    double gs = num(g, "group_size"), pct = num(g, "pct_of_steps");
    if (!(gs >= 1 && gs < 1e9) || !isfinite(pct)) continue; /* not finite: a summary is data */
    int size = (int)gs;
    size_t j = 0;
    while (j < t->ngroups && t->groups[j].size != size) j++;
    if (j == t->ngroups) {
      if (t->ngroups == MAX_GROUPS) continue;
      t->groups[t->ngroups++] = (group){size, 0, -1, -1};
    }
    t->groups[j].sum += pct;
    if (pct > t->groups[j].worst) {
      t->groups[j].worst = pct;
      t->groups[j].worst_rank = rank;
    }
  }
}

static void rank_memory(evd_trace *t, const json_t *rk, long rank) {
  const json_t *mem = json_object_get(rk, "memory");
  if (!json_is_true(json_object_get(mem, "measured"))) return;
  add(&t->m[M_RESERVED], num(mem, "peak_reserved_bytes") / GIB, rank);
  add(&t->m[M_ALLOCATED], num(mem, "peak_allocated_bytes") / GIB, rank);
  double dev = num(mem, "device_total_bytes");
  if (dev > 0) t->device_gib = dev / GIB;
}

evd_trace *evd_trace_from(const json_t *summary, const char *path) {
  evd_trace *t = pd_xcalloc(1, sizeof *t);
  t->path = pd_xstrdup(path);
  const json_t *jobs = json_object_get(summary, "jobs");
  if (json_is_array(jobs) && json_array_size(jobs) > 0) {
    t->note = pd_xasprintf("the folder holds %zu profiling runs; the first (job 1) is used",
                           json_array_size(jobs));
    summary = json_array_get(jobs, 0);
  }
  t->ranks = json_incref(json_object_get(summary, "ranks"));
  t->world_size = t->max_rank = -1;
  size_t i;
  json_t *rk;
  json_array_foreach(t->ranks, i, rk) {
    if (json_object_get(rk, "error")) continue;
    long rank = json_is_integer(json_object_get(rk, "rank")) ? (long)json_integer_value(json_object_get(rk, "rank")) : (long)i;
    rank_identity(t, rk, rank);
    rank_steps(t, rk, rank);
    rank_memory(t, rk, rank);
    rank_groups(t, rk, rank);
    const json_t *fl = json_object_get(rk, "flops");
    add(&t->m[M_MFU], num(fl, "mfu_pct"), rank);
  }
  for (int k = 0; k < M_COUNT; k++) {
    measure *m = &t->m[k];
    if (m->n && !measures[k].worst_is_max) m->value /= m->n;
    else if (m->n) m->value = m->worst;
  }
  return t;
}

void evd_trace_free(evd_trace *t) {
  if (!t) return;
  json_decref(t->ranks);
  free(t->path);
  free(t->note);
  free(t);
}

const char *evd_path(const evd_trace *t) { return t->path; }

static int measure_id(const char *name) {
  for (int k = 0; name && k < M_COUNT; k++)
    if (!strcmp(measures[k].name, name)) return k;
  return -1;
}

/* "OP RHS" with RHS a number, a fact, or NUMBER*fact. False when it does not parse or the fact
 * is unknown; otherwise *holds says whether `x OP RHS` is true and *rhs is RHS. */
static bool compare(const char *spec, double x, const au_facts *f, bool *holds, double *rhs) {
  char op[3] = {0};
  size_t k = 0;
  while (*spec == ' ') spec++;
  while (k < 2 && (*spec == '<' || *spec == '>' || *spec == '=')) op[k++] = *spec++;
  char *end;
  double factor = strtod(spec, &end);
  double v = factor;
  if (end == spec) factor = 1; /* a bare fact */
  else if (*end == '*') end++;
  else if (*end == '\0' || *end == ' ') goto done;
  else return false;
  while (*end == ' ') end++;
  ax_value fv;
  if (!af_get(f, end, &fv) || fv.kind != AX_NUM) return false;
  v = factor * fv.num;
done:
  *rhs = v;
  if (!strcmp(op, ">=")) *holds = x >= v;
  else if (!strcmp(op, ">")) *holds = x > v;
  else if (!strcmp(op, "<=")) *holds = x <= v;
  else if (!strcmp(op, "<")) *holds = x < v;
  else return false;
  return true;
}


static char *measured_text(const evd_trace *t, int k) {
  const measure *m = &t->m[k];
  pd_buf b = {0};
  pd_buf_printf(&b, "%s %.1f%s", measures[k].label, m->value, measures[k].unit);
  if (measures[k].worst_is_max) pd_buf_printf(&b, " (rank %ld", m->worst_rank);
  else pd_buf_printf(&b, " (mean of %d rank%s", m->n, m->n == 1 ? "" : "s");
  if (t->nsteps) pd_buf_printf(&b, ", %d profiled step%s", t->nsteps, t->nsteps == 1 ? "" : "s");
  if (!measures[k].worst_is_max && m->n > 1) pd_buf_printf(&b, "; worst rank %ld: %.1f", m->worst_rank, m->worst);
  pd_buf_printf(&b, ") in %s", t->path);
  return pd_buf_take(&b);
}

static void verdict(au_finding *f, const char *text, double x, const json_t *spec, const au_facts *facts);

/* "group_comm_pct" with "group": "tp" | "cp" | "dp" | "ep": the collective kernel time of the
 * groups of that size, when no other parallel dimension has the same size. */
static void judge_group(au_finding *f, const evd_trace *t, const json_t *spec, const au_facts *facts) {
  static const char *const dims[] = {"tp", "cp", "dp", "ep"};
  const char *dim = json_string_value(json_object_get(spec, "group"));
  ax_value v;
  if (!dim || !af_get(facts, dim, &v) || v.kind != AX_NUM || v.num < 2) {
    f->evidence = pd_xasprintf("no %s group to measure (the %s size is not known or is 1)", dim ? dim : "(unnamed)", dim ? dim : "group");
    f->evidence_verdict = "inconclusive";
    return;
  }
  int size = (int)v.num;
  for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
    ax_value o;
    if (strcmp(dims[i], dim) != 0 && af_get(facts, dims[i], &o) && o.kind == AX_NUM && (int)o.num == size) {
      f->evidence = pd_xasprintf("collectives of group size %d cannot be told apart: %s and %s are both %d (in %s)", size, dim,
                                 dims[i], size, t->path);
      f->evidence_verdict = "inconclusive";
      return;
    }
  }
  const group *g = NULL;
  for (size_t j = 0; j < t->ngroups && !g; j++)
    if (t->groups[j].size == size) g = &t->groups[j];
  if (!g) {
    f->evidence = pd_xasprintf("no collective of group size %d (the %s groups) recorded in %s%s", size, dim, t->path,
                               t->ngroups ? "" : ": its NCCL kernels do not carry their group size");
    f->evidence_verdict = "inconclusive";
    return;
  }
  double x = t->group_ranks ? g->sum / t->group_ranks : 0;
  char *text = pd_xasprintf("collective kernel time in the %s groups (size %d, waiting for peers included) %.1f %% of the step "
                            "(mean of %d rank%s; worst rank %ld: %.1f) in %s", dim, size, x, t->group_ranks,
                            t->group_ranks == 1 ? "" : "s", g->worst_rank, g->worst, t->path);
  verdict(f, text, x, spec, facts);
  free(text);
}

/* The verdict for one finding; sets f's evidence fields. */
static void judge(au_finding *f, const evd_trace *t, const json_t *spec, const au_facts *facts) {
  const char *name = json_string_value(json_object_get(spec, "measure"));
  if (name && !strcmp(name, "group_comm_pct")) {
    judge_group(f, t, spec, facts);
    return;
  }
  int k = measure_id(name);
  if (k < 0) {
    f->evidence = pd_xasprintf("the rule's evidence entry names an unknown measure '%s'", name ? name : "(none)");
    f->evidence_verdict = "inconclusive";
    return;
  }
  if (!t->m[k].have) {
    f->evidence = pd_xasprintf("%s: not measured in %s%s", measures[k].label, t->path,
                               k == M_RESERVED || k == M_ALLOCATED ? " (recorded without --profile-with-memory)" : "");
    f->evidence_verdict = "inconclusive";
    return;
  }
  char *text = measured_text(t, k);
  verdict(f, text, t->m[k].value, spec, facts);
  free(text);
}

/* Sets the verdict of measured value x against the entry's thresholds. */
static void verdict(au_finding *f, const char *text, double x, const json_t *spec, const au_facts *facts) {
  double rhs;
  bool yes = false, no = false, ok = true;
  const char *c = json_string_value(json_object_get(spec, "confirms_if"));
  const char *d = json_string_value(json_object_get(spec, "contradicts_if"));
  if (c) ok &= compare(c, x, facts, &yes, &rhs);
  if (ok && d) ok &= compare(d, x, facts, &no, &rhs);
  if (!ok) {
    f->evidence = pd_xasprintf("%s; the threshold could not be evaluated (a fact it names is not known)", text);
    f->evidence_verdict = "inconclusive";
    return;
  }
  f->evidence_verdict = yes ? "confirms" : no ? "contradicts" : "inconclusive";
  bool lower = no && !yes && f->severity > AU_INFO;
  f->evidence = lower ? pd_xasprintf("%s: the trace contradicts the estimate (%s), so the finding is lowered one level", text, d)
                      : pd_xstrdup(text);
  if (lower) {
    f->severity_before = (int)f->severity;
    f->severity = (au_severity)(f->severity - 1);
  }
}

char *evd_mismatch(const evd_trace *t, const au_result *r, const char *lang) {
  double ga = af_num(r->facts, AF_G_A, NAN);
  if (t->world_size > 0 && isfinite(ga) && (double)t->world_size != ga) {
    char w[24];
    snprintf(w, sizeof w, "%ld", t->world_size);
    ax_value a = ax_str(w);
    return au_say(r, AU_MSG_EVD_MISMATCH_WORLD, lang, &a);
  }
  if (t->max_rank >= 0 && isfinite(ga) && (double)t->max_rank >= ga &&
      !(t->rank_source && !strcmp(t->rank_source, "default"))) {
    ax_value a[2] = {ax_num((double)t->max_rank), ax_str(t->rank_source ? t->rank_source : "")};
    return au_say(r, AU_MSG_EVD_MISMATCH_RANK, lang, a);
  }
  return NULL;
}

size_t evd_apply(au_result *r, const evd_trace *t) {
  size_t n = 0;
  char *other = evd_mismatch(t, r, "en");
  free(other);
  if (other) return 0; /* another job's trace: it says nothing about these findings */
  for (size_t i = 0; i < r->nfindings; i++) {
    au_finding *f = &r->findings[i];
    const json_t *spec = au_rule_evidence(r->rules, f->rule);
    if (!spec) continue;
    judge(f, t, spec, r->facts);
    n++;
  }
  return n;
}

/* The estimated-vs-measured rows: the memory peak (the audit's estimate for the actor) and the
 * figures the audit does not estimate (said so). */
typedef struct {
  const char *quantity, *unit;
  double est, meas;
  bool has_est, has_meas;
  const char *where;
} row;

static size_t rows_of(const evd_trace *t, const au_result *r, row out[4]) {
  double peak = af_num(r->facts, AF_PEAK, NAN), M = af_num(r->facts, AF_M, NAN);
  const measure *res = &t->m[M_RESERVED];
  out[0] = (row){"GPU memory peak per actor GPU (reserved)", "GiB", peak, res->value, isfinite(peak), res->have,
                 "memory estimate (rules-catalog D) vs the [memory] events' peak"};
  out[1] = (row){"GPU memory of the device", "GiB", M, t->device_gib, isfinite(M), t->device_gib > 0,
                 "device table (--gpu) vs deviceProperties.totalGlobalMem"};
  out[2] = (row){"step time", "ms", NAN, t->m[M_STEP_MS].value, false, t->m[M_STEP_MS].have,
                 "not estimated by the audit; measured over the ProfilerStep windows"};
  out[3] = (row){"MFU", "%", NAN, t->m[M_MFU].value, false, t->m[M_MFU].have,
                 "not estimated by the audit; modelled GEMM/attention FLOPs over the step"};
  return 4;
}

json_t *evd_trace_json(const evd_trace *t, const au_result *r) {
  json_t *rows = json_array();
  row rs[4];
  size_t n = rows_of(t, r, rs);
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:s}", "quantity", rs[i].quantity, "unit", rs[i].unit, "estimated",
                          rs[i].has_est ? json_real(round(rs[i].est * 100) / 100) : json_null(), "measured",
                          rs[i].has_meas ? json_real(round(rs[i].meas * 100) / 100) : json_null(), "where", rs[i].where);
    bool err = rs[i].has_est && rs[i].has_meas && rs[i].meas > 0;
    json_object_set_new(o, "error_pct", err ? json_real(round(1000 * (rs[i].est - rs[i].meas) / rs[i].meas) / 10) : json_null());
    json_array_append_new(rows, o);
  }
  json_t *meas = json_object();
  for (int k = 0; k < M_COUNT; k++)
    json_object_set_new(meas, measures[k].name, t->m[k].have ? json_real(round(t->m[k].value * 100) / 100) : json_null());
  json_t *o = json_pack("{s:s, s:O, s:o, s:o}", "path", t->path, "ranks", t->ranks ? t->ranks : json_null(), "measures",
                        meas, "estimated_vs_measured", rows);
  if (!json_is_array(json_object_get(o, "ranks"))) json_object_set_new(o, "ranks", json_array());
  if (t->note) json_object_set_new(o, "note", json_string(t->note));
  char *other = evd_mismatch(t, r, "en");
  if (other) json_object_set_new(o, "mismatch", json_string(other));
  free(other);
  return o;
}

static void cell(pd_buf *b, bool have, double v, const char *unit, const char *none) {
  if (have) pd_buf_printf(b, " %.1f %s |", v, unit);
  else pd_buf_printf(b, " %s |", none);
}

char *evd_markdown(const evd_trace *t, const au_result *r, const char *lang) {
  pd_buf b = {0};
  pd_buf_printf(&b, "## Measured by the trace\n\nTrace: `%s`", t->path);
  if (t->note) pd_buf_printf(&b, " (%s)", t->note);
  pd_buf_puts(&b, "\n\n");
  char *other = evd_mismatch(t, r, lang);
  if (other) {
    ax_value a = ax_str(other);
    char *line = au_say(r, AU_MSG_EVD_MISMATCH_MD, lang, &a);
    pd_buf_puts(&b, line);
    free(line);
    free(other);
  }
  pd_buf_puts(&b, "| Quantity | Estimated | Measured | Error | Basis |\n|---|---|---|---|---|\n");
  row rs[4];
  size_t n = rows_of(t, r, rs);
  for (size_t i = 0; i < n; i++) {
    pd_buf_printf(&b, "| %s |", rs[i].quantity);
    cell(&b, rs[i].has_est, rs[i].est, rs[i].unit, "not estimated");
    cell(&b, rs[i].has_meas, rs[i].meas, rs[i].unit, "not measured");
    if (rs[i].has_est && rs[i].has_meas && rs[i].meas > 0)
      pd_buf_printf(&b, " %+.0f %% |", 100 * (rs[i].est - rs[i].meas) / rs[i].meas);
    else
      pd_buf_puts(&b, " — |");
    pd_buf_printf(&b, " %s |\n", rs[i].where);
  }
  double M = af_num(r->facts, AF_M, NAN);
  if (t->device_gib > 0 && isfinite(M) && fabs(t->device_gib - M) > 0.05 * M)
    pd_buf_printf(&b, "\nThe trace ran on a device with %.1f GiB; the audit assumed %.1f GiB (%s): its memory "
                  "figures are for that GPU. Pass `--gpu` to audit for the device the trace measured.\n",
                  t->device_gib, M, af_str(r->facts, AF_GPU_DISPLAY) ? af_str(r->facts, AF_GPU_DISPLAY) : "the GPU given");
  pd_buf_puts(&b, "\nMeasured shares of the step (mean over ranks):");
  for (int k = M_COMPUTE; k <= M_COLLWAIT; k++) {
    if (t->m[k].have) pd_buf_printf(&b, " %s %.1f %%;", measures[k].label, t->m[k].value);
    else pd_buf_printf(&b, " %s not measured;", measures[k].label);
  }
  b.data[b.len - 1] = '.';
  pd_buf_puts(&b, "\n");
  return pd_buf_take(&b);
}
