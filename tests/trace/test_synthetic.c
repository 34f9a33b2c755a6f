/* Synthetic multi-rank traces with ground truth (gen_traces.py): the summary must find what was
 * built in, within 1 %: per-step compute and data-supply idle per rank, the slow-data rank,
 * the late all-reduce rank and every rank's wait for it, the compute spread across DP ranks,
 * and each PP stage's bubble against the simulated 1F1B schedule. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "base/alloc.h"
#include "harness.h"

static void check_close(const char *what, double got, double want) {
  pd_test_checks++;
  double tol = fabs(want) * 0.01 + 0.5; /* 1 %, plus half a µs for values near zero */
  if (!(fabs(got - want) <= tol)) {
    pd_test_failures++;
    fprintf(stderr, "%s: got %.3f, want %.3f\n", what, got, want);
  }
}

static double num(json_t *v) {
  if (json_is_integer(v)) return (double)json_integer_value(v);
  if (json_is_real(v)) return json_real_value(v);
  return NAN;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static json_t *load_truth(const char *scenario) {
  char *p = pd_xasprintf("%s/%s.truth.json", TRACE_SYNTH_DIR, scenario);
  json_error_t je;
  json_t *t = json_load_file(p, 0, &je);
  if (!t) fprintf(stderr, "%s: %s\n", p, je.text);
  CHECK(t != NULL);
  free(p);
  return t;
}

static json_t *summary(const char *scenario, char **md) {
  char *dir = pd_xasprintf("%s/%s", TRACE_SYNTH_DIR, scenario);
  tr_options o = {"json", 0, false, NULL, NULL, NULL, NULL};
  int failed = -1;
  char *err = NULL;
  char *text = tr_summarize_opts(dir, &o, &failed, &err);
  CHECK(text != NULL);
  CHECK_INT(failed, 0);
  if (err) fprintf(stderr, "%s\n", err);
  free(err);
  json_t *root = text ? json_loads(text, 0, NULL) : NULL;
  free(text);
  o.format = "md";
  *md = tr_summarize_opts(dir, &o, &failed, &err);
  free(err);
  free(dir);
  return root;
}

static json_t *rank_by_file(json_t *root, const char *file) {
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(root, "ranks"), i, r) {
    if (!strcmp(base_name(json_string_value(json_object_get(r, "file"))), file)) return r;
  }
  fprintf(stderr, "no rank for %s\n", file);
  pd_test_failures++;
  return NULL;
}

static json_t *step_of(json_t *rank, long step) {
  size_t i;
  json_t *s;
  json_array_foreach(json_object_get(rank, "steps"), i, s) {
    if (json_integer_value(json_object_get(s, "step")) == step) return s;
  }
  return NULL;
}

/* Per rank and step: window, compute and data supply as built; the parts add up. */
static void check_steps(json_t *root, json_t *truth, const char *scenario) {
  const char *file;
  json_t *tr;
  json_object_foreach(json_object_get(truth, "ranks"), file, tr) {
    json_t *r = rank_by_file(root, file);
    if (!r) continue;
    CHECK_INT(json_integer_value(json_object_get(r, "rank")), json_integer_value(json_object_get(tr, "rank")));
    const char *sn;
    json_t *ts;
    json_object_foreach(json_object_get(tr, "steps"), sn, ts) {
      json_t *s = step_of(r, atol(sn));
      CHECK(s != NULL);
      if (!s) continue;
      char what[256];
      snprintf(what, sizeof what, "%s %s step %s window", scenario, file, sn);
      check_close(what, num(json_object_get(s, "window_us")), num(json_object_get(ts, "window_us")));
      snprintf(what, sizeof what, "%s %s step %s compute", scenario, file, sn);
      check_close(what, num(json_object_get(s, "compute_us")), num(json_object_get(ts, "compute_us")));
      snprintf(what, sizeof what, "%s %s step %s data supply", scenario, file, sn);
      check_close(what, num(json_object_get(s, "idle_data_supply_us")), num(json_object_get(ts, "data_supply_us")));
      double sum = num(json_object_get(s, "compute_us")) + num(json_object_get(s, "exposed_comm_us")) +
                   num(json_object_get(s, "exposed_memcpy_us")) + num(json_object_get(s, "other_gpu_us")) +
                   num(json_object_get(s, "idle_collective_wait_us")) +
                   num(json_object_get(s, "idle_launch_bound_us")) + num(json_object_get(s, "idle_data_supply_us"));
      snprintf(what, sizeof what, "%s %s step %s parts sum", scenario, file, sn);
      check_close(what, sum, num(json_object_get(s, "window_us")));
    }
  }
}

