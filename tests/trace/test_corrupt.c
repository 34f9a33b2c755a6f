/* Corrupt and unusual input: every failure names the file and a byte offset, never crashes,
 * and the readable ranks of a folder still come out (CLI exit 1; 2 when nothing is readable). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/messages.h"
#include "trace/trace.h"
#include "trace/rank.h"
#include "base/alloc.h"
#include "base/path.h"
#include "harness.h"

#define GOOD_GZ PD_HTA_DIR "/hta-trace-filter-2rank/sampled_rank-0.json.gz"
#define BIG_GZ PD_HTA_DIR "/hta-nccl-parser-config/nccl_data.json.gz"

static char tmpdir[256];

static char *tmp_path(const char *name) { return pd_xasprintf("%s/%s", tmpdir, name); }

static void write_bytes(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  fwrite(data, 1, n, f);
  fclose(f);
}

static char *read_all(const char *path, size_t *n) {
  char *d = pd_read_file(path, (size_t)1 << 30, n);
  CHECK(d != NULL);
  return d;
}

/* Reads one file and returns its error (caller frees), or NULL when it was read. */
static char *rank_error(const char *path) {
  tr_rank *r = tr_rank_analyze(path, NULL);
  char *e = r->err ? pd_xstrdup(r->err) : NULL;
  tr_rank_free(r);
  return e;
}

/* "... at byte N ..." -> N, or -1 */
static long long byte_offset(const char *msg) {
  const char *p = msg ? strstr(msg, " at byte ") : NULL;
  return p ? atoll(p + 9) : -1;
}

static void expect_error(const char *label, const char *path, const char *needle, long long lo, long long hi) {
  char *e = rank_error(path);
  CHECK(e != NULL);
  if (!e) {
    fprintf(stderr, "%s: no error for %s\n", label, path);
    return;
  }
  if (!strstr(e, path) || (needle && !strstr(e, needle))) {
    pd_test_failures++;
    fprintf(stderr, "%s: message \"%s\" lacks the path or \"%s\"\n", label, e, needle ? needle : "");
  }
  long long off = byte_offset(e);
  pd_test_checks++;
  if (off < lo || off > hi) {
    pd_test_failures++;
    fprintf(stderr, "%s: offset %lld not in [%lld, %lld] (%s)\n", label, off, lo, hi, e);
  }
  free(e);
}

