/* HTA parity on the real traces in tests/fixtures/traces/hta: the numbers HTA 0.6.1 printed for
 * each trace and rank (that folder's README.md) must come out of `tr_summarize` within 0.1 %. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "harness.h"

#define TRACES PD_HTA_DIR "/"

static void check_close(const char *what, double got, double want, double rel) {
  pd_test_checks++;
  double tol = fabs(want) * rel;
  if (tol < 1e-9) tol = 1e-9;
  if (!(fabs(got - want) <= tol)) {
    pd_test_failures++;
    fprintf(stderr, "%s: got %.4f, want %.4f (tolerance %.4f)\n", what, got, want, tol);
  }
}

static double num(json_t *o, const char *path) {
  /* dotted path, e.g. "hta.idle_us" */
  char buf[128];
  snprintf(buf, sizeof buf, "%s", path);
  json_t *cur = o;
  for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, ".")) cur = json_object_get(cur, tok);
  if (json_is_integer(cur)) return (double)json_integer_value(cur);
  if (json_is_real(cur)) return json_real_value(cur);
  fprintf(stderr, "missing number %s\n", path);
  return NAN;
}

/* Each folder is summarised once per mode; the cache owns the documents. */
static struct {
  char dir[512];
  bool include_last;
  json_t *root;
} cache[8];

static json_t *summarize_uncached(const char *dir, bool include_last);

static json_t *summarize(const char *dir, bool include_last) {
  for (size_t i = 0; i < 8; i++) {
    if (cache[i].root && cache[i].include_last == include_last && !strcmp(cache[i].dir, dir))
      return json_incref(cache[i].root);
    if (!cache[i].root) {
      json_t *r = summarize_uncached(dir, include_last);
      if (!r) return NULL;
      snprintf(cache[i].dir, sizeof cache[i].dir, "%s", dir);
      cache[i].include_last = include_last;
      cache[i].root = r;
      return json_incref(r);
    }
  }
  return summarize_uncached(dir, include_last);
}

static json_t *summarize_uncached(const char *dir, bool include_last) {
  tr_options o = {"json", 2, include_last, NULL, NULL, NULL, NULL};
  int failed = -1;
  char *err = NULL;
  char *text = tr_summarize_opts(dir, &o, &failed, &err);
  CHECK(text != NULL);
  CHECK_INT(failed, 0);
  if (!text) {
    fprintf(stderr, "%s: %s\n", dir, err ? err : "?");
    free(err);
    return NULL;
  }
  json_error_t je;
  json_t *root = json_loads(text, 0, &je);
  CHECK(root != NULL);
  free(text);
  return root;
}

static json_t *rank_obj(json_t *root, int rank) {
  json_t *ranks = json_object_get(root, "ranks");
  size_t i;
  json_t *r;
  json_array_foreach(ranks, i, r) {
    if (json_integer_value(json_object_get(r, "rank")) == rank) return r;
  }
  fprintf(stderr, "rank %d missing\n", rank);
  pd_test_failures++;
  return NULL;
}

typedef struct {
  const char *dir;
  int rank;
  double kernel, idle, compute, noncompute, overlap;
} temporal;

/* HTA defaults: last ProfilerStep dropped. */
static const temporal TEMPORAL[] = {
    {"hta-trace-filter-2rank", 0, 600058, 321378, 106252, 172428, 11.81},
    {"hta-trace-filter-2rank", 1, 600674, 328671, 135548, 136455, 20.05},
    {"hta-nccl-parser-config", 0, 435586, 338781, 75169, 21636, 14.31},
    {"hta-trace-diff-control", 3, 383404, 62119, 234760, 86525, 47.03},
};

/* include_last_profiler_step=True */
static const temporal TEMPORAL_LAST[] = {
    {"hta-trace-filter-2rank", 0, 1222847, 675191, 210320, 337336, 14.95},
    {"hta-trace-filter-2rank", 1, 1231186, 651136, 271973, 308077, 19.93},
    {"hta-nccl-parser-config", 0, 660550, 506512, 113012, 41026, 15.14},
    {"hta-trace-diff-control", 3, 464594, 76007, 281336, 107251, 46.24},
};

