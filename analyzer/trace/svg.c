#include "trace/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "trace/kname.h"
#include "trace/summary.h"

#define W 960
#define LEFT 90   /* room for the rank labels */
#define RIGHT 20
#define ROW 18    /* one rank's bar */
#define MAX_RANKS 64

/* The kinds of a step's time: the step's field, the segment's data-kind (the same in every
 * language: scripts read it), its colour and its label. */
static const struct {
  const char *key, *label, *color;
  tr_msg_id msg;
} kinds[] = {
    {"compute_us", "compute", "#2e7d32", TM_SVG_KIND_COMPUTE},
    {"exposed_comm_us", "exposed communication", "#c62828", TM_SVG_KIND_COMM},
    {"exposed_memcpy_us", "exposed copies", "#f9a825", TM_SVG_KIND_COPIES},
    {"other_gpu_us", "other GPU", "#6d4c41", TM_SVG_KIND_OTHER},
    {"idle_data_supply_us", "idle: data supply", "#1565c0", TM_SVG_KIND_DATA},
    {"idle_collective_wait_us", "idle: collective wait", "#8e24aa", TM_SVG_KIND_COLL_WAIT},
    {"idle_launch_bound_us", "idle: launch-bound", "#90a4ae", TM_SVG_KIND_LAUNCH},
};
#define NKINDS (sizeof kinds / sizeof *kinds)


static long rank_no(const json_t *rk, size_t i) {
  const json_t *r = json_object_get(rk, "rank");
  return json_is_integer(r) ? (long)json_integer_value(r) : (long)i;
}

/* Appends text with XML's special characters escaped. */
static void xml_text(pd_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '<') pd_buf_puts(b, "&lt;");
    else if (*s == '>') pd_buf_puts(b, "&gt;");
    else if (*s == '&') pd_buf_puts(b, "&amp;");
    else if (*s == '"') pd_buf_puts(b, "&quot;");
    else pd_buf_putc(b, *s);
  }
}

/* Appends message id, XML-escaped. */
static void say_xml(pd_buf *b, const tr_text *tx, tr_msg_id id, const pd_marg *args, size_t n) {
  char *s = tr_said(tx, id, args, n);
  xml_text(b, s);
  free(s);
}
#define SAY_XML(b, tx, id, ...) say_xml(b, tx, id, TR_ARGS_(__VA_ARGS__))
#define SAY_XML0(b, tx, id) say_xml(b, tx, id, NULL, 0)

#define TITLE_KERNELS 3

/* A rank label's hover: its longest kernels by total time, under short names. */
static void rank_title(pd_buf *b, const json_t *rk, long rank, const tr_text *tx) {
  const json_t *top = json_object_get(json_object_get(rk, "hta"), "top_kernels");
  size_t k = json_array_size(top) < TITLE_KERNELS ? json_array_size(top) : TITLE_KERNELS;
  pd_buf_puts(b, "<title>");
  if (!k) {
    pd_buf_printf(b, "rank %ld</title>", rank);
    return;
  }
  const char *names[TITLE_KERNELS];
  for (size_t i = 0; i < k; i++) {
    names[i] = json_string_value(json_object_get(json_array_get(top, i), "name"));
    if (!names[i]) names[i] = "";
  }
  char **shown = tr_kname_table(names, k);
  pd_buf list = {0};
  for (size_t i = 0; i < k; i++)
    pd_buf_printf(&list, "%s%s %.2f ms", i ? "; " : "", shown[i], tr_summary_num(json_array_get(top, i), "sum_us") / 1000);
  SAY_XML(b, tx, TM_SVG_RANK_KERNELS, PD_MI(rank), PD_MS(list.data));
  pd_buf_puts(b, "</title>");
  pd_buf_free(&list);
  tr_kname_table_free(shown, k);
}

