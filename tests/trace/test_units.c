/* Unit tests of the trace modules: interval sets, kernel classes, file names, the event parser
 * and its fast paths, pd_sort and pd_map as the reader uses them, and the reader
 * on the format variants of trace-format.md (array form, base time before or after the
 * events, string pid/tid, one-line and pretty layouts, event split across read windows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/messages.h"
#include "trace/event.h"
#include "trace/iv.h"
#include "trace/rank.h"
#include "trace/read.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "event_pad.h"
#include "harness.h"

static void test_intervals(void) {
  tr_ivs a = {0}, b = {0}, u = {0}, in = {0}, d = {0};
  tr_ivs_push(&a, 10, 20);
  tr_ivs_push(&a, 0, 5);
  tr_ivs_push(&a, 5, 8); /* touches [0,5): merges, as HTA merges */
  tr_ivs_push(&a, 15, 30);
  tr_ivs_merge(&a);
  CHECK_INT(a.n, 2);
  CHECK_INT(a.v[0].b, 0);
  CHECK_INT(a.v[0].e, 8);
  CHECK_INT(a.v[1].e, 30);
  CHECK_INT(tr_ivs_total(&a), 28);
  tr_ivs_push(&b, 6, 12);
  tr_ivs_push(&b, 25, 40);
  tr_ivs_merge(&b);
  tr_ivs_union(&a, &b, &u);
  CHECK_INT(u.n, 1);
  CHECK_INT(tr_ivs_total(&u), 40);
  tr_ivs_intersect(&a, &b, &in);
  CHECK_INT(tr_ivs_total(&in), 2 + 2 + 5); /* [6,8) [10,12) [25,30) */
  tr_ivs_subtract(&a, &b, &d);
  CHECK_INT(tr_ivs_total(&d), 28 - 9);
  CHECK_INT(tr_ivs_len_in(&a, 4, 12), 4 + 2);
  CHECK_INT(tr_ivs_len_in(&a, 100, 200), 0);
  int64_t t[8];
  const tr_ivs *sets[2] = {&a, &b};
  tr_ivs_sweep(sets, 2, t);
  CHECK_INT(t[3], 9);  /* both */
  CHECK_INT(t[1], 19); /* a only */
  CHECK_INT(t[2], 12); /* b only: |b| = 21 minus the 9 of overlap */
  tr_ivs_bridge(&a, 2);
  CHECK_INT(a.n, 1); /* gap [8,10) bridged */
  tr_ivs *all[] = {&a, &b, &u, &in, &d};
  for (size_t i = 0; i < 5; i++) tr_ivs_free(all[i]);
}