/* Collective waits per rank and the straggler. */
static void check_collectives(json_t *root, json_t *truth, const char *scenario, const char *md) {
  const char *file;
  json_t *tr;
  json_object_foreach(json_object_get(truth, "ranks"), file, tr) {
    json_t *r = rank_by_file(root, file);
    if (!r) continue;
    json_t *c = json_object_get(r, "collectives");
    char what[256];
    snprintf(what, sizeof what, "%s %s wait for the last peer", scenario, file);
    check_close(what, num(json_object_get(c, "wait_us")), num(json_object_get(tr, "coll_wait_us")));
    snprintf(what, sizeof what, "%s %s wait caused", scenario, file);
    check_close(what, num(json_object_get(c, "imposed_wait_us")), num(json_object_get(tr, "imposed_wait_us")));
    CHECK_INT(json_integer_value(json_object_get(c, "arrived_last")),
              json_integer_value(json_object_get(tr, "arrived_last")));
    CHECK_INT(json_integer_value(json_object_get(c, "matched")), 3);
  }
  /* the straggler is the only rank listed as arriving last, and a hypothesis names it */
  json_t *last = json_object_get(json_object_get(json_object_get(root, "cross_rank"), "collectives"), "last_arrivals");
  CHECK_INT(json_array_size(last), 1);
  long want = (long)json_integer_value(json_object_get(truth, "straggler"));
  CHECK_INT(json_integer_value(json_object_get(json_array_get(last, 0), "rank")), want);
  char *needle = pd_xasprintf("rank %ld starts 3 of 3 matched collectives last", want);
  CHECK(md && strstr(md, needle));
  free(needle);
}

static void check_dataload(void) {
  char *md = NULL;
  json_t *truth = load_truth("dataload"), *root = summary("dataload", &md);
  if (!truth || !root) goto out;
  check_steps(root, truth, "dataload");
  check_collectives(root, truth, "dataload", md);
  CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(root, "cross_rank"), "collectives"), "matched_by")),
            "process group + Seq");
  /* the DP table names rank 2 as the one with the most data-supply idle, 50 ms above the median */
  size_t i;
  json_t *d;
  json_array_foreach(json_object_get(json_object_get(root, "cross_rank"), "dp_compute_spread"), i, d) {
    CHECK_INT(json_integer_value(json_object_get(d, "most_data_supply_rank")), 2);
    check_close("dataload excess data supply",
                num(json_object_get(d, "data_supply_max_us")) - num(json_object_get(d, "data_supply_median_us")), 50000);
  }
  CHECK(md && strstr(md, "rank 2 has 50.0 ms more data-supply idle") && strstr(md, "#1, #2, #3 (70.0 vs 20.0 ms"));
  /* rank from the file name: these traces have no distributedInfo */
  json_t *r;
  json_array_foreach(json_object_get(root, "ranks"), i, r) {
    CHECK_STR(json_string_value(json_object_get(r, "rank_source")), "file name");
  }
out:
  free(md);
  json_decref(truth);
  json_decref(root);
}

