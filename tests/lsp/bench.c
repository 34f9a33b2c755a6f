/* bench: latency of the real server on a ~340-line launch script.
 *
 * usage: lsp_bench [SCRIPT] [EDITS]
 *
 * Measures spawn -> initialize reply, didOpen -> first publishDiagnostics, then EDITS single
 * incremental didChange notifications (alternately typing and deleting a character inside a
 * flag value, so every edit changes the analysis) each timed until the publishDiagnostics that
 * carries its version, then hover and codeAction round trips, and the server's peak RSS.
 * Reports p50 / p95 / max. Fails when a publish is missing or carries the wrong version, or when
 * p95 exceeds a generous bound (250 ms: this is a smoke bound for a 2-core box, not a target). */
#include <errno.h>
#include <stdbool.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/path.h"
#include "harness.h"

static int to_srv, from_srv;
static pd_buf inbuf;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void send_msg(json_t *j) {
  char *body = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  char head[64];
  int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", strlen(body));
  if (write(to_srv, head, (size_t)hn) != hn || write(to_srv, body, strlen(body)) != (ssize_t)strlen(body)) {
    perror("write");
    exit(2);
  }
  free(body);
}

/* Next message, or NULL after 10 s. */
static json_t *recv_msg(void) {
  double deadline = now_ms() + 10000;
  for (;;) {
    char *end = inbuf.data ? strstr(inbuf.data, "\r\n\r\n") : NULL;
    if (end) {
      size_t head = (size_t)(end - inbuf.data) + 4;
      size_t n = strtoul(inbuf.data + 16, NULL, 10);
      if (inbuf.len >= head + n) {
        json_t *j = json_loadb(inbuf.data + head, n, 0, NULL);
        memmove(inbuf.data, inbuf.data + head + n, inbuf.len - head - n + 1);
        inbuf.len -= head + n;
        return j;
      }
    }
    struct pollfd p = {.fd = from_srv, .events = POLLIN};
    int left = (int)(deadline - now_ms());
    if (left <= 0 || poll(&p, 1, left) <= 0) return NULL;
    char buf[65536];
    ssize_t r = read(from_srv, buf, sizeof buf);
    if (r <= 0) return NULL;
    pd_buf_append(&inbuf, buf, (size_t)r);
  }
}