static void test_classes(void) {
  CHECK_INT(tr_kernel_class("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), TR_COMM);
  CHECK_INT(tr_kernel_class("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), TR_COMM);
  CHECK_INT(tr_kernel_class("ncclSymkDevKernel_AllReduce_RSxLD_AGxST_sum_bf16"), TR_COMM);
  CHECK_INT(tr_kernel_class("void ncclKernel_X"), TR_COMM);
  CHECK_INT(tr_kernel_class("Memcpy HtoD (Pinned -> Device)"), TR_MEM);
  CHECK_INT(tr_kernel_class("Memset (Device)"), TR_MEM);
  CHECK_INT(tr_kernel_class("Stream Wait Event"), TR_OTHER);
  CHECK_INT(tr_kernel_class("Event Sync"), TR_OTHER);
  CHECK_INT(tr_kernel_class("void at::native::vectorized_elementwise_kernel<4>(...)"), TR_COMP);
  CHECK_INT(tr_kernel_class("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"), TR_COMP);
}

static void test_file_names(void) {
  int r, dp, tp, pp;
  tr_parse_file_name("traces/x/train_trace/train_overall_rank3_dp1_tp1_pp0.1745000.pt.trace.json.gz", &r, &dp, &tp, &pp);
  CHECK_INT(r, 3);
  CHECK_INT(dp, 1);
  CHECK_INT(tp, 1);
  CHECK_INT(pp, 0);
  tr_parse_file_name("/a/rank_7/train_overall_rank_12.1745.pt.trace.json.gz", &r, &dp, &tp, &pp);
  CHECK_INT(r, 12);
  CHECK_INT(dp, -1);
  tr_parse_file_name("rank-1.json.gz", &r, &dp, &tp, &pp);
  CHECK_INT(r, 1);
  tr_parse_file_name("control.json.gz", &r, &dp, &tp, &pp);
  CHECK_INT(r, -1);
}

typedef struct {
  long events, headers;
  long long base;
  char last_name[64];
} sink_state;

static void on_ev(void *ctx, const tr_event *ev, uint64_t off) {
  sink_state *s = ctx;
  (void)off;
  s->events++;
  if (ev->name.p && ev->name.n < sizeof s->last_name) tr_slice_decode(&ev->name, s->last_name);
}

static void on_hdr(void *ctx, const char *key, json_t *v) {
  sink_state *s = ctx;
  s->headers++;
  if (!strcmp(key, "baseTimeNanoseconds")) s->base = (long long)json_integer_value(v);
}

static char *write_tmp(const char *text) {
  char *p = pd_xstrdup("/tmp/pd-trace-unit-XXXXXX");
  int fd = mkstemp(p);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK((size_t)write(fd, text, strlen(text)) == strlen(text));
    close(fd);
  }
  return p;
}

/* The analysis of a trace written as text (the file is gone when it returns; the rank holds only
 * results). The caller frees it with tr_rank_free. */
static tr_rank *analyze_text(const char *text) {
  char *p = write_tmp(text);
  tr_rank *r = tr_rank_analyze(p, NULL);
  unlink(p);
  free(p);
  return r;
}

static void read_text(const char *text, bool want_ok, long want_events, long long want_base, bool want_array) {
  char *p = write_tmp(text);
  sink_state s = {0};
  tr_read_sink sink = {on_ev, on_hdr, &s, NULL};
  tr_read_stats st;
  char *err = NULL;
  bool ok = tr_read_file(p, &sink, &st, TR_EN, &err);
  CHECK(ok == want_ok);
  if (ok != want_ok) fprintf(stderr, "read_text(%.60s): %s\n", text, err ? err : "ok");
  CHECK_INT(s.events, want_events);
  CHECK_INT(s.base, want_base);
  CHECK(st.array_form == want_array);
  free(err);
  unlink(p);
  free(p);
}

static void test_reader_variants(void) {
  /* base time after the events (2024 Kineto) and before them (newer Kineto) */
  read_text("{\"traceEvents\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"baseTimeNanoseconds\": 1711964646000000000}",
            true, 2, 1711964646000000000LL, false);
  read_text("{\"baseTimeNanoseconds\": 1711964646000000000,\n \"traceEvents\": [\n {\"name\": \"a\"}\n ]\n}\n", true, 1,
            1711964646000000000LL, false);
  /* the bare array form, string pid/tid, strings holding brackets and escaped quotes */
  read_text("[{\"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"name\": \"x ] } \\\" [\"}, {\"name\": \"y\"}]", true, 2, 0, true);
  read_text("{\"traceEvents\": []}", true, 0, 0, false);
  /* a header value jansson refuses (invalid UTF-8) fails only when asked for */
  read_text("{\"INFO\": [\"\xff\xfe\"], \"traceEvents\": []}", false, 0, 0, false);
  read_text("[]", true, 0, 0, true);
  read_text("{\"traceEvents\": [{\"name\": \"a\"},]}", false, 1, 0, false); /* trailing comma */
}

/* A header value jansson would refuse, not asked for, does not fail the file. */
static void test_unwanted_header(void) {
  tr_rank *r = analyze_text("{\"INFO\": [\"\xff\xfe log\"], \"distributedInfo\": {\"rank\": 2}, \"traceEvents\": ["
                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":2}]}");
  CHECK(r->err == NULL);
  CHECK_INT(r->rank, 2);
  tr_rank_free(r);
}

/* Kernel events split across the reader's windows (3 MB of them), in a trace with a float ts. */
static void test_window_boundaries(void) {
  pd_buf b = {0};
  pd_buf_puts(&b, "{\"distributedInfo\": {\"rank\": 5, \"world_size\": 8}, \"traceEvents\": [\n");
  long n = 0;
  while (b.len < (3u << 20)) {
    pd_buf_printf(&b,
                  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%ld\",\"pid\":0,\"tid\":7,\"ts\":%ld.5,\"dur\":1.0,"
                  "\"args\":{\"stream\":7,\"correlation\":%ld,\"pad\":\"%0200d\"}},\n",
                  n % 3, 10 + n * 2, n + 1, 0);
    pd_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%ld,\"dur\":1,\"args\":{\"correlation\":%ld}},\n", 8 + n * 2, n + 1);
    n++;
  }
  pd_buf_puts(&b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"x\"}}]}");
  tr_rank *r = analyze_text(b.data);
  pd_buf_free(&b);
  CHECK(r->err == NULL);
  CHECK_INT(r->rank, 5);
  CHECK_INT(r->world_size, 8);
  CHECK_INT(r->n_gpu_rows, n);
  CHECK_INT(r->n_runtime_rows, n);
  CHECK_INT((long)r->n_events, 2 * n + 1);
  /* HTA rounding: [k+0.5, k+1.5) becomes [k+1, k+1): every kernel rounds to zero length */
  CHECK(r->hta.rounded);
  CHECK(fabs(r->hta.compute_us) < 1e-9);
  /* the exact (unrounded) per-trace window sees 1 µs per kernel */
  CHECK_INT(r->n_steps, 1);
  CHECK(fabs(r->steps[0].compute_us - (double)n) < 1e-6);
  CHECK_INT(r->hta.launch_n, n);
  tr_rank_free(r);
}

static bool parse(const char *text, tr_event *ev) {
  size_t pos = 0;
  const char *why = NULL;
  return tr_event_parse(event_padded(text, strlen(text)), strlen(text), ev, &pos, &why);
}

static size_t bad_at(const char *text) {
  tr_event ev;
  size_t pos = (size_t)-1;
  const char *why = NULL;
  CHECK(!tr_event_parse(event_padded(text, strlen(text)), strlen(text), &ev, &pos, &why));
  CHECK(why != NULL);
  return pos;
}

/* bad_at of prefix + depth '[' + depth ']' + suffix: arrays nested that deep. */
static size_t bad_at_nested(const char *prefix, int depth, const char *suffix) {
  pd_buf deep = {0};
  pd_buf_puts(&deep, prefix);
  for (int i = 0; i < depth; i++) pd_buf_putc(&deep, '[');
  for (int i = 0; i < depth; i++) pd_buf_putc(&deep, ']');
  pd_buf_puts(&deep, suffix);
  size_t at = bad_at(deep.data);
  pd_buf_free(&deep);
  return at;
}

static void test_event_parser(void) {
  tr_event ev;
  char buf[256];
  /* Kineto's ns-precision floats convert exactly, integers and "68.0" too */
  CHECK(parse("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":4458676522690.655,\"dur\":156.777}", &ev));
  CHECK(ev.ts.present && ev.ts.real);
  CHECK_INT(ev.ts.v, 4458676522690655LL);
  CHECK_INT(ev.dur.v, 156777);
  CHECK(tr_slice_eq(&ev.cat, "kernel"));
  CHECK(parse("{\"ts\": 1682725898236567, \"dur\": 68.0}", &ev));
  CHECK(!ev.ts.real && ev.dur.real);
  CHECK_INT(ev.ts.v, 1682725898236567000LL);
  CHECK_INT(ev.dur.v, 68000);
  CHECK(parse("{\"ts\": 1.5e3, \"dur\": -0.0004}", &ev));
  CHECK_INT(ev.ts.v, 1500000);
  CHECK_INT(ev.dur.v, 0);
  CHECK(parse("{\"ts\": null, \"dur\": null}", &ev));
  CHECK(ev.ts_key && !ev.ts.present && ev.dur_null && !ev.dur.present);
  /* args: integers, integer strings, collective fields as text; other args skipped */
  CHECK(parse("{\"args\": {\"Input Dims\": [[1, 2], []], \"stream\": 7, \"correlation\": \"42\", "
              "\"Seq\": 9.0, \"Comms Id\": 18446744073709551615, \"Collective name\": \"allreduce\", "
              "\"Process Group Ranks\": \"[0, 1]\", \"nested\": {\"stream\": 99}}}", &ev));
  CHECK_INT(ev.stream.v, 7);
  CHECK_INT(ev.correlation.v, 42);
  CHECK_INT(ev.seq.v, 9);
  CHECK(tr_slice_eq(&ev.comms_id, "18446744073709551615"));
  CHECK(tr_slice_eq(&ev.coll_name, "allreduce"));
  CHECK(tr_slice_eq(&ev.pg_ranks, "[0, 1]"));
  /* escapes decode, including a surrogate pair; pid/tid strings are fine */
  CHECK(parse("{\"pid\": \"Spans\", \"name\": \"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00/\\/\"}", &ev));
  CHECK(ev.name.escaped);
  tr_slice_decode(&ev.name, buf);
  CHECK_STR(buf, "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80//");
  /* invalid JSON is refused at the offending byte */
  CHECK_INT(bad_at("{\"name\": oops}"), 9);
  CHECK_INT(bad_at("{\"ts\": 01}"), 8);
  CHECK_INT(bad_at("{\"ts\": 1.}"), 9);
  CHECK_INT(bad_at("{\"a\": \"x\\q\"}"), 9);
  CHECK_INT(bad_at("{\"a\": [1, 2}"), 11);
  CHECK_INT(bad_at("{\"a\": tru}"), 6);
  CHECK_INT(bad_at("{\"a\" 1}"), 5);
  CHECK_INT(bad_at("{\"a\": \"\x01\"}"), 7);
  CHECK_INT(bad_at("{\"a\": 1,}"), 8);
  CHECK_INT(bad_at("{\"a\": 1} x"), 9);
  CHECK(bad_at_nested("{\"a\": ", 2000, "}") > 0);
}

/* HTA rounds absolute float µs timestamps as doubles, which cannot hold their ns digits:
 * ceil(1712195495519689.047) is ...689 in Python, not ...690. HTA parity follows that (it is
 * what moves HTA's numbers on its own ns_resolution test trace); the per-step figures stay exact. */
static void test_hta_double_rounding(void) {
  const char *text =
      "{\"traceEvents\": [\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
      "\"ts\":1712195495519680.250,\"dur\":3.5,\"args\":{\"correlation\":1}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,"
      "\"ts\":1712195495519689.047,\"dur\":10.5,\"args\":{\"stream\":7,\"correlation\":1}}\n]}";
  tr_rank *r = analyze_text(text);
  CHECK(r->err == NULL);
  CHECK(r->hta.rounded);
  CHECK(fabs(r->hta.compute_us - 10.0) < 1e-9);  /* HTA: floor(689.047 + 10.5) - ceil(689.047) as doubles */
  CHECK(fabs(r->steps[0].compute_us - 10.5) < 1e-9); /* exact */
  CHECK(fabs(r->hta.launch_median_delay_us - 6.0) < 1e-9); /* 689 - floor(680.25 + 3.5) */
  tr_rank_free(r);
}


/* The fast paths of the parser (digits 8 at a time, record_shapes arrays in one loop, Kineto's
 * spacing) give what the general path gives, and refuse what it refuses at the same byte. */
static void test_parser_fast_paths(void) {
  tr_event ev;
  /* 1..19 digits, with and without decimals, as ts (ns) and as an args integer */
  const char *ints[] = {"7", "12345678", "123456789", "1234567812345678", "12345678123456789",
                        "123456781234567891", "1234567812345678912"};
  const long long want[] = {7, 12345678, 123456789, 1234567812345678LL, 12345678123456789LL,
                            123456781234567891LL, 1234567812345678912LL};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    char text[160];
    snprintf(text, sizeof text, "{\"args\": {\"stream\": %s, \"correlation\": %s.25}, \"ts\": %s.5}        ", ints[i],
             ints[i], ints[i]);
    CHECK(parse(text, &ev));
    CHECK_INT(ev.stream.v, want[i]);
    CHECK_INT(ev.correlation.v, want[i]); /* truncated */
    CHECK(ev.ts.real);
    if (want[i] < 9000000000000LL) CHECK_INT(ev.ts.v, want[i] * 1000 + 500);
  }
  /* a time whose ns do not fit in 64 bits is absent on every path (the fast one once wrapped) */
  CHECK(parse("{\"ts\": 12345678123456789, \"dur\": 1}                ", &ev));
  CHECK(!ev.ts.present && ev.dur.present);
  CHECK(parse("{\"ts\": 9223372036854776, \"dur\": 1}                ", &ev));
  CHECK(!ev.ts.present);
  CHECK(parse("{\"ts\": 9223372036854775, \"dur\": 1}                ", &ev));
  CHECK(ev.ts.present && ev.ts.v == 9223372036854775000LL);
  /* rounding 19 significant digits (r * 2 wrapped): 0.9999999999999999999 ns is 1 ns */
  CHECK(parse("{\"ts\": 0.0009999999999999999999}", &ev));
  CHECK_INT(ev.ts.v, 1);
  /* at the very end of the input (no 16 bytes after the number): the byte-wise path */
  CHECK(parse("{\"ts\":123456789.125}", &ev));
  CHECK_INT(ev.ts.v, 123456789125LL);
  /* record_shapes arrays: kept raw exactly; nested, empty, strings */
  CHECK(parse("{\"args\": {\"Input Dims\": [[4096, 4096], [], [ ], [[1, [2]]]], \"Input type\": [\"c10::Half\", \"\"]}}", &ev));
  CHECK(tr_slice_eq(&ev.dims, "[[4096, 4096], [], [ ], [[1, [2]]]]"));
  CHECK(tr_slice_eq(&ev.types, "[\"c10::Half\", \"\"]"));
  /* ... and what they may not hold goes to the general path, which says where */
  CHECK_INT(bad_at("{\"args\": {\"Input Dims\": [[1, 2], [01]]}}"), 35); /* the digit after the 0 */
  CHECK_INT(bad_at("{\"args\": {\"Input Dims\": [1,]}}"), 27);
  CHECK_INT(bad_at("{\"args\": {\"Input Dims\": [1 2]}}"), 27);
  CHECK_INT(bad_at("{\"args\": {\"grid\": [1, 2}}"), 23);
  CHECK(parse("{\"args\": {\"Input Dims\": [-1, 2.5, 1e3, null, {\"a\": [\"x\\n\"]}]}}", &ev));
  /* arrays nested past the limit are refused, not skipped */
  CHECK(bad_at_nested("{\"args\": {\"grid\": ", 600, "}}") > 0);
  /* Kineto's spacing and others: the same fields */
  CHECK(parse("{\"ph\": \"X\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}", &ev));
  CHECK(tr_slice_eq(&ev.name, "k") && ev.dur.v == 2000);
  CHECK(parse("{\n  \"ph\" :\"X\" ,\n\t\"name\":  \"k\",\"ts\":1 , \"dur\" : 2 }", &ev));
  CHECK(tr_slice_eq(&ev.name, "k") && ev.dur.v == 2000);
  /* the top-level keys in Kineto's order (each tried as the literal after the previous one),
   * out of it, repeated (the last wins) and near misses of the literals: the same fields */
  const char *kineto = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 5, "
                       "\"dur\": 2.5, \"args\": {\"stream\": 7}}";
  CHECK(parse(kineto, &ev));
  CHECK(tr_slice_eq(&ev.cat, "kernel") && tr_slice_eq(&ev.tid, "7") && ev.ts.v == 5000 && ev.dur.v == 2500 &&
        ev.stream.v == 7);
  CHECK(parse("{\"args\": {\"stream\": 7}, \"dur\": 2.5, \"ts\": 5, \"tid\": 7, \"pid\": 0, \"name\": \"k\", "
              "\"cat\": \"kernel\", \"ph\": \"X\"}", &ev));
  CHECK(tr_slice_eq(&ev.cat, "kernel") && tr_slice_eq(&ev.tid, "7") && ev.ts.v == 5000 && ev.dur.v == 2500 &&
        ev.stream.v == 7);
  CHECK(parse("{\"ph\": \"X\", \"cat\": \"a\", \"cat\": \"b\", \"name\": \"k\"}", &ev));
  CHECK(tr_slice_eq(&ev.cat, "b"));
  CHECK(parse("{\"ph\": \"X\", \"cats\": \"a\", \"ca\": \"b\", \"name\": \"k\", \"pidx\": 3, \"pid\": 4}", &ev));
  CHECK(!ev.cat.p && tr_slice_eq(&ev.pid, "4"));
  CHECK(parse("{\"ph\": \"X\", \"c\\u0061t\": \"kernel\", \"name\": \"k\"}", &ev)); /* an escaped key */
  CHECK(tr_slice_eq(&ev.cat, "kernel"));
  CHECK(parse("{\"ph\":\"X\",\"cat\":  \"kernel\",\"name\" : \"k\"}", &ev));
  CHECK(tr_slice_eq(&ev.cat, "kernel") && tr_slice_eq(&ev.name, "k"));
  /* a literal matched but its value refused where the general path refuses it */
  CHECK_INT(bad_at("{\"ph\": \"X\", \"cat\": kernel}"), 19);
  CHECK_INT(bad_at("{\"ph\": \"X\", \"cat\": \"k\", \"name\": \"k\", \"pid\": 01}"), 45);
  /* cut off inside a literal: the error is at the end, as without the literals */
  for (size_t cut = 1; cut < strlen(kineto); cut++) {
    tr_event e2;
    size_t at = 0;
    const char *why;
    CHECK(!tr_event_parse(event_padded(kineto, cut), cut, &e2, &at, &why));
    if (at + 16 < cut) fprintf(stderr, "cut %zu: error at %zu (%s)\n", cut, at, why);
    CHECK(at + 16 >= cut); /* within the reader's edge: "read more", not "invalid" */
  }
}

static int int_pair_cmp(const void *pa, const void *pb) {
  const int *a = pa, *b = pb;
  return (a[0] > b[0]) - (a[0] < b[0]);
}

/* pd_sort: ordered like qsort, stable (equal keys keep their order), on random, reversed and
 * nearly sorted input around the block and merge boundaries. */
static void test_sort(void) {
  const size_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 33, 100, 1000, 4097};
  unsigned seed = 7;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    for (int kind = 0; kind < 3; kind++) {
      size_t n = sizes[si];
      int *v = pd_xmalloc((n + 1) * 2 * sizeof *v);
      for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        int key = kind == 0 ? (int)(seed >> 20) % 50 : kind == 1 ? (int)(n - i) : (int)i + ((seed >> 16) % 8 == 0 ? -5 : 0);
        v[2 * i] = key;
        v[2 * i + 1] = (int)i; /* the original position */
      }
      pd_sort(v, n, 2 * sizeof *v, int_pair_cmp);
      for (size_t i = 1; i < n; i++) {
        CHECK(v[2 * (i - 1)] <= v[2 * i]);
        if (v[2 * (i - 1)] == v[2 * i]) CHECK(v[2 * (i - 1) + 1] < v[2 * i + 1]);
      }
      free(v);
    }
  }
}

