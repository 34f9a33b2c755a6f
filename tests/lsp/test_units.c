/* Units of the language server's pure modules: framing, JSON-RPC envelopes, positions and
 * incremental edits of a document, URIs, settings. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/path.h"
#include "harness.h"
#include "lsp/codeaction.h"
#include "audit/settings.h"
#include "lsp/document.h"
#include "lsp/filemap.h"
#include "lsp/jsonrpc.h"
#include "lsp/transport.h"

/* A reader over the bytes of `input` (written to a pipe that is then closed). */
static lt_reader *reader_over(const char *input, size_t n, size_t max) {
  int fds[2];
  if (pipe(fds) != 0) abort();
  if (write(fds[1], input, n) != (ssize_t)n) abort();
  close(fds[1]);
  return lt_reader_new(fds[0], max);
}

static void test_transport(void) {
  static const char in[] =
      "Content-Length: 2\r\n\r\n{}"                                       /* ok */
      "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
      "content-length: 3\r\n\r\n[1]"                                     /* ok, two headers */
      "Content-Length: abc\r\n\r\n"                                       /* bad length */
      "garbageContent-Length: 1\r\n\r\n7"                                 /* garbage, then ok */
      "{\"jsonrpc\":\"2.0\"}\r\n"                                          /* no header at all */
      "Content-Length: 10\r\n\r\n0123456789"                              /* over the limit */
      "Content-Length: 4\n\nnull"                                         /* bare \n is tolerated */
      "Content-Length: 50\r\n\r\n{\"cut\":";                              /* EOF mid-body */
  lt_reader *r = reader_over(in, sizeof in - 1, 8);
  char *body;
  size_t len;
  CHECK_INT(lt_read(r, &body, &len), LT_MESSAGE);
  CHECK_STR(body, "{}");
  free(body);
  CHECK_INT(lt_read(r, &body, &len), LT_MESSAGE);
  CHECK_STR(body, "[1]");
  free(body);
  CHECK_INT(lt_read(r, &body, &len), LT_BAD_HEADER);
  CHECK_INT(lt_read(r, &body, &len), LT_BAD_HEADER);
  CHECK_INT(lt_read(r, &body, &len), LT_MESSAGE);
  CHECK_STR(body, "7");
  free(body);
  CHECK_INT(lt_read(r, &body, &len), LT_BAD_HEADER);
  CHECK_INT(lt_read(r, &body, &len), LT_TOO_LARGE);
  CHECK_INT(len, 10);
  CHECK_INT(lt_read(r, &body, &len), LT_MESSAGE);
  CHECK_STR(body, "null");
  free(body);
  CHECK(lt_pending(r));
  CHECK_INT(lt_read(r, &body, &len), LT_EOF);
  CHECK(body == NULL);
  CHECK_INT(lt_read(r, &body, &len), LT_EOF);
  lt_reader_free(r);

  /* A body with NUL bytes and a 1 MiB body arrive whole. */
  size_t big = 1 << 20;
  pd_buf b = {0};
  pd_buf_printf(&b, "Content-Length: 3\r\n\r\na%cb", 0);
  pd_buf_printf(&b, "Content-Length: %zu\r\n\r\n", big);
  for (size_t i = 0; i < big; i++) pd_buf_putc(&b, (char)('a' + i % 26));
  int fds[2];
  if (pipe(fds) != 0) abort();
  pid_t pid = fork();
  if (pid == 0) { /* the writer: a pipe holds less than 1 MiB */
    close(fds[0]);
    ssize_t w = write(fds[1], b.data, b.len);
    _exit(w == (ssize_t)b.len ? 0 : 1);
  }
  close(fds[1]);
  r = lt_reader_new(fds[0], 2 << 20);
  CHECK_INT(lt_read(r, &body, &len), LT_MESSAGE);
  CHECK_INT(len, 3);
  CHECK(body && body[1] == '\0' && body[2] == 'b');
  free(body);
  CHECK_INT(lt_read(r, &body, &len), LT_MESSAGE);
  CHECK_INT(len, big);
  CHECK(body && body[big - 1] == (char)('a' + (big - 1) % 26));
  free(body);
  lt_reader_free(r);
  close(fds[0]);
  pd_buf_free(&b);
}

static void parse(const char *s, rpc_message *m) { rpc_parse(s, strlen(s), m); }