typedef struct {
  const char *dir;
  int rank;
  long stream;
  double host, kernel, other;
} idle_row;

static const idle_row IDLE[] = {
    {"hta-trace-filter-2rank", 0, 7, 213825, 1985, 261740},
    {"hta-trace-filter-2rank", 0, 23, 596037, 70, 34},
    {"hta-trace-filter-2rank", 0, 25, 0, 9, 47865},
    {"hta-trace-filter-2rank", 0, 84, 148934, 6, 0},
    {"hta-trace-filter-2rank", 1, 7, 156827, 1816, 281064},
    {"hta-trace-filter-2rank", 1, 23, 596313, 100, 0},
    {"hta-trace-filter-2rank", 1, 25, 0, 9, 53028},
    {"hta-trace-filter-2rank", 1, 84, 251860, 0, 23247},
    {"hta-nccl-parser-config", 0, 7, 357247, 2155, 0},
    {"hta-nccl-parser-config", 0, 40, 381499, 0, 0},
    {"hta-trace-diff-control", 3, 7, 102154, 14226, 32183},
    {"hta-trace-diff-control", 3, 20, 346996, 621, 7470},
    {"hta-trace-diff-control", 3, 21, 237710, 71, 0},
    {"hta-trace-diff-control", 3, 22, 271786, 1253, 0},
};

static json_t *idle_stream(json_t *rank, long stream) {
  json_t *arr = json_object_get(json_object_get(rank, "hta"), "idle_breakdown");
  size_t i;
  json_t *s;
  json_array_foreach(arr, i, s) {
    if (json_integer_value(json_object_get(s, "stream")) == stream) return s;
  }
  return NULL;
}

static void check_temporal(const temporal *t, size_t n, bool include_last) {
  for (size_t i = 0; i < n; i++) {
    char path[512], what[256];
    snprintf(path, sizeof path, TRACES "%s", t[i].dir);
    json_t *root = summarize(path, include_last);
    json_t *r = root ? rank_obj(root, t[i].rank) : NULL;
    if (!r) {
      json_decref(root);
      continue;
    }
    const char *tag = include_last ? "include_last" : "default";
    snprintf(what, sizeof what, "%s r%d %s kernel_time_us", t[i].dir, t[i].rank, tag);
    check_close(what, num(r, "hta.kernel_time_us"), t[i].kernel, 0.001);
    snprintf(what, sizeof what, "%s r%d %s idle_us", t[i].dir, t[i].rank, tag);
    check_close(what, num(r, "hta.idle_us"), t[i].idle, 0.001);
    snprintf(what, sizeof what, "%s r%d %s compute_us", t[i].dir, t[i].rank, tag);
    check_close(what, num(r, "hta.compute_us"), t[i].compute, 0.001);
    snprintf(what, sizeof what, "%s r%d %s non_compute_us", t[i].dir, t[i].rank, tag);
    check_close(what, num(r, "hta.non_compute_us"), t[i].noncompute, 0.001);
    snprintf(what, sizeof what, "%s r%d %s comm_comp_overlap_pct", t[i].dir, t[i].rank, tag);
    check_close(what, num(r, "hta.comm_comp_overlap_pct"), t[i].overlap, 0.001);
    /* the rank's file is named */
    const char *file = json_string_value(json_object_get(r, "file"));
    CHECK(file && strstr(file, t[i].dir));
    json_decref(root);
  }
}