/* pd_map: long keys, keys differing in one byte past the first 8, many keys (growth). */
static void test_map(void) {
  pd_map m = {0};
  char key[300];
  for (int i = 0; i < 5000; i++) {
    memset(key, 'k', sizeof key);
    snprintf(key + (i % 250), 40, "#%d", i);
    bool added;
    pd_map_slot *s = pd_map_put(&m, key, &added);
    CHECK(added);
    s->value = (size_t)i;
  }
  for (int i = 0; i < 5000; i++) {
    memset(key, 'k', sizeof key);
    snprintf(key + (i % 250), 40, "#%d", i);
    size_t v = 0;
    CHECK(pd_map_get(&m, key, &v) && v == (size_t)i);
    key[strlen(key) - 1] ^= 1;
    CHECK(!pd_map_get(&m, key, &v) || v != (size_t)i);
  }
  CHECK(pd_map_getn(&m, "kk", 1, NULL) == false);
  pd_map_free(&m);
}

/* GPU rows are joined to their launches by correlation id whatever the order of either side, and
 * of two CPU rows with one id the later in the file wins, as in HTA. */
static void test_launch_join(void) {
  const char *text =
      "{\"traceEvents\": [\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10,\"args\":{\"correlation\":5}},\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10,\"args\":{\"correlation\":3}},\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10,\"args\":{\"correlation\":5}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":5}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":3}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":99}}\n"
      "]}";
  tr_rank *r = analyze_text(text);
  CHECK(r->err == NULL);
  CHECK_INT(r->hta.launch_n, 2);                            /* k3 has no launch */
  CHECK(fabs(r->hta.launch_median_delay_us - 50.0) < 1e-9); /* (300 - 210) and (70 - 60): the later id-5 row */
  tr_rank_free(r);
}