static void test_jsonrpc(void) {
  rpc_message m;
  parse("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":{}}", &m);
  CHECK_INT(m.kind, RPC_REQUEST);
  CHECK_STR(m.method, "textDocument/hover");
  CHECK_INT(json_integer_value(m.id), 3);
  rpc_message_clear(&m);

  parse("{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}", &m);
  CHECK_INT(m.kind, RPC_NOTIFICATION);
  rpc_message_clear(&m);

  parse("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":null}", &m);
  CHECK_INT(m.kind, RPC_RESPONSE);
  rpc_message_clear(&m);

  parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", &m);
  CHECK_INT(m.kind, RPC_INVALID);
  CHECK_INT(m.err_code, RPC_PARSE_ERROR);
  rpc_message_clear(&m);

  parse("{\"id\":5,\"method\":\"x\"}", &m); /* no jsonrpc member: the id is still answered */
  CHECK_INT(m.kind, RPC_INVALID);
  CHECK_INT(m.err_code, RPC_INVALID_REQUEST);
  CHECK_INT(json_integer_value(m.id), 5);
  rpc_message_clear(&m);

  parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", &m);
  CHECK_INT(m.err_code, RPC_INVALID_REQUEST);
  rpc_message_clear(&m);

  parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":3}", &m);
  CHECK_INT(m.err_code, RPC_INVALID_PARAMS);
  rpc_message_clear(&m);

  parse("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"m\"}", &m);
  CHECK_INT(m.err_code, RPC_INVALID_REQUEST);
  CHECK(m.id == NULL);
  rpc_message_clear(&m);

  parse("[{\"jsonrpc\":\"2.0\",\"method\":\"m\"}]", &m);
  CHECK_INT(m.err_code, RPC_INVALID_REQUEST);
  rpc_message_clear(&m);

  parse("\"just a string\"", &m);
  CHECK_INT(m.err_code, RPC_INVALID_REQUEST);
  rpc_message_clear(&m);

  size_t n;
  json_t *id = json_integer(9);
  char *s = rpc_error(id, RPC_METHOD_NOT_FOUND, "nope", NULL, &n);
  CHECK_STR(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32601,\"message\":\"nope\"}}");
  free(s);
  s = rpc_response(id, json_pack("{s:b}", "ok", 1), &n);
  CHECK_STR(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"ok\":true}}");
  CHECK_INT(n, strlen(s));
  free(s);
  s = rpc_error(NULL, RPC_PARSE_ERROR, "bad \xff byte", NULL, &n);
  CHECK(strstr(s, "\"id\":null") && strstr(s, "not valid UTF-8"));
  free(s);
  json_decref(id);
}

static doc_pos P(uint32_t l, uint32_t c) { return (doc_pos){l, c}; }

static void test_positions(void) {
  /* "a中😀b": 中 is 3 bytes / 1 UTF-16 unit, 😀 is 4 bytes / 2 units. */
  const char *t = "x\r\na\xe4\xb8\xad\xf0\x9f\x98\x80" "b\rlast\n";
  size_t len = strlen(t);
  doc_lines l = {0};
  doc_lines_build(&l, t, len);
  CHECK_INT(l.n, 4); /* "x", "a中😀b", "last", "" */
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(1, 0)), 3);
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(1, 2)), 7);
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(1, 3)), 7);  /* inside 😀: its start */
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(1, 4)), 11);
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF8, P(1, 4)), 4 + 3); /* inside 中 (bytes) */
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF32, P(1, 3)), 11);
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(1, 99)), 12); /* clamped to the line end */
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(0, 9)), 1);   /* before "\r\n" */
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(2, 1)), 14);  /* lone \r ends a line */
  CHECK_INT(doc_lines_offset(&l, t, len, DOC_UTF16, P(9, 0)), len); /* past the end */
  doc_pos p = doc_lines_position(&l, t, len, DOC_UTF16, 11);
  CHECK_INT(p.line, 1);
  CHECK_INT(p.character, 4);
  p = doc_lines_position(&l, t, len, DOC_UTF16, 8); /* inside 😀 */
  CHECK_INT(p.character, 2);
  p = doc_lines_position(&l, t, len, DOC_UTF8, 11);
  CHECK_INT(p.character, 8);
  p = doc_lines_position(&l, t, len, DOC_UTF16, 2); /* between \r and \n */
  CHECK_INT(p.line, 0);
  CHECK_INT(p.character, 1);
  p = doc_lines_position(&l, t, len, DOC_UTF16, len);
  CHECK_INT(p.line, 3);
  CHECK_INT(p.character, 0);
  CHECK_INT(doc_units("\xe4\xb8\xad\xf0\x9f\x98\x80\xff", 8, DOC_UTF16), 4); /* bad byte: 1 */
  doc_lines_free(&l);
}

