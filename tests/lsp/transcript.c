/* transcript: runs the real `perf-doctor lsp` and replays a conversation written as data.
 *
 * usage: lsp_transcript FILE.lsp...
 *
 * A transcript is a list of directives, one per line (JSON may continue on the next lines until
 * it parses); blank lines and lines starting with '#' are ignored.
 *   send JSON            frame JSON with Content-Length and write it to the server
 *   raw "STRING"         write the bytes of a JSON string literal as they are (bad framing)
 *   open URI FILE [LANG] didOpen URI (version 1) with the text of FILE (relative to the fixtures)
 *   expect JSON          the next message must match JSON; consecutive expects match in any order
 *   quiet MS             no message (other than window/logMessage) arrives within MS milliseconds
 *   silent MS            no message at all arrives within MS milliseconds
 *   close                close the server's stdin
 *   exit CODE            the server exits with CODE (within the timeout)
 *   copy SRC DST         copy fixture file SRC (or an absolute path) to ${TMP}/DST
 *   write DST "STRING"   write the JSON string's text to ${TMP}/DST
 *   hold / flush         collect the following sends and write them in one go (so the server
 *                        finds them all waiting at once)
 *   pad N                write N bytes of 'x' (an oversized body)
 *   exists P / absent P  ${TMP}/P is a non-empty file / is not
 * Variables: ${WS} is the fixture workspace (tests/lsp/fixtures/ws), ${WSURI} its file URI,
 * ${TMP} a scratch folder made for this transcript, ${TMPURI} its URI, ${HTA} the real
 * profiler traces from HTA's test data (tests/fixtures/traces/hta).
 *
 * Matching: objects match when every expected key matches (actual may have more keys; the
 * value "<absent>" requires the key to be missing); arrays match element by element with equal
 * length, unless the first expected element is "<any-order>" (a permutation of the rest),
 * "<contains>" (each of the rest matches a distinct element), "<lacks>" (none of the rest
 * matches any element), or the last is "..." (the actual array starts with the others);
 * {"<all>": [P, Q]} matches a value that matches both P and Q; the string "<any>" matches any
 * value, a string starting with "~" matches any string containing the rest, one starting with
 * "!~" any string that does not contain it; numbers compare by
 * value. window/logMessage notifications are skipped unless a pending expect names that
 * method. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/path.h"
#include "harness.h"

#define TIMEOUT_MS 20000

typedef struct {
  pid_t pid;
  int to, from;  /* server stdin / stdout */
  bool holding;  /* `hold`: sends accumulate in out until `flush` writes them at once */
  pd_buf out;
  pd_buf in;     /* bytes read from the server, not yet parsed */
  json_t *held;  /* messages read but not yet matched */
  const char *name;
  int line;
  char *ws, *wsuri, *tmp, *tmpuri;
} session;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void fail(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(session *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s:%d: ", s->name, s->line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  pd_test_failures++;
}

static char *expand(const session *s, const char *text) {
  pd_buf b = {0};
  for (const char *p = text; *p;) {
    static const char *names[] = {"${WSURI}", "${WS}", "${TMPURI}", "${TMP}", "${HTA}"};
    const char *vals[] = {s->wsuri, s->ws, s->tmpuri, s->tmp, PD_HTA_DIR};
    bool hit = false;
    for (int i = 0; i < 5 && !hit; i++) {
      size_t n = strlen(names[i]);
      if (!strncmp(p, names[i], n)) {
        pd_buf_puts(&b, vals[i]);
        p += n;
        hit = true;
      }
    }
    if (!hit) pd_buf_putc(&b, *p++);
  }
  return pd_buf_take(&b);
}

static void write_all(session *s, const char *data, size_t n) {
  while (n > 0) {
    ssize_t w = write(s->to, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      fail(s, "write to server failed: %s", strerror(errno));
      return;
    }
    data += w;
    n -= (size_t)w;
  }
}

static void send_bytes(session *s, const char *data, size_t n) {
  if (s->holding) pd_buf_append(&s->out, data, n);
  else write_all(s, data, n);
}

static void send_json(session *s, json_t *j) {
  char *body = json_dumps(j, JSON_COMPACT | JSON_ALLOW_NUL);
  char head[64];
  int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", strlen(body));
  send_bytes(s, head, (size_t)hn);
  send_bytes(s, body, strlen(body));
  free(body);
}

/* Parses complete frames from s->in into s->held. */
static void parse_frames(session *s) {
  for (;;) {
    char *end = s->in.data ? strstr(s->in.data, "\r\n\r\n") : NULL;
    if (!end) return;
    long n = -1;
    const char *cl = strstr(s->in.data, "Content-Length: ");
    if (cl && cl < end) n = atol(cl + 16);
    size_t head = (size_t)(end - s->in.data) + 4;
    if (n < 0 || s->in.len < head + (size_t)n) return;
    json_error_t e;
    json_t *j = json_loadb(s->in.data + head, (size_t)n, JSON_ALLOW_NUL, &e);
    if (!j) fail(s, "server sent invalid JSON: %s", e.text);
    else json_array_append_new(s->held, j);
    memmove(s->in.data, s->in.data + head + n, s->in.len - head - (size_t)n + 1);
    s->in.len -= head + (size_t)n;
  }
}

/* Waits up to ms for more output; false on timeout or EOF. */
static bool pump(session *s, int ms) {
  struct pollfd p = {.fd = s->from, .events = POLLIN};
  int r = poll(&p, 1, ms);
  if (r <= 0) return false;
  char buf[65536];
  ssize_t n = read(s->from, buf, sizeof buf);
  if (n <= 0) return false;
  pd_buf_append(&s->in, buf, (size_t)n);
  parse_frames(s);
  return true;
}

static bool match(const json_t *want, const json_t *got);

static bool match_any_order(const json_t *want, const json_t *got) {
  size_t n = json_array_size(want) - 1;
  if (json_array_size(got) != n) return false;
  bool *used = calloc(n ? n : 1, sizeof *used);
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) {
    bool found = false;
    for (size_t k = 0; k < n && !found; k++)
      if (!used[k] && match(json_array_get(want, i + 1), json_array_get(got, k))) used[k] = found = true;
    ok = found;
  }
  free(used);
  return ok;
}