/* Categories are compared exactly, escapes decoded (a long escaped spelling too); numeric and
 * string thread ids alike name a thread. */
static void test_categories(void) {
  const char *text =
      "{\"traceEvents\": [\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10,\"args\":{\"correlation\":5}},\n"
      "{\"ph\":\"X\",\"cat\":\"k\\u0065rnel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":5}},\n"
      "{\"ph\":\"X\",\"cat\":\"\\u006b\\u0065\\u0072\\u006e\\u0065\\u006c\",\"name\":\"k2\",\"pid\":0,\"tid\":8,\"ts\":310,\"dur\":5,\"args\":{\"stream\":8}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernels\",\"name\":\"k3\",\"pid\":0,\"tid\":9,\"ts\":320,\"dur\":5,\"args\":{\"stream\":9}},\n"
      "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":10,\"ts\":330,\"dur\":5,\"args\":{\"stream\":10}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k5\",\"pid\":0,\"tid\":11,\"ts\":340,\"dur\":5,\"args\":{\"stream\":11}}\n"
      "]}";
  tr_rank *r = analyze_text(text);
  CHECK(r->err == NULL);
  /* HTA's idle breakdown takes the kernel categories' streams only: 7 and 8 (escaped), 10
   * (HTA's capitalised form) and 11; not 9 ("kernels") */
  CHECK_INT(r->hta.n_idle, 4);
  long want[] = {7, 8, 10, 11};
  for (size_t i = 0; i < r->hta.n_idle && i < 4; i++) CHECK_INT(r->hta.idle[i].stream, want[i]);
  tr_rank_free(r);
}