static void test_document(void) {
  doc_document *d = doc_new("file:///w/a%20b.sh", "shellscript", 1, "echo 中文\n--tp 2\n", strlen("echo 中文\n--tp 2\n"));
  CHECK_STR(d->path, "/w/a b.sh");
  /* Replace "文" (line 0, UTF-16 column 6..7) by "😀x" and join the two lines. */
  CHECK(doc_edit(d, DOC_UTF16, P(0, 6), P(0, 7), "\xf0\x9f\x98\x80x", 5));
  CHECK_STR(d->text, "echo 中\xf0\x9f\x98\x80x\n--tp 2\n");
  CHECK(doc_edit(d, DOC_UTF16, P(0, 9), P(1, 0), " ", 1));
  CHECK_STR(d->text, "echo 中\xf0\x9f\x98\x80x --tp 2\n");
  CHECK(!doc_edit(d, DOC_UTF16, P(0, 5), P(0, 2), "", 0)); /* start after end */
  CHECK(doc_edit(d, DOC_UTF16, P(7, 0), P(8, 0), "tail", 4)); /* past the end: appended */
  CHECK_STR(d->text, "echo 中\xf0\x9f\x98\x80x --tp 2\ntail");
  doc_set_text(d, "", 0);
  CHECK_INT(d->len, 0);
  CHECK_INT(d->lines.n, 1);
  doc_free(d);

  char *u = doc_path_to_uri("/tmp/a b/中.sh");
  CHECK_STR(u, "file:///tmp/a%20b/%E4%B8%AD.sh");
  char *p = doc_uri_to_path(u);
  CHECK_STR(p, "/tmp/a b/中.sh");
  free(u);
  free(p);
  CHECK(doc_uri_to_path("untitled:Untitled-1") == NULL);
  CHECK(doc_uri_to_path("file:///a%00b") == NULL);
  p = doc_uri_to_path("file://localhost/etc/x.sh");
  CHECK_STR(p, "/etc/x.sh");
  free(p);

  char *n = pd_path_normalize("/a/./b//c/../d.sh");
  CHECK_STR(n, "/a/b/d.sh");
  free(n);
  n = pd_path_normalize("/../x");
  CHECK_STR(n, "/x");
  free(n);
  json_t *j = fm_string("ok \xff\xfe end");
  CHECK_STR(json_string_value(j), "ok \xef\xbf\xbd\xef\xbf\xbd end");
  json_decref(j);
}

static void test_config(void) {
  au_settings c;
  au_settings_init(&c);
  json_t *j = json_loads("{\"perfDoctor\": {\"gpu\": \"H100-80G\", \"lang\": \"zh\", \"rules\": "
                         "{\"R-P10\": \"off\", \"R-M01\": \"info\", \"R-X\": \"loud\"}, "
                         "\"disabledRules\": [\"R-C02\", 3], \"syntaxDiagnostics\": false}}",
                         0, NULL);
  char *errs = au_settings_load(&c, j);
  CHECK(errs && strstr(errs, "rules.R-X") && strstr(errs, "disabledRules[1]"));
  free(errs);
  CHECK_STR(c.gpu, "H100-80G");
  CHECK_STR(c.lang, "zh");
  CHECK(!c.syntax_diagnostics);
  CHECK_INT(c.noverrides, 4); /* three rules, and R-S02 off for syntaxDiagnostics false */
  au_config a = au_settings_config(&c);
  CHECK_STR(a.gpu, "H100-80G");
  int p10 = -9, m01 = -9, c02 = -9, s02 = -9;
  for (size_t i = 0; i < a.noverrides; i++) {
    if (!strcmp(a.overrides[i].rule, "R-P10")) p10 = a.overrides[i].severity;
    if (!strcmp(a.overrides[i].rule, "R-M01")) m01 = a.overrides[i].severity;
    if (!strcmp(a.overrides[i].rule, "R-C02")) c02 = a.overrides[i].severity;
    if (!strcmp(a.overrides[i].rule, "R-S02")) s02 = a.overrides[i].severity;
  }
  CHECK_INT(s02, -1);
  CHECK_INT(p10, -1);
  CHECK_INT(m01, AU_INFO);
  CHECK_INT(c02, -1);
  json_decref(j);
  /* Reloading replaces everything: a bad lang falls back to en. */
  j = json_loads("{\"lang\": \"fr\"}", 0, NULL);
  errs = au_settings_load(&c, j);
  CHECK(errs && strstr(errs, "lang"));
  free(errs);
  CHECK_STR(c.lang, "en");
  CHECK(c.gpu == NULL);
  CHECK_INT(c.noverrides, 0);
  CHECK(c.syntax_diagnostics);
  json_decref(j);
  au_settings_free(&c);
}

static char *uri_of(void *ctx, const char *path) {
  (void)ctx;
  return doc_path_to_uri(path);
}

/* A finding on a flag of the sourced model config: the NOTE goes into the config, and is offered
 * because the rebuilt model (reading the edited config) attaches it to that flag. */