/* "<contains>": every pattern matches a distinct element; "<lacks>": none matches any element. */
static bool match_contains(const json_t *want, const json_t *got, bool lacks) {
  size_t n = json_array_size(want), m = json_array_size(got);
  bool *used = calloc(m ? m : 1, sizeof *used);
  bool ok = true;
  for (size_t i = 1; i < n && ok; i++) {
    bool found = false;
    for (size_t k = 0; k < m && !found; k++)
      if (!used[k] && match(json_array_get(want, i), json_array_get(got, k))) used[k] = found = true;
    ok = lacks ? !found : found;
  }
  free(used);
  return ok;
}

static bool match(const json_t *want, const json_t *got) {
  json_t *all = json_object_size(want) == 1 ? json_object_get(want, "<all>") : NULL;
  if (json_is_array(all)) { /* several patterns for one value */
    size_t i;
    json_t *w;
    json_array_foreach(all, i, w) if (!match(w, got)) return false;
    return true;
  }
  if (json_is_string(want)) {
    const char *w = json_string_value(want);
    if (!strcmp(w, "<any>")) return got != NULL;
    if (w[0] == '~') return json_is_string(got) && strstr(json_string_value(got), w + 1);
    if (w[0] == '!' && w[1] == '~') return json_is_string(got) && !strstr(json_string_value(got), w + 2);
    return json_is_string(got) && json_string_length(got) == json_string_length(want) &&
           !memcmp(json_string_value(got), w, json_string_length(want));
  }
  if (!got) return false;
  if (json_is_object(want)) {
    if (!json_is_object(got)) return false;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)want, k, v) {
      json_t *g = json_object_get(got, k);
      if (json_is_string(v) && !strcmp(json_string_value(v), "<absent>")) {
        if (g) return false;
      } else if (!match(v, g)) {
        return false;
      }
    }
    return true;
  }
  if (json_is_array(want)) {
    if (!json_is_array(got)) return false;
    size_t n = json_array_size(want);
    const char *first = json_string_value(json_array_get(want, 0));
    if (first && !strcmp(first, "<any-order>")) return match_any_order(want, got);
    if (first && !strcmp(first, "<contains>")) return match_contains(want, got, false);
    if (first && !strcmp(first, "<lacks>")) return match_contains(want, got, true);
    const char *last = n ? json_string_value(json_array_get(want, n - 1)) : NULL;
    bool prefix = last && !strcmp(last, "...");
    if (prefix) n--;
    if (prefix ? json_array_size(got) < n : json_array_size(got) != n) return false;
    for (size_t i = 0; i < n; i++)
      if (!match(json_array_get(want, i), json_array_get(got, i))) return false;
    return true;
  }
  if (json_is_number(want)) return json_is_number(got) && json_number_value(want) == json_number_value(got);
  return json_equal((json_t *)want, (json_t *)got);
}