static int run_cli(const char *args) {
  char *cmd = pd_xasprintf("'%s' trace %s >/dev/null 2>&1", PD_BINARY, args);
  int st = system(cmd);
  free(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void) {
  if (access(GOOD_GZ, R_OK) != 0 || access(BIG_GZ, R_OK) != 0) {
    printf("trace_corrupt: %s is missing from the repository\n", GOOD_GZ);
    return 1;
  }
  snprintf(tmpdir, sizeof tmpdir, "/tmp/pd-trace-corrupt-XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;

  /* 1. truncated gzip: the first 40 % of a real trace */
  size_t n = 0;
  char *gz = read_all(BIG_GZ, &n);
  char *trunc = tmp_path("trunc_rank1.json.gz");
  write_bytes(trunc, gz, n * 4 / 10);
  expect_error("truncated gzip", trunc, "truncated gzip", 1, 9778890);

  /* 2. corrupt deflate data in the middle of the stream */
  char *bad = pd_xmalloc(n);
  memcpy(bad, gz, n);
  for (size_t i = n / 2; i < n / 2 + 64; i++) bad[i] = (char)(bad[i] ^ 0x5a);
  char *flipped = tmp_path("flipped_rank2.json.gz");
  write_bytes(flipped, bad, n);
  char *e = rank_error(flipped);
  CHECK(e && strstr(e, flipped) && byte_offset(e) > 0);
  if (e && !strstr(e, "gzip") && !strstr(e, "invalid JSON")) {
    pd_test_failures++;
    fprintf(stderr, "flipped: unexpected message %s\n", e);
  }
  free(e);
  free(bad);
  free(gz);

  /* 3. invalid JSON half-way through the event array, at a known offset */
  pd_buf b = {0};
  pd_buf_puts(&b, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
  for (int i = 0; i < 2000; i++)
    pd_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5},\n", i * 10);
  size_t bad_at = b.len;
  pd_buf_puts(&b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":oops,\"ts\":1,\"dur\":2},\n");
  size_t bad_end = b.len;
  for (int i = 0; i < 100; i++) pd_buf_puts(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":1,\"dur\":1},\n");
  pd_buf_puts(&b, "{}]}\n");
  char *halfway = tmp_path("halfway.json");
  write_bytes(halfway, b.data, b.len);
  expect_error("invalid JSON half-way", halfway, "invalid JSON", (long long)bad_at, (long long)bad_end);
  /* the same bytes gzip-compressed: the offset is in the decompressed stream */
  char *halfway_gz = tmp_path("halfway.json.gz");
  char *cmd = pd_xasprintf("gzip -c '%s' > '%s'", halfway, halfway_gz);
  CHECK(system(cmd) == 0);
  free(cmd);
  expect_error("invalid JSON half-way (gz)", halfway_gz, "decompressed", (long long)bad_at, (long long)bad_end);

  /* 4. JSON cut off inside the array (not a gzip problem) */
  char *cut = tmp_path("cut.json");
  write_bytes(cut, b.data, bad_at - 30);
  expect_error("cut JSON", cut, "unexpected end of data", (long long)bad_at - 200, (long long)bad_at);
  pd_buf_free(&b);

  /* 5. a JSON document that is not a trace */
  char *nontrace = tmp_path("config.json");
  const char *cfg = "{\"model\": \"qwen\", \"layers\": [1, 2, 3]}";
  write_bytes(nontrace, cfg, strlen(cfg));
  expect_error("non-trace JSON", nontrace, "not a trace", (long long)strlen(cfg) - 1, (long long)strlen(cfg));
  char *scalar = tmp_path("scalar.json");
  write_bytes(scalar, "  42", 4);
  expect_error("scalar JSON", scalar, "not a trace", 2, 2);
  char *empty = tmp_path("empty.json");
  write_bytes(empty, "", 0);
  expect_error("empty file", empty, "empty file", 0, 0);
  char *trailing = tmp_path("trailing.json");
  write_bytes(trailing, "{\"traceEvents\": []} x", 21);
  expect_error("trailing data", trailing, "after the end", 20, 20);
  char *notarray = tmp_path("notarray.json");
  write_bytes(notarray, "{\"traceEvents\": {}}", 19);
  expect_error("traceEvents not an array", notarray, "not an array", 16, 16);
  char *mismatch = tmp_path("mismatch.json");
  write_bytes(mismatch, "{\"traceEvents\": [{\"a\": [1, 2}]}", 31);
  expect_error("mismatched bracket", mismatch, "mismatched", 28, 28);
  /* deep nesting must not overflow anything */
  pd_buf deep = {0};
  pd_buf_puts(&deep, "{\"traceEvents\": [{\"a\": ");
  for (int i = 0; i < 100000; i++) pd_buf_putc(&deep, '[');
  char *deepf = tmp_path("deep.json");
  write_bytes(deepf, deep.data, deep.len);
  expect_error("deep nesting", deepf, "nested deeper", 20, (long long)deep.len);
  pd_buf_free(&deep);
  /* Relax's own timeline (JSON array of events without "cat") is not a profiler trace */
  char *timeline = tmp_path("timeline_step_3.json");
  const char *tl = "[{\"name\": \"train_get_data\", \"ph\": \"X\", \"ts\": 1745000000000000, \"dur\": 52000, "
                   "\"pid\": 1, \"tid\": 1, \"args\": {\"step\": 3}}]";
  write_bytes(timeline, tl, strlen(tl));
  expect_error("Relax timeline", timeline, "not a PyTorch-profiler trace", (long long)strlen(tl), (long long)strlen(tl));
  free(timeline);
  char *missing = tmp_path("missing.json");
  e = rank_error(missing);
  CHECK(e && strstr(e, "cannot open") && strstr(e, missing));
  free(e);

  /* 5b. a small real trace cut at many points: each prefix fails cleanly with an offset inside
   * the file, never crashes (run under ASan in the sanitizer build) */
  {
    size_t ln = 0;
    char *gzd = read_all(GOOD_GZ, &ln);
    char *full = tmp_path("full.json");
    char *c1 = pd_xasprintf("gzip -dc '%s' > '%s'", GOOD_GZ, full);
    CHECK(system(c1) == 0);
    free(c1);
    size_t jn = 0;
    char *json = read_all(full, &jn);
    char *pref = tmp_path("prefix.json");
    long failures = 0, cases = 0;
    for (size_t at = 0; json && at + 1 < jn; at += jn / 61 + 1) {
      write_bytes(pref, json, at);
      char *pe = rank_error(pref);
      cases++;
      if (pe && strstr(pe, pref) && byte_offset(pe) >= 0 && byte_offset(pe) <= (long long)at) failures++;
      else fprintf(stderr, "prefix %zu: %s\n", at, pe ? pe : "(read without error)");
      free(pe);
    }
    CHECK_INT(failures, cases);
    free(json);
    free(gzd);
    free(full);
    free(pref);
  }

  /* 6. a folder with one good rank and broken ones: the good rank still comes out */
  char *mixed = tmp_path("mixed");
  mkdir(mixed, 0755);
  char *good = pd_xasprintf("%s/sampled_rank-0.json.gz", mixed);
  size_t gn = 0;
  char *gd = read_all(GOOD_GZ, &gn);
  write_bytes(good, gd, gn);
  char *mtr = pd_xasprintf("%s/rank-1.json.gz", mixed);
  write_bytes(mtr, gd, gn / 2);
  free(gd);
  char *mnt = pd_xasprintf("%s/notes.json", mixed);
  write_bytes(mnt, cfg, strlen(cfg));
  tr_options o = {"json", 2, false, NULL, NULL, NULL, NULL};
  int failed = -1;
  char *err = NULL;
  char *text = tr_summarize_opts(mixed, &o, &failed, &err);
  CHECK(text != NULL);
  CHECK_INT(failed, 2);
  json_t *root = text ? json_loads(text, 0, NULL) : NULL;
  CHECK(root != NULL);
  CHECK_INT(json_array_size(json_object_get(root, "ranks")), 1);
  CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(root, "ranks"), 0), "rank")), 0);
  json_t *errs = json_object_get(root, "errors");
  CHECK_INT(json_array_size(errs), 2);
  size_t i;
  json_t *x;
  json_array_foreach(errs, i, x) {
    const char *msg = json_string_value(json_object_get(x, "message"));
    CHECK(msg && strstr(msg, json_string_value(json_object_get(x, "file"))) && byte_offset(msg) >= 0);
  }
  json_decref(root);
  free(text);
  free(err);
  /* markdown names the unreadable files too */
  o.format = "md";
  text = tr_summarize_opts(mixed, &o, &failed, &err);
  CHECK(text && strstr(text, "Could not read") && strstr(text, "rank-1.json.gz") && strstr(text, "truncated gzip"));
  free(text);
  free(err);
  char *q = pd_xasprintf("'%s'", mixed);
  CHECK_INT(run_cli(q), 1);
  free(q);

  /* 7. nothing readable: NULL + message (library), exit 2 (CLI) */
  char *emptydir = tmp_path("emptydir");
  mkdir(emptydir, 0755);
  err = NULL;
  text = tr_summarize(emptydir, "md", &err);
  CHECK(text == NULL);
  CHECK(err && strstr(err, emptydir) && strstr(err, "no trace files"));
  free(err);
  q = pd_xasprintf("'%s'", emptydir);
  CHECK_INT(run_cli(q), 2);
  free(q);
  err = NULL;
  text = tr_summarize(trunc, "json", &err);
  CHECK(text == NULL);
  CHECK(err && strstr(err, trunc) && byte_offset(err) > 0);
  free(err);
  /* the same in Chinese (issue 28): the reason and the offset, the path as it is */
  err = NULL;
  tr_options zh = {.format = "json", .lang = "zh"};
  text = tr_summarize_opts(trunc, &zh, NULL, &err);
  CHECK(text == NULL);
  CHECK(err && strstr(err, trunc) && strstr(err, "gzip 流被截断") && strstr(err, "解压后 JSON 的第 ") &&
        !strstr(err, "truncated") && !strstr(err, " at byte "));
  free(err);
  err = NULL;
  text = tr_summarize_opts("/nonexistent/trace.json", &zh, NULL, &err);
  CHECK(text == NULL && err && strstr(err, "没有这个 trace 文件或目录"));
  free(err);
  tr_rank_opts zr = {.lang = TR_ZH};
  tr_rank *rz = tr_rank_analyze(trunc, &zr);
  CHECK(rz->err && strstr(rz->err, "gzip 流被截断"));
  tr_rank_free(rz);
  q = pd_xasprintf("'%s'", trunc);
  CHECK_INT(run_cli(q), 2);
  free(q);
  CHECK_INT(run_cli("--format xml /nonexistent"), 2);
  CHECK_INT(run_cli(""), 2);
  q = pd_xasprintf("'%s' --format json", GOOD_GZ);
  CHECK_INT(run_cli(q), 0);
  free(q);

  char *rm = pd_xasprintf("rm -rf '%s'", tmpdir);
  CHECK(system(rm) == 0);
  free(rm);
  char *paths[] = {trunc, flipped, halfway, halfway_gz, cut, nontrace, scalar, empty, trailing, notarray,
                   mismatch, deepf, missing, mixed, good, mtr, mnt, emptydir};
  for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) free(paths[k]);
  return pd_test_exit("trace_corrupt");
}