/* A "nice" tick step for a range: 1, 2 or 5 times a power of ten, about 6 ticks. */
static double tick_step(double range) {
  if (!(range > 0)) return 1;
  double raw = range / 6, p = pow(10, floor(log10(raw))), m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void axis_x(pd_buf *b, double y, double max, const tr_text *tx, tr_msg_id unit) {
  double step = tick_step(max), scale = (W - LEFT - RIGHT) / max;
  pd_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#444\"/>\n", LEFT, y, W - RIGHT, y);
  for (double t = 0; t <= max * 1.0001; t += step) {
    double x = LEFT + t * scale;
    pd_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>", x, y, x, y + 4);
    pd_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%g</text>\n", x, y + 15, t);
  }
  pd_buf_printf(b, "<text class=\"axis-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
                (LEFT + W - RIGHT) / 2, y + 30);
  SAY_XML0(b, tx, unit);
  pd_buf_puts(b, "</text>\n");
}

/* A panel's title. */
static void panel_title(pd_buf *b, double y, const tr_text *tx, tr_msg_id id) {
  pd_buf_printf(b, "<text x=\"10\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">", y);
  SAY_XML0(b, tx, id);
  pd_buf_puts(b, "</text>\n");
}

/* A line of text at the left of a panel. */
static void panel_note(pd_buf *b, double y, const tr_text *tx, tr_msg_id id) {
  pd_buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\">", LEFT, y);
  SAY_XML0(b, tx, id);
  pd_buf_puts(b, "</text>\n");
}

/* Panel 1: the steps of each rank end to end, stacked by kind. Returns the y below it. */
static double bars(pd_buf *b, const json_t *ranks, size_t n, double y, const tr_text *tx) {
  double max = 0;
  for (size_t i = 0; i < n; i++) {
    double tot = 0;
    size_t k;
    json_t *s;
    json_array_foreach(json_object_get(json_array_get(ranks, i), "steps"), k, s) tot += tr_summary_num(s, "window_us") / 1000;
    if (tot > max) max = tot;
  }
  panel_title(b, y, tx, TM_SVG_BARS_TITLE);
  y += 14;
  char *label[NKINDS];
  for (size_t k = 0; k < NKINDS; k++) { /* legend */
    label[k] = TR_SAID0(tx, kinds[k].msg);
    pd_buf_printf(b, "<rect x=\"%zu\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%zu\" y=\"%.1f\" "
                  "font-size=\"10\">", 10 + k * 130, y, kinds[k].color, 24 + k * 130, y + 9);
    xml_text(b, label[k]);
    pd_buf_puts(b, "</text>\n");
  }
  y += 20;
  if (!(max > 0)) {
    panel_note(b, y + 12, tx, TM_SVG_NO_STEPS);
    for (size_t k = 0; k < NKINDS; k++) free(label[k]);
    return y + 30;
  }
  double scale = (W - LEFT - RIGHT) / max;
  for (size_t i = 0; i < n; i++, y += ROW + 4) {
    const json_t *rk = json_array_get(ranks, i);
    pd_buf_printf(b, "<text class=\"rank\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">rank %ld", LEFT - 6,
                  y + ROW - 5, rank_no(rk, i));
    rank_title(b, rk, rank_no(rk, i), tx);
    pd_buf_puts(b, "</text>\n");
    double x = LEFT;
    size_t si;
    json_t *s;
    json_array_foreach(json_object_get(rk, "steps"), si, s) {
      double x0 = x;
      for (size_t k = 0; k < NKINDS; k++) {
        double w = tr_summary_num(s, kinds[k].key) / 1000 * scale;
        if (!(w > 0)) continue;
        pd_buf_printf(b, "<rect class=\"seg\" data-rank=\"%ld\" data-step=\"%lld\" data-kind=\"%s\" x=\"%.2f\" y=\"%.1f\" "
                      "width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
                      rank_no(rk, i), tr_summary_int(s, "step"), kinds[k].label, x, y, w, ROW, kinds[k].color);
        SAY_XML(b, tx, TM_SVG_SEGMENT, PD_MI(rank_no(rk, i)), PD_MI(tr_summary_int(s, "step")), PD_MS(label[k]),
                PD_MF(tr_summary_num(s, kinds[k].key) / 1000));
        pd_buf_puts(b, "</title></rect>\n");
        x += w;
      }
      x = x0 + tr_summary_num(s, "window_us") / 1000 * scale; /* the step's own width: what the kinds leave is unattributed */
      pd_buf_printf(b, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#fff\"/>\n", x, y, x, y + ROW);
    }
  }
  for (size_t k = 0; k < NKINDS; k++) free(label[k]);
  axis_x(b, y + 2, max, tx, TM_SVG_AXIS_TIME);
  return y + 50;
}

/* Panel 2: per-step peak reserved memory per rank. */
static double memory(pd_buf *b, const json_t *ranks, size_t n, double y, const tr_text *tx) {
  double max = 0;
  size_t steps = 0;
  for (size_t i = 0; i < n; i++) {
    const json_t *m = json_object_get(json_array_get(ranks, i), "memory");
    if (!json_is_true(json_object_get(m, "measured"))) continue;
    size_t k;
    json_t *s;
    json_array_foreach(json_object_get(m, "steps"), k, s) if (tr_summary_num(s, "peak_reserved_bytes") > max) max = tr_summary_num(s, "peak_reserved_bytes");
    if (json_array_size(json_object_get(m, "steps")) > steps) steps = json_array_size(json_object_get(m, "steps"));
  }
  panel_title(b, y, tx, TM_SVG_MEM_TITLE);
  if (!(max > 0) || !steps) {
    panel_note(b, y + 18, tx, TM_SVG_MEM_NONE);
    return y + 40;
  }
  double gib = max / 1073741824.0, top = y + 14, h = 120, dx = (W - LEFT - RIGHT) / (double)(steps > 1 ? steps - 1 : 1);
  double step = tick_step(gib);
  for (double t = 0; t <= gib * 1.0001; t += step) {
    double yy = top + h - t / gib * h;
    pd_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
                  "font-size=\"10\" text-anchor=\"end\">%g</text>\n", LEFT, yy, W - RIGHT, yy, LEFT - 6, yy + 3, t);
  }
  pd_buf_printf(b, "<text class=\"axis-label\" x=\"14\" y=\"%.1f\" font-size=\"11\" transform=\"rotate(-90 14 %.1f)\" "
                "text-anchor=\"middle\">GiB</text>\n", top + h / 2, top + h / 2);
  for (size_t i = 0; i < n; i++) {
    const json_t *m = json_object_get(json_array_get(ranks, i), "memory");
    if (!json_is_true(json_object_get(m, "measured"))) continue;
    pd_buf_printf(b, "<polyline class=\"mem\" data-rank=\"%ld\" fill=\"none\" stroke=\"hsl(%zu,60%%,40%%)\" points=\"",
                  rank_no(json_array_get(ranks, i), i), (i * 47) % 360);
    size_t k;
    json_t *s;
    json_array_foreach(json_object_get(m, "steps"), k, s)
      pd_buf_printf(b, "%.1f,%.1f ", LEFT + k * dx, top + h - tr_summary_num(s, "peak_reserved_bytes") / max * h);
    pd_buf_puts(b, "\"/>\n");
  }
  pd_buf_printf(b, "<text class=\"axis-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
                (LEFT + W - RIGHT) / 2, top + h + 18);
  SAY_XML0(b, tx, TM_SVG_AXIS_STEP);
  pd_buf_puts(b, "</text>\n");
  return top + h + 40;
}

/* Panel 3: per step, the ranks' compute time as a heat row. */
static double heat(pd_buf *b, const json_t *ranks, size_t n, double y, const tr_text *tx) {
  size_t steps = 0;
  for (size_t i = 0; i < n; i++)
    if (json_array_size(json_object_get(json_array_get(ranks, i), "steps")) > steps)
      steps = json_array_size(json_object_get(json_array_get(ranks, i), "steps"));
  panel_title(b, y, tx, TM_SVG_HEAT_TITLE);
  y += 10;
  double cw = (W - LEFT - RIGHT) / (double)(n ? n : 1);
  for (size_t s = 0; s < steps; s++, y += ROW + 2) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      double v = tr_summary_num(json_array_get(json_object_get(json_array_get(ranks, i), "steps"), s), "compute_us");
      if (isfinite(v)) lo = fmin(lo, v), hi = fmax(hi, v);
    }
    pd_buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">", LEFT - 6, y + ROW - 5);
    SAY_XML(b, tx, TM_SVG_HEAT_STEP, PD_MI(s + 1));
    pd_buf_puts(b, "</text>\n");
    for (size_t i = 0; i < n; i++) {
      double v = tr_summary_num(json_array_get(json_object_get(json_array_get(ranks, i), "steps"), s), "compute_us");
      if (!isfinite(v)) continue;
      double f = hi > lo ? (v - lo) / (hi - lo) : 0;
      pd_buf_printf(b, "<rect class=\"heat\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"hsl(20,80%%,%.0f%%)\">"
                    "<title>", LEFT + i * cw, y, cw - 1, ROW, 90 - 55 * f);
      SAY_XML(b, tx, TM_SVG_HEAT_CELL, PD_MI(rank_no(json_array_get(ranks, i), i)), PD_MI(s + 1), PD_MF(v / 1000));
      pd_buf_puts(b, "</title></rect>\n");
    }
  }
  pd_buf_printf(b, "<text class=\"axis-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
                (LEFT + W - RIGHT) / 2, y + 14);
  SAY_XML0(b, tx, TM_SVG_AXIS_RANKS);
  pd_buf_puts(b, "</text>\n");
  return y + 30;
}