static void check_late(void) {
  char *md = NULL;
  json_t *truth = load_truth("late"), *root = summary("late", &md);
  if (!truth || !root) goto out;
  check_steps(root, truth, "late");
  check_collectives(root, truth, "late", md);
  CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(root, "cross_rank"), "collectives"), "matched_by")),
            "Comms Id");
  size_t i;
  json_t *d;
  json_array_foreach(json_object_get(json_object_get(root, "cross_rank"), "dp_compute_spread"), i, d) {
    CHECK_INT(json_integer_value(json_object_get(d, "slowest_rank")), 1);
    check_close("late compute max - min", num(json_object_get(d, "compute_max_us")) - num(json_object_get(d, "compute_min_us")), 30000);
  }
out:
  free(md);
  json_decref(truth);
  json_decref(root);
}

static void check_pipeline(void) {
  char *md = NULL;
  json_t *truth = load_truth("pipeline"), *root = summary("pipeline", &md);
  if (!truth || !root) goto out;
  check_steps(root, truth, "pipeline");
  json_t *rows = json_object_get(json_object_get(root, "cross_rank"), "pipeline");
  CHECK_INT(json_array_size(rows), json_array_size(json_object_get(truth, "pipeline")));
  size_t i, j;
  json_t *t, *row;
  json_array_foreach(json_object_get(truth, "pipeline"), i, t) {
    json_t *found = NULL;
    json_array_foreach(rows, j, row) {
      if (json_integer_value(json_object_get(row, "step")) == json_integer_value(json_object_get(t, "step")) &&
          json_integer_value(json_object_get(row, "dp")) == json_integer_value(json_object_get(t, "dp")))
        found = row;
    }
    CHECK(found != NULL);
    if (!found) continue;
    CHECK_INT(json_integer_value(json_object_get(found, "stages")), 4);
    CHECK_INT(json_integer_value(json_object_get(found, "micro_batches")), 8);
    check_close("ideal bubble", num(json_object_get(found, "ideal_bubble_pct")), num(json_object_get(t, "ideal_pct")));
    check_close("pipeline window", num(json_object_get(found, "window_us")), num(json_object_get(t, "window_us")));
    json_t *st;
    json_array_foreach(json_object_get(found, "per_stage"), j, st) {
      char key[16];
      snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(st, "pp")));
      char what[128];
      snprintf(what, sizeof what, "bubble step %lld dp %lld pp %s", (long long)json_integer_value(json_object_get(t, "step")),
               (long long)json_integer_value(json_object_get(t, "dp")), key);
      check_close(what, num(json_object_get(st, "bubble_pct")), num(json_object_get(json_object_get(t, "bubble_pct"), key)));
    }
  }
  /* old NCCL names without Seq: collectives matched by order; a symmetric job has no straggler */
  json_t *cj = json_object_get(json_object_get(root, "cross_rank"), "collectives");
  CHECK(strstr(json_string_value(json_object_get(cj, "matched_by")), "order") != NULL);
  CHECK_INT(json_integer_value(json_object_get(cj, "matched_instances")), 8);
  CHECK_INT(json_array_size(json_object_get(cj, "last_arrivals")), 0);
  CHECK(md && strstr(md, "| #1 | 0/0 | 4 | 8 | 27.3 % |"));
out:
  free(md);
  json_decref(truth);
  json_decref(root);
}

/* Reading the folder with one worker or several gives the same summary. */
static void check_parallel_determinism(void) {
  char *dir = pd_xasprintf("%s/pipeline", TRACE_SYNTH_DIR);
  char *texts[3];
  int jobs[3] = {1, 2, 8};
  for (int i = 0; i < 3; i++) {
    tr_options o = {"json", jobs[i], false, NULL, NULL, NULL, NULL};
    int failed = -1;
    char *err = NULL;
    texts[i] = tr_summarize_opts(dir, &o, &failed, &err);
    CHECK(texts[i] != NULL);
    free(err);
  }
  CHECK(texts[0] && texts[1] && texts[2] && !strcmp(texts[0], texts[1]) && !strcmp(texts[0], texts[2]));
  for (int i = 0; i < 3; i++) free(texts[i]);
  free(dir);
}

int main(void) {
  check_parallel_determinism();
  check_dataload();
  check_late();
  check_pipeline();
  return pd_test_exit("trace_synthetic");
}