static bool is_log(const json_t *m) {
  const char *method = json_string_value(json_object_get(m, "method"));
  return method && !strcmp(method, "window/logMessage");
}

/* Matches a group of expectations against the next messages, in any order. */
static void expect_group(session *s, json_t *group) {
  bool want_logs = false;
  size_t i;
  json_t *w;
  json_array_foreach(group, i, w) if (is_log(w)) want_logs = true;
  double deadline = now_ms() + TIMEOUT_MS;
  while (json_array_size(group) > 0) {
    /* Try every held message against the remaining expectations. */
    bool progress = false;
    for (size_t h = 0; h < json_array_size(s->held);) {
      json_t *m = json_array_get(s->held, h);
      if (!want_logs && is_log(m)) {
        json_array_remove(s->held, h);
        continue;
      }
      size_t k;
      for (k = 0; k < json_array_size(group); k++)
        if (match(json_array_get(group, k), m)) break;
      if (k == json_array_size(group)) {
        char *got = json_dumps(m, JSON_COMPACT);
        char *want = json_dumps(group, JSON_COMPACT);
        fail(s, "unexpected message %s\n  while expecting one of %s", got, want);
        free(got);
        free(want);
        json_array_remove(s->held, h);
        continue;
      }
      json_array_remove(group, k);
      json_array_remove(s->held, h);
      progress = true;
      if (json_array_size(group) == 0) return;
    }
    (void)progress;
    int left = (int)(deadline - now_ms());
    if (left <= 0 || !pump(s, left)) {
      char *want = json_dumps(group, JSON_COMPACT);
      fail(s, "timed out or server closed while expecting %s", want);
      free(want);
      return;
    }
  }
}

static void quiet(session *s, int ms, bool logs_too) {
  double deadline = now_ms() + ms;
  int left;
  while ((left = (int)(deadline - now_ms())) > 0 && pump(s, left)) {
  }
  for (size_t h = 0; h < json_array_size(s->held);) {
    json_t *m = json_array_get(s->held, h);
    if (logs_too || !is_log(m)) {
      char *got = json_dumps(m, JSON_COMPACT);
      fail(s, "expected silence, got %s", got);
      free(got);
    }
    json_array_remove(s->held, h);
  }
}