char *tr_svg(const json_t *summary, const tr_text *given) {
  tr_text own;
  const tr_text *tx = tr_text_or_builtin(given, &own);
  json_t *all = tr_summary_job_ranks(summary);
  /* the readable ranks, at most MAX_RANKS */
  json_t *ranks = json_array();
  size_t i, total = 0;
  json_t *rk;
  json_array_foreach(all, i, rk) {
    if (json_object_get(rk, "error")) continue;
    total++;
    if (json_array_size(ranks) < MAX_RANKS) json_array_append(ranks, rk);
  }
  json_decref(all);
  size_t n = json_array_size(ranks);
  pd_buf body = {0};
  double y = 24;
  if (total > n) {
    pd_buf_printf(&body, "<text x=\"10\" y=\"%.1f\" font-size=\"11\">", y);
    SAY_XML(&body, tx, TM_SVG_FIRST_RANKS, PD_MI(n), PD_MI(total));
    pd_buf_puts(&body, "</text>\n");
    y += 18;
  }
  y = bars(&body, ranks, n, y, tx);
  y = memory(&body, ranks, n, y + 10, tx);
  y = heat(&body, ranks, n, y + 10, tx);
  json_decref(ranks);
  pd_buf b = {0};
  pd_buf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                "fill=\"#fff\"/>\n", W, y, W, y);
  pd_buf_append(&b, body.data, body.len);
  pd_buf_puts(&b, "</svg>\n");
  pd_buf_free(&body);
  tr_text_release(&own);
  return pd_buf_take(&b);
}
