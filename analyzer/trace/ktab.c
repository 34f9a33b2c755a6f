#include "trace/ktab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "trace/kname.h"

/* What the JSON's "basis" says (a fixed value of the document, not a sentence of the markdown). */
static const char BASIS[] = "HTA's kernel table (the events of its iterations) summed over the ranks";

static const char *class_name(int cls) {
  switch (cls) {
  case TR_COMP: return "COMPUTATION";
  case TR_COMM: return "COMMUNICATION";
  case TR_MEM: return "MEMORY";
  default: return "OTHER";
  }
}

static int by_time(const void *pa, const void *pb) {
  const tr_ktab_row *a = pa, *b = pb;
  if (a->sum_us != b->sum_us) return a->sum_us < b->sum_us ? 1 : -1;
  return strcmp(a->name, b->name);
}

void tr_ktab_build(const tr_report *rep, tr_ktab *t) {
  memset(t, 0, sizeof *t);
  pd_map idx = {0};
  size_t cap = 0;
  for (size_t i = 0; i < rep->n; i++) {
    const tr_rank *r = rep->ranks[i];
    if (r->err) continue;
    if (!t->ranks++) t->iterations = (long)r->hta.n_iterations;
    for (size_t k = 0; k < r->hta.n_kernel_stats; k++) {
      const tr_kernel_stat *s = &r->hta.kernels[k];
      bool added;
      pd_map_slot *slot = pd_map_put(&idx, s->name, &added);
      if (added) {
        slot->value = t->n;
        *PD_PUSH(t->v, t->n, cap) = (tr_ktab_row){s->name, s->cls, 0, 0, 0, s->min_us, s->max_us};
      }
      tr_ktab_row *row = &t->v[slot->value];
      row->ranks++;
      row->count += s->count;
      row->sum_us += s->sum_us;
      row->min_us = fmin(row->min_us, s->min_us);
      row->max_us = fmax(row->max_us, s->max_us);
      t->total_us += s->sum_us;
    }
  }
  pd_map_free(&idx);
  if (t->n) qsort(t->v, t->n, sizeof *t->v, by_time);
}

void tr_ktab_free(tr_ktab *t) {
  free(t->v);
  memset(t, 0, sizeof *t);
}

static json_t *jn(double x) {
  if (!isfinite(x)) return json_null();
  double r = round(x * 1000.0) / 1000.0;
  if (r == floor(r) && fabs(r) < 9e15) return json_integer((json_int_t)r);
  return json_real(r);
}

json_t *tr_ktab_json(const tr_ktab *t) {
  json_t *o = json_object(), *rows = json_array();
  json_object_set_new(o, "basis", json_string(BASIS));
  json_object_set_new(o, "ranks", json_integer(t->ranks));
  json_object_set_new(o, "iterations", json_integer(t->iterations));
  json_object_set_new(o, "distinct", json_integer((json_int_t)t->n));
  json_object_set_new(o, "total_us", jn(t->total_us));
  for (size_t i = 0; i < t->n; i++) {
    const tr_ktab_row *r = &t->v[i];
    json_t *e = json_object();
    json_object_set_new(e, "name", json_string(r->name));
    json_object_set_new(e, "type", json_string(class_name(r->cls)));
    json_object_set_new(e, "ranks", json_integer(r->ranks));
    json_object_set_new(e, "count", json_integer(r->count));
    json_object_set_new(e, "sum_us", jn(r->sum_us));
    json_object_set_new(e, "mean_us", jn(r->count ? r->sum_us / (double)r->count : NAN));
    json_object_set_new(e, "min_us", jn(r->min_us));
    json_object_set_new(e, "max_us", jn(r->max_us));
    json_object_set_new(e, "pct", jn(t->total_us > 0 ? round(1000.0 * r->sum_us / t->total_us) / 10.0 : NAN));
    json_array_append_new(rows, e);
  }
  json_object_set_new(o, "rows", rows);
  return o;
}

void tr_ktab_more_row(pd_buf *b, size_t more, double pct, int cols, const tr_text *tx) {
  if (!more) return;
  pd_buf_puts(b, "| ");
  TR_SAY(b, tx, TM_KT_MORE, PD_MI(more), PD_MF(pct));
  pd_buf_puts(b, " |");
  for (int c = 1; c < cols; c++) pd_buf_puts(b, " |");
  pd_buf_putc(b, '\n');
}

void tr_ktab_md(pd_buf *b, const tr_ktab *t, size_t top, const tr_text *tx) {
  pd_buf_putc(b, '\n');
  if (!t->n) {
    TR_SAY0(b, tx, TM_KT_NONE);
    pd_buf_putc(b, '\n');
    return;
  }
  if (t->ranks > 1) TR_SAY(b, tx, TM_KT_TITLE, PD_MI(t->ranks), PD_MI(t->n));
  else TR_SAY(b, tx, TM_KT_TITLE_ONE, PD_MI(t->n));
  pd_buf_puts(b, "\n\n");
  TR_SAY0(b, tx, TM_KT_HEAD);
  pd_buf_puts(b, "\n|---|---|---|---|---|---|---|\n");
  size_t k = t->n < top ? t->n : top;
  const char **names = pd_xmalloc((k ? k : 1) * sizeof *names);
  for (size_t i = 0; i < k; i++) names[i] = t->v[i].name;
  char **shown = tr_kname_table(names, k);
  double rest = t->total_us;
  for (size_t i = 0; i < k; i++) {
    const tr_ktab_row *r = &t->v[i];
    pd_buf_puts(b, "| ");
    tr_kname_md_code(b, shown[i]);
    pd_buf_printf(b, " | %s | %d | %ld | %.0f | %.1f | %.1f %% |\n", class_name(r->cls), r->ranks, r->count, r->sum_us,
                  r->count ? r->sum_us / (double)r->count : 0.0, t->total_us > 0 ? 100.0 * r->sum_us / t->total_us : 0.0);
    rest -= r->sum_us;
  }
  tr_ktab_more_row(b, t->n - k, t->total_us > 0 ? 100.0 * fmax(rest, 0) / t->total_us : 0.0, 7, tx);
  tr_kname_table_free(shown, k);
  free(names);
}