static void wait_exit(session *s, int code) {
  double deadline = now_ms() + TIMEOUT_MS;
  int status;
  for (;;) {
    pid_t r = waitpid(s->pid, &status, WNOHANG);
    if (r == s->pid) break;
    if (now_ms() > deadline) {
      fail(s, "server did not exit");
      kill(s->pid, SIGKILL);
      waitpid(s->pid, &status, 0);
      s->pid = -1;
      return;
    }
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
  s->pid = -1;
  if (!WIFEXITED(status)) fail(s, "server died with signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  else if (WEXITSTATUS(status) != code) fail(s, "server exit status %d, want %d", WEXITSTATUS(status), code);
  pd_test_checks++;
}

static void start(session *s) {
  int in[2], out[2];
  if (pipe(in) || pipe(out)) {
    perror("pipe");
    exit(2);
  }
  s->pid = fork();
  if (s->pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    if (!getenv("PD_LSP_STDERR")) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 2);
    }
    execl(PD_BINARY, PD_BINARY, "lsp", "--stdio", (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  s->to = in[1];
  s->from = out[0];
}

static char *fixture_path(const char *rel) { return pd_xasprintf("%s/lsp/fixtures/%s", PD_TESTS_DIR, rel); }

static void do_open(session *s, char *args) {
  char *uri = strtok(args, " \t"), *file = strtok(NULL, " \t"), *lang = strtok(NULL, " \t");
  if (!uri || !file) {
    fail(s, "open needs URI FILE");
    return;
  }
  char *path = file[0] == '/' ? pd_xstrdup(file) : fixture_path(file);
  size_t len;
  char *text = pd_read_file(path, 1 << 24, &len);
  if (!text) {
    fail(s, "cannot read %s", path);
    free(path);
    return;
  }
  json_t *j = json_pack("{s:s,s:s,s:{s:{s:s,s:s,s:i,s:s%}}}", "jsonrpc", "2.0", "method",
                        "textDocument/didOpen", "params", "textDocument", "uri", uri, "languageId",
                        lang ? lang : "shellscript", "version", 1, "text", text, len);
  send_json(s, j);
  json_decref(j);
  free(text);
  free(path);
}

/* Creates the folders of ${TMP}/... path `to`. */
static void make_parents(const session *s, const char *to) {
  char *dir = pd_xstrdup(to);
  for (char *q = dir + strlen(s->tmp) + 1; (q = strchr(q, '/')) != NULL; q++) {
    *q = '\0';
    mkdir(dir, 0755);
    *q = '/';
  }
  free(dir);
}

static void do_copy(session *s, char *args) {
  char *src = strtok(args, " \t"), *dst = strtok(NULL, " \t");
  if (!src || !dst) {
    fail(s, "copy needs SRC DST");
    return;
  }
  char *from = src[0] == '/' ? pd_xstrdup(src) : fixture_path(src), *to = pd_xasprintf("%s/%s", s->tmp, dst);
  make_parents(s, to);
  size_t len;
  char *data = pd_read_file(from, 1 << 28, &len);
  FILE *f = data ? fopen(to, "wb") : NULL;
  if (!f || fwrite(data, 1, len, f) != len) fail(s, "cannot copy %s to %s", from, to);
  if (f) fclose(f);
  free(data);
  free(from);
  free(to);
}

/* write DST JSON-STRING: (re)writes ${TMP}/DST. */
static void do_write(session *s, char *args) {
  char *dst = args, *sp = strpbrk(args, " \t");
  if (!sp) {
    fail(s, "write needs DST \"TEXT\"");
    return;
  }
  *sp++ = '\0';
  json_t *j = json_loads(sp, JSON_DECODE_ANY, NULL);
  char *to = pd_xasprintf("%s/%s", s->tmp, dst);
  make_parents(s, to);
  FILE *f = json_is_string(j) ? fopen(to, "wb") : NULL;
  if (!f || fwrite(json_string_value(j), 1, json_string_length(j), f) != json_string_length(j))
    fail(s, "cannot write %s", to);
  if (f) fclose(f);
  json_decref(j);
  free(to);
}

static void run_file(const char *file) {
  session s_ = {0}, *s = &s_;
  s->name = file;
  s->held = json_array();
  s->ws = pd_xasprintf("%s/lsp/fixtures/ws", PD_TESTS_DIR);
  s->wsuri = pd_xasprintf("file://%s", s->ws);
  char tmpl[] = "/tmp/pd-lsp-XXXXXX";
  s->tmp = pd_xstrdup(mkdtemp(tmpl) ? tmpl : "/tmp");
  s->tmpuri = pd_xasprintf("file://%s", s->tmp);
  size_t len;
  char *text = pd_read_file(file, 1 << 24, &len);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", file);
    pd_test_failures++;
    return;
  }
  start(s);
  json_t *group = json_array();
  int lineno = 0;
  pd_buf pending = {0}; /* a directive whose JSON continues on the next lines */
  int pending_line = 0;
  char *next = text;
  while (next || pending.len) {
    char *line = next;
    if (line) {
      char *nl = strchr(line, '\n');
      if (nl) *nl = '\0';
      next = nl ? nl + 1 : NULL;
      if (!nl && !*line) line = NULL; /* the end of the file */
    }
    if (line) lineno++;
    if (line && !pending.len && (line[0] == '#' || line[strspn(line, " \t\r")] == '\0')) continue;
    if (!line && !pending.len) break;
    if (line) {
      if (!pending.len) pending_line = lineno;
      if (pending.len) pd_buf_putc(&pending, '\n');
      pd_buf_puts(&pending, line);
    }
    s->line = pending_line;
    char *d = expand(s, pending.data);
    char *arg = d + strcspn(d, " \t");
    if (*arg) *arg++ = '\0';
    bool is_json = !strcmp(d, "send") || !strcmp(d, "expect") || !strcmp(d, "raw");
    json_t *j = NULL;
    if (is_json) {
      json_error_t e;
      j = json_loads(arg, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
      if (!j && line) { /* maybe continued on the next line */
        free(d);
        continue;
      }
      if (!j) fail(s, "bad JSON in directive: %s", e.text);
    }
    pending.len = 0;
    pending.data[0] = '\0';
    if (strcmp(d, "expect") != 0 && json_array_size(group) > 0) {
      expect_group(s, group);
      json_array_clear(group);
    }
    if (!strcmp(d, "send") && j) send_json(s, j);
    else if (!strcmp(d, "raw") && json_is_string(j)) send_bytes(s, json_string_value(j), json_string_length(j));
    else if (!strcmp(d, "hold")) s->holding = true;
    else if (!strcmp(d, "flush")) {
      s->holding = false;
      write_all(s, s->out.data ? s->out.data : "", s->out.len);
      s->out.len = 0;
    } else if (!strcmp(d, "pad")) {
      size_t n = strtoul(arg, NULL, 10);
      char *buf = malloc(n ? n : 1);
      memset(buf, 'x', n);
      send_bytes(s, buf, n);
      free(buf);
    } else if (!strcmp(d, "write")) do_write(s, arg);
    else if (!strcmp(d, "exists") || !strcmp(d, "absent")) {
      char *path = pd_xasprintf("%s/%s", s->tmp, arg);
      struct stat st;
      bool there = stat(path, &st) == 0 && st.st_size > 0;
      if (there != !strcmp(d, "exists")) fail(s, "%s: %s", path, there ? "exists" : "missing or empty");
      free(path);
    }
    else if (!strcmp(d, "expect") && j) json_array_append(group, j);
    else if (!strcmp(d, "open")) do_open(s, arg);
    else if (!strcmp(d, "copy")) do_copy(s, arg);
    else if (!strcmp(d, "quiet")) quiet(s, atoi(arg), false);
    else if (!strcmp(d, "silent")) quiet(s, atoi(arg), true);
    else if (!strcmp(d, "close")) {
      close(s->to);
      s->to = -1;
    } else if (!strcmp(d, "exit")) wait_exit(s, atoi(arg));
    else if (!is_json) fail(s, "unknown directive '%s'", d);
    pd_test_checks++;
    json_decref(j);
    free(d);
  }
  if (json_array_size(group) > 0) expect_group(s, group);
  json_decref(group);
  pd_buf_free(&pending);
  if (s->to >= 0) close(s->to);
  if (s->pid > 0) {
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
  }
  close(s->from);
  char *rm = pd_xasprintf("rm -rf '%s'", s->tmp);
  if (strncmp(s->tmp, "/tmp/pd-lsp-", 12) == 0 && system(rm) != 0) fprintf(stderr, "cannot remove %s\n", s->tmp);
  free(rm);
  free(text);
  json_decref(s->held);
  pd_buf_free(&s->in);
  pd_buf_free(&s->out);
  free(s->ws);
  free(s->wsuri);
  free(s->tmp);
  free(s->tmpuri);
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  for (int i = 1; i < argc; i++) {
    int before = pd_test_failures;
    run_file(argv[i]);
    printf("%s: %s\n", argv[i], pd_test_failures == before ? "ok" : "FAILED");
  }
  return pd_test_exit("lsp_transcript");
}