static void test_note_in_model_config(void) {
  char *path = pd_xasprintf("%s/lsp/fixtures/ws/scripts/training/text/run-qwen3-4B-8xgpu.sh", PD_TESTS_DIR);
  size_t len;
  char *text = pd_read_file(path, 1 << 20, &len);
  CHECK(text != NULL);
  if (!text) return;
  sm_options opt = {0};
  au_result r = {0};
  char **errs = NULL;
  size_t nerrs = 0;
  au_rules *rules = au_rules_load(NULL, &errs, &nerrs); /* the actions' sentences */
  CHECK(nerrs == 0);
  r.rules = rules;
  r.model = sm_build(path, text, len, NULL, &opt);
  const sm_flag *g = sm_flag_get(r.model, "--num-query-groups");
  CHECK(g && g->file > 0);
  if (!g || g->file <= 0) {
    sm_model_free(r.model);
    free(text);
    free(path);
    return;
  }
  au_finding f = {0};
  f.rule = "R-TEST";
  f.severity = AU_WARN;
  f.title = "a test finding";
  f.flag = "--num-query-groups";
  f.file = g->file;
  f.range = g->full;
  r.findings = &f;
  r.nfindings = 1;
  fm_map m;
  char *uri = doc_path_to_uri(path);
  fm_init(&m, r.model, uri, DOC_UTF16, uri_of, NULL);
  TSParser *p = sm_parser_new();
  dg_options dg = {true, NULL, "en"};
  act_options o = {NULL, p, &opt, &dg, "en"};
  act_cache *cache = act_cache_new(&m, r.nfindings);
  json_t *acts = act_actions(&r, &m, g->file, g->range.start_byte, g->range.start_byte, &o, cache);
  json_t *note = NULL;
  size_t i;
  json_t *a;
  json_array_foreach(acts, i, a) if (strstr(json_string_value(json_object_get(a, "title")), "NOTE")) note = a;
  CHECK(note != NULL);
  const char *cfg_uri = fm_uri(&m, g->file);
  json_t *edits = json_object_get(json_object_get(json_object_get(note, "edit"), "changes"), cfg_uri);
  CHECK_INT(json_array_size(edits), 1);
  json_t *e = json_array_get(edits, 0);
  CHECK_STR(json_string_value(json_object_get(e, "newText")),
            "   # NOTE(perf-doctor): accept R-TEST: <reason this setting is right here>\n");
  CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(e, "range"), "start"), "line")),
            g->range.start_line);
  CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(e, "range"), "start"), "character")), 0);
  /* The same request again is answered from the cache, identically. */
  json_t *again = act_actions(&r, &m, g->file, g->range.start_byte, g->range.start_byte, &o, cache);
  CHECK(json_equal(acts, again));
  json_decref(again);
  act_cache_free(cache);
  /* Critical findings get none. */
  f.severity = AU_CRITICAL;
  cache = act_cache_new(&m, r.nfindings);
  json_t *none = act_actions(&r, &m, g->file, g->range.start_byte, g->range.start_byte, &o, cache);
  act_cache_free(cache);
  json_array_foreach(none, i, a) CHECK(!strstr(json_string_value(json_object_get(a, "title")), "NOTE"));
  json_decref(none);
  json_decref(acts);
  /* In Chinese: the title and the inserted comment, which the rebuilt model still reads as a
   * NOTE (else the action would not be offered). */
  f.severity = AU_WARN;
  o.lang = "zh";
  cache = act_cache_new(&m, r.nfindings);
  json_t *zh = act_actions(&r, &m, g->file, g->range.start_byte, g->range.start_byte, &o, cache);
  act_cache_free(cache);
  json_t *zh_note = NULL;
  json_array_foreach(zh, i, a) if (strstr(json_string_value(json_object_get(a, "title")), "添加 NOTE")) zh_note = a;
  CHECK(zh_note != NULL);
  if (zh_note) {
    json_t *ze = json_array_get(json_object_get(json_object_get(json_object_get(zh_note, "edit"), "changes"), cfg_uri), 0);
    CHECK_STR(json_string_value(json_object_get(ze, "newText")),
              "   # NOTE(perf-doctor): 接受 R-TEST：<此设置在这里合理的原因>\n");
  }
  json_decref(zh);
  ts_parser_delete(p);
  fm_free(&m);
  free(uri);
  sm_model_free(r.model);
  au_rules_free(rules);
  for (size_t k = 0; k < nerrs; k++) free(errs[k]);
  free(errs);
  free(text);
  free(path);
}

int main(void) {
  test_transport();
  test_jsonrpc();
  test_positions();
  test_document();
  test_config();
  test_note_in_model_config();
  return pd_test_exit("lsp_units");
}