/* Waits for the response to `id` or the publish of `version`; returns the latency or -1. */
static double wait_for(double t0, long long id, long long version) {
  for (;;) {
    json_t *m = recv_msg();
    if (!m) return -1;
    bool hit = id >= 0 ? json_integer_value(json_object_get(m, "id")) == id && !json_object_get(m, "method")
                       : json_integer_value(json_object_get(json_object_get(m, "params"), "version")) == version;
    json_decref(m);
    if (hit) return now_ms() - t0;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  printf("%-28s n=%-4d p50 %7.2f ms  p95 %7.2f ms  max %7.2f ms\n", what, n, v[n / 2],
         v[(int)(n * 0.95)], v[n - 1]);
}

static long peak_rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  char *script = argc > 1 ? pd_xstrdup(argv[1])
                          : pd_xasprintf("%s/lsp/fixtures/ws/scripts/training/bench/run-qwen3-4B-8xgpu.sh", PD_TESTS_DIR);
  int edits = argc > 2 ? atoi(argv[2]) : 200;
  size_t len;
  char *text = pd_read_file(script, 1 << 24, &len);
  if (!text || edits < 2) {
    fprintf(stderr, "usage: lsp_bench [SCRIPT] [EDITS >= 2]\n");
    return 2;
  }
  /* The character typed: right after "--max-tokens-per-gpu 9216" (a value the rules read). */
  const char *anchor = strstr(text, "--max-tokens-per-gpu 9216");
  if (!anchor) {
    fprintf(stderr, "%s has no --max-tokens-per-gpu 9216 line\n", script);
    return 2;
  }
  long line = 0;
  for (const char *p = text; p < anchor; p++) line += *p == '\n';
  const char *ls = anchor;
  while (ls > text && ls[-1] != '\n') ls--;
  long col = (long)(anchor - ls) + (long)strlen("--max-tokens-per-gpu 9216");

  int in[2], out[2];
  if (pipe(in) || pipe(out)) return 2;
  double t_spawn = now_ms();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    execl(PD_BINARY, PD_BINARY, "lsp", (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_srv = in[1];
  from_srv = out[0];

  char *uri = pd_xasprintf("file://%s", script);
  send_msg(json_pack("{s:s,s:i,s:s,s:{s:{}}}", "jsonrpc", "2.0", "id", 1, "method", "initialize", "params", "capabilities"));
  double init = wait_for(t_spawn, 1, -1);
  CHECK(init >= 0);
  send_msg(json_pack("{s:s,s:s,s:{}}", "jsonrpc", "2.0", "method", "initialized", "params"));
  double t0 = now_ms();
  send_msg(json_pack("{s:s,s:s,s:{s:{s:s,s:s,s:i,s:s#}}}", "jsonrpc", "2.0", "method", "textDocument/didOpen",
                     "params", "textDocument", "uri", uri, "languageId", "shellscript", "version", 1, "text", text, len));
  double open = wait_for(t0, -1, 1);
  CHECK(open >= 0);

  double *lat = pd_xcalloc((size_t)edits, sizeof *lat);
  int ok = 0;
  for (int i = 0; i < edits; i++) {
    bool typing = i % 2 == 0; /* "9216" -> "92167" -> "9216" ... */
    json_t *range = json_pack("{s:{s:I,s:I},s:{s:I,s:I}}", "start", "line", (json_int_t)line, "character",
                              (json_int_t)col, "end", "line", (json_int_t)line, "character", (json_int_t)(col + (typing ? 0 : 1)));
    t0 = now_ms();
    send_msg(json_pack("{s:s,s:s,s:{s:{s:s,s:i},s:[{s:o,s:s}]}}", "jsonrpc", "2.0", "method",
                       "textDocument/didChange", "params", "textDocument", "uri", uri, "version", i + 2,
                       "contentChanges", "range", range, "text", typing ? "7" : ""));
    lat[i] = wait_for(t0, -1, i + 2);
    if (lat[i] >= 0) ok++;
  }
  CHECK_INT(ok, edits);

  enum { ROUND_TRIPS = 50 };
  double hov[ROUND_TRIPS], act[ROUND_TRIPS];
  for (int i = 0; i < ROUND_TRIPS; i++) {
    t0 = now_ms();
    send_msg(json_pack("{s:s,s:i,s:s,s:{s:{s:s},s:{s:I,s:I}}}", "jsonrpc", "2.0", "id", 100 + i, "method",
                       "textDocument/hover", "params", "textDocument", "uri", uri, "position", "line",
                       (json_int_t)line, "character", (json_int_t)col - 3));
    hov[i] = wait_for(t0, 100 + i, -1);
    t0 = now_ms();
    send_msg(json_pack("{s:s,s:i,s:s,s:{s:{s:s},s:{s:{s:I,s:i},s:{s:I,s:i}},s:{s:[]}}}", "jsonrpc", "2.0", "id",
                       1000 + i, "method", "textDocument/codeAction", "params", "textDocument", "uri", uri, "range",
                       "start", "line", (json_int_t)line, "character", 5, "end", "line", (json_int_t)line, "character", 5,
                       "context", "diagnostics"));
    act[i] = wait_for(t0, 1000 + i, -1);
    CHECK(hov[i] >= 0 && act[i] >= 0);
  }
  long rss = peak_rss_kb(pid);

  long lines = 0;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  printf("lsp_bench: %s (%zu bytes, %ld lines)\n", script, len, lines);
  printf("%-28s %7.2f ms\n", "spawn -> initialize reply", init);
  printf("%-28s %7.2f ms\n", "didOpen -> publish", open);
  if (ok == edits) report("didChange -> publish", lat, edits);
  report("hover round trip", hov, ROUND_TRIPS);
  report("codeAction round trip", act, ROUND_TRIPS);
  printf("%-28s %ld kB\n", "server peak RSS (VmHWM)", rss);
  if (ok == edits) CHECK(lat[(int)(edits * 0.95)] < 250);

  send_msg(json_pack("{s:s,s:i,s:s}", "jsonrpc", "2.0", "id", 2, "method", "shutdown"));
  CHECK(wait_for(now_ms(), 2, -1) >= 0);
  send_msg(json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", "exit"));
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  free(lat);
  free(uri);
  free(text);
  free(script);
  pd_buf_free(&inbuf);
  return pd_test_exit("lsp_bench");
}