static void check_idle(void) {
  for (size_t i = 0; i < sizeof IDLE / sizeof *IDLE; i++) {
    char path[512], what[256];
    snprintf(path, sizeof path, TRACES "%s", IDLE[i].dir);
    json_t *root = summarize(path, false);
    json_t *r = root ? rank_obj(root, IDLE[i].rank) : NULL;
    json_t *s = r ? idle_stream(r, IDLE[i].stream) : NULL;
    CHECK(s != NULL);
    if (s) {
      snprintf(what, sizeof what, "%s r%d stream %ld host_wait", IDLE[i].dir, IDLE[i].rank, IDLE[i].stream);
      check_close(what, num(s, "host_wait_us"), IDLE[i].host, 0.001);
      snprintf(what, sizeof what, "%s r%d stream %ld kernel_wait", IDLE[i].dir, IDLE[i].rank, IDLE[i].stream);
      check_close(what, num(s, "kernel_wait_us"), IDLE[i].kernel, 0.001);
      snprintf(what, sizeof what, "%s r%d stream %ld other", IDLE[i].dir, IDLE[i].rank, IDLE[i].stream);
      check_close(what, num(s, "other_us"), IDLE[i].other, 0.001);
    }
    json_decref(root);
  }
}

static double ktype(json_t *root, const char *name) {
  json_t *e = json_object_get(json_object_get(root, "kernel_types_all_ranks"), name);
  return num(e, "us");
}

static void check_kernel_types_and_launch(void) {
  /* trace_filter, both ranks summed (anchor §5a) */
  json_t *root = summarize(TRACES "hta-trace-filter-2rank", false);
  if (root) {
    check_close("tf COMMUNICATION", ktype(root, "COMMUNICATION"), 305584, 0.001);
    check_close("tf COMPUTATION", ktype(root, "COMPUTATION"), 185023, 0.001);
    check_close("tf COMP+COMM", ktype(root, "COMPUTATION overlapping COMMUNICATION"), 56747, 0.001);
    check_close("tf MEMORY", ktype(root, "MEMORY"), 2288, 0.001);
    check_close("tf COMM+MEM", ktype(root, "COMMUNICATION overlapping MEMORY"), 1011, 0.001);
    check_close("tf COMP+MEM", ktype(root, "COMPUTATION overlapping MEMORY"), 18, 0.001);
    check_close("tf all three", ktype(root, "COMPUTATION overlapping COMMUNICATION overlapping MEMORY"), 12, 0.001);
    json_t *r0 = rank_obj(root, 0);
    if (r0) {
      CHECK_INT((long)num(r0, "hta.launch.launches"), 602);
      check_close("tf r0 median launch delay", num(r0, "hta.launch.median_delay_us"), 10246, 0.001);
      CHECK_INT((long)num(r0, "hta.launch.delay_over_100us"), 469);
      /* per-name sum of the only NCCL kernel: 195 327 µs in 5 calls */
      json_t *top = json_array_get(json_object_get(json_object_get(r0, "hta"), "top_kernels"), 0);
      CHECK(strstr(json_string_value(json_object_get(top, "name")), "ncclKernel_SendRecv") != NULL);
      check_close("tf r0 SendRecv sum", num(top, "sum_us"), 195327, 0.001);
      CHECK_INT((long)num(top, "count"), 5);
    }
    json_decref(root);
  }
  root = summarize(TRACES "hta-nccl-parser-config", false);
  if (root) {
    check_close("nccl COMPUTATION", ktype(root, "COMPUTATION"), 71696, 0.001);
    check_close("nccl COMMUNICATION", ktype(root, "COMMUNICATION"), 20621, 0.001);
    check_close("nccl COMP+COMM", ktype(root, "COMPUTATION overlapping COMMUNICATION"), 3473, 0.001);
    check_close("nccl MEMORY", ktype(root, "MEMORY"), 831, 0.001);
    check_close("nccl COMM+MEM", ktype(root, "COMMUNICATION overlapping MEMORY"), 184, 0.001);
    json_t *r0 = rank_obj(root, 0);
    if (r0) {
      CHECK_INT((long)num(r0, "hta.launch.launches"), 2516);
      check_close("nccl median launch delay", num(r0, "hta.launch.median_delay_us"), 3, 0.001);
      CHECK_INT((long)num(r0, "hta.launch.delay_over_100us"), 180);
      /* HTA rounds this trace's float timestamps; the steps it analyses are #4 and #5 */
      CHECK(json_is_true(json_object_get(json_object_get(r0, "hta"), "ns_rounding")));
      CHECK_INT((long)num(r0, "hta.dropped_step"), 6);
      CHECK_INT((long)json_array_size(json_object_get(json_object_get(r0, "hta"), "iterations")), 2);
    }
    json_decref(root);
  }
  root = summarize(TRACES "hta-trace-diff-control", false);
  if (root) {
    check_close("ctl COMPUTATION", ktype(root, "COMPUTATION"), 151685, 0.001);
    check_close("ctl COMMUNICATION", ktype(root, "COMMUNICATION"), 69110, 0.001);
    check_close("ctl COMP+COMM", ktype(root, "COMPUTATION overlapping COMMUNICATION"), 55152, 0.001);
    check_close("ctl COMP+MEM", ktype(root, "COMPUTATION overlapping MEMORY"), 20762, 0.001);
    check_close("ctl MEMORY", ktype(root, "MEMORY"), 16328, 0.001);
    check_close("ctl all three", ktype(root, "COMPUTATION overlapping COMMUNICATION overlapping MEMORY"), 7161, 0.001);
    check_close("ctl COMM+MEM", ktype(root, "COMMUNICATION overlapping MEMORY"), 1087, 0.001);
    json_t *r3 = rank_obj(root, 3);
    if (r3) {
      CHECK_INT((long)num(r3, "hta.launch.launches"), 7875);
      check_close("ctl median launch delay", num(r3, "hta.launch.median_delay_us"), 614, 0.001);
      CHECK_INT((long)num(r3, "hta.launch.delay_over_100us"), 5111);
      CHECK_INT((long)num(r3, "hta.launch.runtime_over_50us"), 25);
      CHECK(json_is_false(json_object_get(json_object_get(r3, "hta"), "ns_rounding")));
    }
    json_decref(root);
  }
}