/* The op at the memory peak is named when memory was recorded; a header listing the profiler's
 * options without profile_memory says it was not, and host ops are then not collected. */
static void test_host_ops_by_header(void) {
  const char *heads[] = {"", "\"record_shapes\": 1, \"profile_memory\": 1, ", "\"record_shapes\": 1, "};
  for (int i = 0; i < 3; i++) {
    char text[2048];
    snprintf(text, sizeof text,
             "{%s\"traceEvents\": [\n"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::big\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50,\"args\":{}},\n"
             "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":120,\"s\":\"t\","
             "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1,\"Bytes\":1000,\"Total Allocated\":1000,\"Total Reserved\":2000}},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":5,\"args\":{\"stream\":7,\"device\":0}}\n"
             "]}",
             heads[i]);
    tr_rank *r = analyze_text(text);
    CHECK(r->err == NULL);
    CHECK(r->memory.measured);
    if (i < 2) {
      CHECK(r->mem_at_op && !strcmp(r->mem_at_op, "aten::big"));
    } else {
      CHECK(!r->mem_at_op);
      CHECK(r->mem_at_op_why && !strcmp(r->mem_at_op_why, TR_AT_OP_HEADER));
    }
    tr_rank_free(r);
  }
}

int main(void) {
  test_host_ops_by_header();
  test_categories();
  test_launch_join();
  test_event_parser();
  test_parser_fast_paths();
  test_sort();
  test_map();
  test_hta_double_rounding();
  test_intervals();
  test_classes();
  test_file_names();
  test_reader_variants();
  test_window_boundaries();
  test_unwanted_header();
  return pd_test_exit("trace_units");
}