/* Beyond HTA: every step's exclusive parts add up to its window. */
static void check_step_sums(void) {
  const char *dirs[] = {"hta-trace-filter-2rank", "hta-nccl-parser-config", "hta-trace-diff-control"};
  const char *parts[] = {"compute_us", "exposed_comm_us", "exposed_memcpy_us", "other_gpu_us",
                         "idle_collective_wait_us", "idle_launch_bound_us", "idle_data_supply_us"};
  for (size_t d = 0; d < 3; d++) {
    char path[512];
    snprintf(path, sizeof path, TRACES "%s", dirs[d]);
    json_t *root = summarize(path, false);
    size_t i, j;
    json_t *r, *s;
    json_array_foreach(json_object_get(root, "ranks"), i, r) {
      CHECK(json_array_size(json_object_get(r, "steps")) >= 2);
      json_array_foreach(json_object_get(r, "steps"), j, s) {
        double sum = 0, pct = 0;
        for (size_t k = 0; k < 7; k++) {
          double v = num(s, parts[k]);
          CHECK(v >= 0);
          sum += v;
          char key[64];
          snprintf(key, sizeof key, "%.*s_pct", (int)(strlen(parts[k]) - 3), parts[k]);
          pct += num(s, key);
        }
        check_close("step parts sum to the window", sum, num(s, "window_us"), 1e-6);
        check_close("step percentages sum to 100", pct, 100.0, 0.001);
      }
    }
    CHECK_STR(json_string_value(json_object_get(root, "gpu_memory")), "not measured");
    json_decref(root);
  }
}

int main(void) {
  if (access(TRACES "hta-trace-filter-2rank", R_OK) != 0) {
    printf("trace_hta_parity: %s is missing from the repository\n", TRACES);
    return 1;
  }
  check_temporal(TEMPORAL, sizeof TEMPORAL / sizeof *TEMPORAL, false);
  check_temporal(TEMPORAL_LAST, sizeof TEMPORAL_LAST / sizeof *TEMPORAL_LAST, true);
  check_idle();
  check_kernel_types_and_launch();
  check_step_sums();
  for (size_t i = 0; i < 8; i++) json_decref(cache[i].root);
  return pd_test_exit("trace_hta_parity");
}
