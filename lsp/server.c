#include "lsp/server.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "base/limits.h"
#include "base/str.h"
#include "base/path.h"
#include "lsp/codeaction.h"
#include "lsp/commands.h"
#include "lsp/completion.h"
#include "audit/settings.h"
#include "lsp/diagnostics.h"
#include "lsp/document.h"
#include "lsp/filemap.h"
#include "lsp/hover.h"
#include "lsp/jsonrpc.h"
#include "lsp/navigate.h"
#include "lsp/codelens.h"
#include "lsp/inlay.h"
#include "lsp/transport.h"
#include "lsp/workspace.h"

enum { SRV_MAX_QUEUE = 4096, SRV_MAX_CANCELLED = 1024 };

/* ServerCapabilities from the request table (defined with it, below). */
static json_t *table_capabilities(void);

typedef enum { LOG_ERROR = 1, LOG_WARNING = 2, LOG_INFO = 3, LOG_DEBUG = 4 } log_level;
typedef enum { TRACE_OFF, TRACE_MESSAGES, TRACE_VERBOSE } trace_level;
typedef enum { ST_UNINITIALIZED, ST_RUNNING, ST_SHUTDOWN } srv_state;

typedef struct {
  lt_reader *in;
  int out;
  srv_state state;
  bool exit, eof, shutdown_seen;
  doc_encoding enc;
  bool cap_related, cap_markdown, cap_show_document, cap_config_pull, cap_watch_register;
  trace_level trace;
  ws_workspace *ws;
  rpc_message *queue; /* pending messages: queue[qhead..qlen) */
  size_t qhead, qlen, qcap;
  json_t *cancelled;  /* ids of requests cancelled before they were answered */
  long long next_id;
  json_t *pending;    /* id (as text) -> method of our requests to the client */
} srv;

/* ---- output ---------------------------------------------------------------------------- */

static void send_body(srv *s, char *body, size_t len) {
  if (s->out >= 0 && lt_write(s->out, body, len) != 0) {
    fprintf(stderr, "perf-doctor lsp: cannot write to the client (%s); stopping\n", strerror(errno));
    s->out = -1;
    s->exit = true;
  }
  free(body);
}

static void reply(srv *s, const json_t *id, json_t *result) {
  size_t n;
  char *b = rpc_response(id, result, &n);
  send_body(s, b, n);
}

static void reply_error(srv *s, const json_t *id, int code, const char *msg) {
  size_t n;
  char *b = rpc_error(id, code, msg, NULL, &n);
  send_body(s, b, n);
}

static void notify(srv *s, const char *method, json_t *params) {
  size_t n;
  char *b = rpc_notification(method, params, &n);
  send_body(s, b, n);
}

static void request(srv *s, const char *method, json_t *params) {
  long long id = ++s->next_id;
  char key[32];
  snprintf(key, sizeof key, "%lld", id);
  json_object_set_new(s->pending, key, json_string(method));
  size_t n;
  char *b = rpc_request(id, method, params, &n);
  send_body(s, b, n);
}

static void log_msg(srv *s, log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_msg(srv *s, log_level level, const char *fmt, ...) {
  if (level == LOG_DEBUG && s->trace != TRACE_VERBOSE) return;
  va_list ap;
  va_start(ap, fmt);
  pd_buf b = {0};
  pd_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  fprintf(stderr, "perf-doctor lsp: %s\n", b.data);
  if (s->trace != TRACE_OFF && s->state != ST_UNINITIALIZED && s->out >= 0)
    notify(s, "window/logMessage", json_pack("{s:i,s:o}", "type", (int)level, "message", fm_string(b.data)));
  pd_buf_free(&b);
}

static void show_message(srv *s, log_level level, const char *text) {
  fprintf(stderr, "perf-doctor lsp: %s\n", text);
  notify(s, "window/showMessage", json_pack("{s:i,s:o}", "type", (int)level, "message", fm_string(text)));
}

/* ---- input ----------------------------------------------------------------------------- */

static bool id_cancelled(srv *s, const json_t *id, bool remove) {
  size_t i;
  json_t *v;
  json_array_foreach(s->cancelled, i, v) {
    if (rpc_id_equal(v, id)) {
      if (remove) json_array_remove(s->cancelled, i);
      return true;
    }
  }
  return false;
}

/* Reads one message (blocking) into the queue. Framing errors are answered here. */
static void read_one(srv *s) {
  char *body;
  size_t len;
  lt_status st = lt_read(s->in, &body, &len);
  switch (st) {
  case LT_EOF:
  case LT_IO_ERROR:
    s->eof = true;
    return;
  case LT_BAD_HEADER:
    log_msg(s, LOG_ERROR, "bad message framing: a header block without a valid Content-Length was skipped");
    reply_error(s, NULL, RPC_PARSE_ERROR, "bad message framing: missing or invalid Content-Length header");
    return;
  case LT_TOO_LARGE: {
    char msg[128];
    snprintf(msg, sizeof msg, "message of %zu bytes exceeds the limit; skipped", len);
    log_msg(s, LOG_ERROR, "%s", msg);
    reply_error(s, NULL, RPC_INVALID_REQUEST, msg);
    return;
  }
  case LT_MESSAGE:
    break;
  }
  rpc_message m;
  rpc_parse(body, len, &m);
  free(body);
  /* A cancellation takes effect at once, whatever is still queued before it. */
  if (m.kind == RPC_NOTIFICATION && !strcmp(m.method, "$/cancelRequest")) {
    json_t *id = json_object_get(m.params, "id");
    if ((json_is_integer(id) || json_is_string(id)) && !id_cancelled(s, id, false)) {
      if (json_array_size(s->cancelled) >= SRV_MAX_CANCELLED) json_array_remove(s->cancelled, 0);
      json_array_append(s->cancelled, id);
    }
    rpc_message_clear(&m);
    return;
  }
  if (s->qhead == s->qlen) s->qhead = s->qlen = 0;
  *PD_PUSH(s->queue, s->qlen, s->qcap) = m;
}

/* Reads every message that is already waiting. */
static void drain(srv *s) {
  while (!s->eof && !s->exit && s->qlen - s->qhead < SRV_MAX_QUEUE && lt_pending(s->in)) read_one(s);
}

static const char *param_uri(const json_t *params) {
  return json_string_value(json_object_get(json_object_get(params, "textDocument"), "uri"));
}

/* True when a queued message will change `uri` (so a result for it would be stale). */
static bool queued_change(const srv *s, const char *uri) {
  for (size_t i = s->qhead; i < s->qlen; i++) {
    const rpc_message *m = &s->queue[i];
    if (m->kind != RPC_NOTIFICATION) continue;
    if (!strcmp(m->method, "workspace/didChangeConfiguration")) return true;
    if (strcmp(m->method, "textDocument/didChange") != 0 && strcmp(m->method, "textDocument/didClose") != 0)
      continue;
    const char *u = param_uri(m->params);
    if (u && !strcmp(u, uri)) return true;
  }
  return false;
}

/* ---- what the workspace asks of the protocol ---- */

static bool host_superseded(void *ctx, const char *uri) {
  srv *s = ctx;
  drain(s);
  return queued_change(s, uri);
}

static void host_publish(void *ctx, const char *uri, json_t *diagnostics, long long version) {
  json_t *params = json_pack("{s:s,s:o}", "uri", uri, "diagnostics", diagnostics);
  if (version >= 0) json_object_set_new(params, "version", json_integer(version));
  notify(ctx, "textDocument/publishDiagnostics", params);
}

static void host_warn(void *ctx, const char *message) { show_message(ctx, LOG_WARNING, message); }
static void host_debug(void *ctx, const char *message) { log_msg(ctx, LOG_DEBUG, "%s", message); }

/* ---- handlers -------------------------------------------------------------------------- */

static bool json_str_in(const json_t *arr, const char *s) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return true;
  return false;
}

static json_t *path_get(const json_t *j, const char *dotted) {
  char key[64];
  const char *p = dotted;
  while (j && *p) {
    const char *e = strchr(p, '.');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n >= sizeof key) return NULL;
    memcpy(key, p, n);
    key[n] = '\0';
    j = json_object_get(j, key);
    p = e ? e + 1 : p + n;
  }
  return (json_t *)j;
}

static void set_trace(srv *s, const json_t *v) {
  const char *t = json_string_value(v);
  if (!t) return;
  s->trace = !strcmp(t, "verbose") ? TRACE_VERBOSE : !strcmp(t, "messages") ? TRACE_MESSAGES : TRACE_OFF;
}

static void apply_settings(srv *s, const json_t *settings) {
  char *errs = ws_apply_settings(s->ws, settings);
  if (errs) {
    char *msg = pd_xasprintf("perf-doctor settings: %s", errs);
    show_message(s, LOG_WARNING, msg);
    free(msg);
    free(errs);
  }
}

static void on_initialize(srv *s, const rpc_message *m) {
  const json_t *p = m->params;
  if (!json_is_object(p)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "initialize needs an InitializeParams object");
    return;
  }
  const json_t *caps = json_object_get(p, "capabilities");
  s->enc = DOC_UTF16;
  const char *enc_name = "utf-16";
  if (json_str_in(path_get(caps, "general.positionEncodings"), "utf-8") ||
      json_str_in(json_object_get(caps, "offsetEncoding"), "utf-8")) {
    s->enc = DOC_UTF8;
    enc_name = "utf-8";
  }
  s->cap_related = json_is_true(path_get(caps, "textDocument.publishDiagnostics.relatedInformation"));
  json_t *formats = path_get(caps, "textDocument.hover.contentFormat");
  s->cap_markdown = !json_is_array(formats) || json_str_in(formats, "markdown");
  s->cap_show_document = json_is_true(path_get(caps, "window.showDocument.support"));
  s->cap_config_pull = json_is_true(path_get(caps, "workspace.configuration"));
  s->cap_watch_register = json_is_true(path_get(caps, "workspace.didChangeWatchedFiles.dynamicRegistration"));
  set_trace(s, json_object_get(p, "trace"));

  json_t *folders = json_object_get(p, "workspaceFolders");
  size_t i;
  json_t *f;
  json_array_foreach(folders, i, f) ws_add_root(s->ws, json_string_value(json_object_get(f, "uri")));
  if (!ws_first_root(s->ws)) ws_add_root(s->ws, json_string_value(json_object_get(p, "rootUri")));
  if (!ws_first_root(s->ws) && json_is_string(json_object_get(p, "rootPath"))) {
    char *uri = doc_path_to_uri(json_string_value(json_object_get(p, "rootPath")));
    ws_add_root(s->ws, uri);
    free(uri);
  }
  ws_set_client(s->ws, s->enc, s->cap_related);
  s->state = ST_RUNNING;
  apply_settings(s, json_object_get(p, "initializationOptions"));

  json_t *capabilities = table_capabilities();
  json_object_set_new(capabilities, "positionEncoding", json_string(enc_name));
  json_object_set_new(capabilities, "textDocumentSync",
                      json_pack("{s:b,s:i,s:{s:b}}", "openClose", 1, "change", 2, "save", "includeText", 0));
  json_object_set_new(capabilities, "workspace",
                      json_pack("{s:{s:b,s:b}}", "workspaceFolders", "supported", 1, "changeNotifications", 1));
  if (s->enc == DOC_UTF8 && json_object_get(caps, "offsetEncoding"))
    json_object_set_new(capabilities, "offsetEncoding", json_string("utf-8"));
  reply(s, m->id, json_pack("{s:o,s:{s:s,s:s}}", "capabilities", capabilities, "serverInfo", "name",
                            "perf-doctor", "version", PD_VERSION));
}

static void on_initialized(srv *s) {
  if (s->cap_watch_register)
    request(s, "client/registerCapability",
            json_pack("{s:[{s:s,s:s,s:{s:[{s:s},{s:s}]}}]}", "registrations", "id", "perf-doctor-watch",
                      "method", "workspace/didChangeWatchedFiles", "registerOptions", "watchers",
                      "globPattern", "**/*.sh", "globPattern", "**/*.json"));
}

static void on_did_open(srv *s, const rpc_message *m) {
  json_t *td = json_object_get(m->params, "textDocument");
  json_t *uri = json_object_get(td, "uri"), *text = json_object_get(td, "text");
  json_t *version = json_object_get(td, "version");
  if (!json_is_string(uri) || !json_is_string(text)) {
    log_msg(s, LOG_ERROR, "didOpen without textDocument.uri / text: ignored");
    return;
  }
  ws_open(s->ws, json_string_value(uri), json_string_value(json_object_get(td, "languageId")),
          json_integer_value(version), json_string_value(text), json_string_length(text));
}

static bool read_position(const json_t *j, doc_pos *p) {
  json_t *l = json_object_get(j, "line"), *c = json_object_get(j, "character");
  if (!json_is_integer(l) || !json_is_integer(c) || json_integer_value(l) < 0 || json_integer_value(c) < 0)
    return false;
  p->line = json_integer_value(l) > UINT32_MAX ? UINT32_MAX : (uint32_t)json_integer_value(l);
  p->character = json_integer_value(c) > UINT32_MAX ? UINT32_MAX : (uint32_t)json_integer_value(c);
  return true;
}

static bool read_range(const json_t *j, doc_pos *a, doc_pos *b) {
  return read_position(json_object_get(j, "start"), a) && read_position(json_object_get(j, "end"), b);
}

static void on_did_change(srv *s, const rpc_message *m) {
  const char *uri = param_uri(m->params);
  ws_doc *wd = uri ? ws_find(s->ws, uri) : NULL;
  if (!wd) {
    log_msg(s, LOG_ERROR, "didChange for a document that is not open (%s): ignored", uri ? uri : "no uri");
    return;
  }
  doc_document *doc = ws_text(wd);
  json_t *changes = json_object_get(m->params, "contentChanges");
  size_t i;
  json_t *c;
  json_array_foreach(changes, i, c) {
    json_t *text = json_object_get(c, "text"), *range = json_object_get(c, "range");
    if (!json_is_string(text)) {
      log_msg(s, LOG_ERROR, "didChange: change %zu has no text: ignored", i);
      continue;
    }
    doc_pos a, b;
    if (!range) {
      doc_set_text(doc, json_string_value(text), json_string_length(text));
    } else if (!read_range(range, &a, &b) ||
               !doc_edit(doc, s->enc, a, b, json_string_value(text), json_string_length(text))) {
      log_msg(s, LOG_ERROR, "didChange: change %zu has an invalid range: ignored", i);
    }
  }
  json_t *version = path_get(m->params, "textDocument.version");
  if (json_is_integer(version)) doc->version = json_integer_value(version);
  ws_changed(s->ws, wd);
}

/* A saved file may be one that open scripts source (a model config edited outside this session,
 * or by a client that watches no files): they are analysed again. */
static void on_did_save(srv *s, const rpc_message *m) {
  const char *uri = param_uri(m->params);
  char *path = uri ? doc_uri_to_path(uri) : NULL;
  if (path) ws_file_changed(s->ws, path, false);
  free(path);
}

static void on_did_close(srv *s, const rpc_message *m) {
  const char *uri = param_uri(m->params);
  ws_doc *d = uri ? ws_find(s->ws, uri) : NULL;
  if (d) ws_close(s->ws, d);
}

static void on_did_change_watched(srv *s, const rpc_message *m) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(m->params, "changes"), i, c) {
    const char *uri = json_string_value(json_object_get(c, "uri"));
    char *path = uri ? doc_uri_to_path(uri) : NULL;
    if (!path) continue;
    json_int_t type = json_integer_value(json_object_get(c, "type"));
    ws_file_changed(s->ws, path, type == 1 || type == 3);
    free(path);
  }
}

static void on_did_change_configuration(srv *s, const rpc_message *m) {
  json_t *settings = json_object_get(m->params, "settings");
  if ((!settings || json_is_null(settings) || (json_is_object(settings) && json_object_size(settings) == 0)) &&
      s->cap_config_pull) {
    request(s, "workspace/configuration", json_pack("{s:[{s:s}]}", "items", "section", "perfDoctor"));
    return;
  }
  apply_settings(s, settings);
}

static void on_response(srv *s, const rpc_message *m) {
  char key[48];
  if (!json_is_integer(m->id)) return;
  snprintf(key, sizeof key, "%lld", (long long)json_integer_value(m->id));
  const char *method = json_string_value(json_object_get(s->pending, key));
  if (!method) {
    log_msg(s, LOG_WARNING, "response to unknown request %s: ignored", key);
    return;
  }
  const char *why = json_string_value(json_object_get(m->error, "message"));
  if (m->error)
    log_msg(s, LOG_WARNING, "%s failed: %s", method, why ? why : "(no message)");
  else if (!strcmp(method, "workspace/configuration") && json_is_array(m->result)) {
    json_t *first = json_array_get(m->result, 0);
    if (json_is_object(first)) apply_settings(s, first);
  }
  json_object_del(s->pending, key);
}

/* The open document a textDocument request names. Otherwise answers: InvalidParams without a
 * URI, `none` (consumed) for a document that is not open. */
static ws_doc *request_doc(srv *s, const rpc_message *m, json_t *none) {
  const char *uri = param_uri(m->params);
  ws_doc *d = uri ? ws_find(s->ws, uri) : NULL;
  if (!uri) reply_error(s, m->id, RPC_INVALID_PARAMS, "params.textDocument.uri is required");
  else if (!d) reply(s, m->id, none);
  if (d || !uri) json_decref(none);
  return d;
}

/* The up-to-date analysis that answers request m about d; NULL when m has been answered here
 * instead: cancelled meanwhile, or nothing to analyse (then `empty` is the reply). `empty` is
 * consumed either way. */
static ws_doc *answering_analysis(srv *s, const rpc_message *m, ws_doc *d, int *file,
                                  json_t *empty) {
  ws_doc *a = ws_analysis_for(s->ws, d, file);
  if (id_cancelled(s, m->id, true)) {
    json_decref(empty);
    reply_error(s, m->id, RPC_REQUEST_CANCELLED, "request cancelled");
    return NULL;
  }
  if (!a) {
    reply(s, m->id, empty);
    return NULL;
  }
  json_decref(empty);
  return a;
}

static void on_hover(srv *s, const rpc_message *m) {
  doc_pos pos;
  if (!read_position(json_object_get(m->params, "position"), &pos)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.position {line, character} is required");
    return;
  }
  ws_doc *d = request_doc(s, m, NULL);
  if (!d) return;
  int file;
  ws_doc *a = answering_analysis(s, m, d, &file, NULL);
  if (!a) return;
  size_t at = fm_offset(ws_map(a), file, pos);
  reply(s, m->id, hov_hover(ws_result(a), ws_map(a), file, at, ws_settings(s->ws)->lang, s->cap_markdown));
}

static json_t *empty_list(void) { return json_pack("{s:b,s:[]}", "isIncomplete", 0, "items"); }

static void on_completion(srv *s, const rpc_message *m) {
  doc_pos pos;
  if (!read_position(json_object_get(m->params, "position"), &pos)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.position {line, character} is required");
    return;
  }
  ws_doc *d = request_doc(s, m, empty_list());
  if (!d) return;
  int file;
  ws_doc *a = answering_analysis(s, m, d, &file, empty_list());
  if (!a) return;
  cmp_request q = {ws_result(a), ws_map(a), file, doc_parse(ws_text(d), ws_parser(s->ws)),
                   param_uri(m->params), ws_settings(s->ws)->lang};
  reply(s, m->id, cmp_complete(&q, fm_offset(ws_map(a), file, pos)));
}

/* completionItem/resolve: the item back with its documentation, from the analysis of the
 * document it was offered in (its data.uri); unchanged when that is gone. */
static void on_completion_resolve(srv *s, const rpc_message *m) {
  if (!json_is_object(m->params)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "completionItem/resolve needs a CompletionItem");
    return;
  }
  const char *uri = json_string_value(path_get(m->params, "data.uri"));
  ws_doc *d = uri ? ws_find(s->ws, uri) : NULL;
  int file;
  ws_doc *a = d ? ws_analysis_for(s->ws, d, &file) : NULL;
  reply(s, m->id, cmp_resolve(a ? ws_result(a) : NULL, m->params, ws_settings(s->ws)->lang));
}

static void on_code_action(srv *s, const rpc_message *m) {
  doc_pos p0, p1;
  if (!read_range(json_object_get(m->params, "range"), &p0, &p1)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.range is required");
    return;
  }
  ws_doc *d = request_doc(s, m, json_array());
  if (!d) return;
  int file;
  ws_doc *a = answering_analysis(s, m, d, &file, json_array());
  if (!a) return;
  size_t x = fm_offset(ws_map(a), file, p0), y = fm_offset(ws_map(a), file, p1);
  if (y < x) y = x;
  sm_options smo = ws_model_options(s->ws, ws_doc_path(a));
  dg_options dgo = ws_diag_options(s->ws);
  act_options o = {path_get(m->params, "context.only"), ws_parser(s->ws), &smo, &dgo,
                    ws_settings(s->ws)->lang};
  reply(s, m->id, act_actions(ws_result(a), ws_map(a), file, x, y, &o, ws_actions(a)));
}

/* A request about one position of an open document: the analysis that answers it, the
 * document's index among its files and the byte offset. NULL when the request was answered
 * here: bad params, a document not open, cancelled, or nothing to analyse (the answer is then
 * empty(), which may be NULL for a JSON null). */
static ws_doc *at_position(srv *s, const rpc_message *m, json_t *(*empty)(void), int *file, size_t *at) {
  doc_pos pos;
  if (!read_position(json_object_get(m->params, "position"), &pos)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.position {line, character} is required");
    return NULL;
  }
  ws_doc *d = request_doc(s, m, empty ? empty() : NULL);
  if (!d) return NULL;
  ws_doc *a = answering_analysis(s, m, d, file, empty ? empty() : NULL);
  if (a) *at = fm_offset(ws_map(a), *file, pos);
  return a;
}

static nav_request nav_of(srv *s, ws_doc *a, int file) {
  return (nav_request){ws_result(a), ws_map(a), file, ws_settings(s->ws)->lang};
}

static void on_definition(srv *s, const rpc_message *m) {
  int file;
  size_t at;
  ws_doc *a = at_position(s, m, json_array, &file, &at);
  if (!a) return;
  nav_request q = nav_of(s, a, file);
  reply(s, m->id, nav_definition(&q, at));
}

static void on_references(srv *s, const rpc_message *m) {
  int file;
  size_t at;
  ws_doc *a = at_position(s, m, json_array, &file, &at);
  if (!a) return;
  nav_request q = nav_of(s, a, file);
  bool decl = !json_is_false(path_get(m->params, "context.includeDeclaration"));
  reply(s, m->id, nav_references(&q, at, decl));
}

static void on_document_symbol(srv *s, const rpc_message *m) {
  ws_doc *d = request_doc(s, m, json_array());
  if (!d) return;
  int file;
  ws_doc *a = answering_analysis(s, m, d, &file, json_array());
  if (!a) return;
  nav_request q = nav_of(s, a, file);
  reply(s, m->id, nav_symbols(&q));
}

/* prepareRename and rename: a refusal is an error whose message says why (LSP 3.17). */
static void on_rename(srv *s, const rpc_message *m) {
  bool prepare = !strcmp(m->method, "textDocument/prepareRename");
  const char *new_name = json_string_value(json_object_get(m->params, "newName"));
  if (!prepare && !new_name) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.newName is required");
    return;
  }
  int file;
  size_t at;
  ws_doc *a = at_position(s, m, NULL, &file, &at);
  if (!a) return;
  nav_request q = nav_of(s, a, file);
  char *why = NULL;
  json_t *res = prepare ? nav_prepare_rename(&q, at, ws_parser(s->ws), &why) : nav_rename(&q, at, new_name, ws_parser(s->ws), &why);
  if (why) reply_error(s, m->id, RPC_REQUEST_FAILED, why);
  else reply(s, m->id, res);
  free(why);
}

static void on_inlay_hint(srv *s, const rpc_message *m) {
  doc_pos p0, p1;
  if (!read_range(json_object_get(m->params, "range"), &p0, &p1)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.range is required");
    return;
  }
  ws_doc *d = request_doc(s, m, json_array());
  if (!d) return;
  int file;
  ws_doc *a = answering_analysis(s, m, d, &file, json_array());
  if (!a) return;
  size_t x = fm_offset(ws_map(a), file, p0), y = fm_offset(ws_map(a), file, p1);
  reply(s, m->id, inl_hints(ws_result(a), ws_map(a), file, x, y < x ? x : y, ws_settings(s->ws)->lang));
}

static void on_code_lens(srv *s, const rpc_message *m) {
  ws_doc *d = request_doc(s, m, json_array());
  if (!d) return;
  int file;
  ws_doc *a = answering_analysis(s, m, d, &file, json_array());
  if (!a) return;
  reply(s, m->id, lens_lenses(ws_result(a), ws_map(a), file, param_uri(m->params), ws_settings(s->ws)->lang));
}

/* The i-th argument of an executeCommand: a string, or an object's "uri" (else "path"). */
static const char *command_arg(const rpc_message *m, size_t i) {
  json_t *arg = json_array_get(json_object_get(m->params, "arguments"), i);
  if (json_is_object(arg)) arg = json_object_get(arg, json_object_get(arg, "uri") ? "uri" : "path");
  return json_string_value(arg);
}

/* A path argument (a URI, an absolute path, or a path relative to the first workspace root) as
 * a path; NULL when what is NULL. Caller frees. */
static char *command_path(srv *s, const char *what) {
  if (!what) return NULL;
  char *path = pd_str_starts(what, "file:") ? doc_uri_to_path(what) : pd_xstrdup(what);
  if (path && path[0] != '/' && ws_first_root(s->ws)) {
    char *abs = pd_xasprintf("%s/%s", ws_first_root(s->ws), path);
    free(path);
    path = abs;
  }
  return path;
}

/* The open document a script argument names, by its URI or its path; NULL when none is open. */
static ws_doc *command_doc(srv *s, const char *what, const char *path) {
  ws_doc *d = ws_find(s->ws, what);
  if (!d && path) {
    char *n = pd_path_normalize(path);
    d = ws_find_path(s->ws, n);
    free(n);
  }
  return d;
}

/* Replies with the error `why` (already said in the user's language), after command cmd's name. */
static void fail(srv *s, const rpc_message *m, int code, const char *cmd, const char *why) {
  char *msg = pd_xasprintf("%s: %s", cmd, why);
  reply_error(s, m->id, code, msg);
  free(msg);
}

/* Replies with message id, whose only argument is the command's name. */
static void fail_say(srv *s, const rpc_message *m, int code, au_msg_id id, const char *cmd) {
  ax_value arg = ax_str(cmd);
  char *msg = ws_say(s->ws, id, &arg);
  reply_error(s, m->id, code, msg);
  free(msg);
}

/* perfDoctor.traceSummary [trace], perfDoctor.linkTrace [script, trace or ""],
 * perfDoctor.compareTraces [before, after]. */
static void trace_command(srv *s, const rpc_message *m, const char *cmd, const char *what, const char *path,
                          const char *second) {
  char *err = NULL;
  json_t *res = NULL;
  if (!strcmp(cmd, CMD_LINK_TRACE)) {
    ws_doc *d = command_doc(s, what, path);
    if (!d) {
      fail_say(s, m, RPC_INVALID_PARAMS, AU_MSG_CMD_NEEDS_SCRIPT_TRACE, cmd);
      return;
    }
    json_t *measures = NULL;
    const char *why = ws_link_trace(s->ws, d, second, &measures);
    if (why) {
      fail(s, m, RPC_REQUEST_FAILED, cmd, why);
      return;
    }
    json_t *linked = json_pack("{s:o, s:o}", "trace", second && *second ? json_string(second) : json_null(),
                            "measures", measures ? measures : json_null());
    char *other = ws_trace_mismatch(s->ws, d); /* linked, but said not to be this script's */
    if (other) {
      show_message(s, LOG_WARNING, other);
      json_object_set_new(linked, "mismatch", fm_string(other));
      free(other);
    }
    reply(s, m->id, linked);
    return;
  }
  if (!strcmp(cmd, CMD_COMPARE_TRACES)) {
    if (!path || !second) {
      fail_say(s, m, RPC_INVALID_PARAMS, AU_MSG_CMD_NEEDS_TWO_TRACES, cmd);
      return;
    }
    res = cmd_compare_traces(path, second, ws_settings(s->ws)->gpu, ws_settings(s->ws)->lang, &err);
  } else {
    res = path ? cmd_trace_summary(path, ws_settings(s->ws)->gpu, s->cap_show_document, ws_settings(s->ws)->lang, &err) : NULL;
  }
  if (!res && err) {
    fail(s, m, RPC_REQUEST_FAILED, cmd, err);
  } else if (!res) {
    fail_say(s, m, RPC_INVALID_PARAMS, AU_MSG_CMD_NEEDS_TRACE, cmd);
  } else {
    if (err) show_message(s, LOG_WARNING, err);
    const char *uri = json_string_value(json_object_get(res, "uri"));
    if (uri) request(s, "window/showDocument", json_pack("{s:s,s:b}", "uri", uri, "takeFocus", 1));
    reply(s, m->id, res);
  }
  free(err);
}

static void on_execute_command(srv *s, const rpc_message *m) {
  const char *cmd = json_string_value(json_object_get(m->params, "command"));
  const char *what = command_arg(m, 0);
  if (!cmd || !what) {
    char *msg = ws_say(s->ws, AU_MSG_CMD_NEEDS_ARGS, NULL);
    reply_error(s, m->id, RPC_INVALID_PARAMS, msg);
    free(msg);
    return;
  }
  char *path = command_path(s, what);
  if (!strcmp(cmd, CMD_MEMORY_BUDGET) || !strcmp(cmd, LENS_COMMAND)) {
    ws_doc *d = command_doc(s, what, path);
    int file;
    ws_doc *a = d ? ws_analysis_for(s->ws, d, &file) : NULL;
    if (a) {
      reply(s, m->id, cmd_memory_budget(ws_result(a), ws_settings(s->ws)->lang));
    } else {
      fail_say(s, m, RPC_INVALID_PARAMS, AU_MSG_CMD_NEEDS_SCRIPT, cmd);
    }
  } else if (!strcmp(cmd, CMD_REPORT)) {
    ws_doc *d = command_doc(s, what, path);
    int file;
    ws_doc *a = d ? ws_analysis_for(s->ws, d, &file) : NULL;
    const char *lang = ws_settings(s->ws)->lang;
    if (a) {
      reply(s, m->id, cmd_report(ws_result(a), lang));
    } else if (path) {
      /* Not open: read it from disk (nothing is written). */
      size_t len;
      char *text = pd_read_file(path, PD_MAX_FILE_BYTES, &len);
      if (!text) {
        ax_value args[3] = {ax_str(cmd), ax_str(path), ax_str(strerror(errno))};
        char *msg = ws_say(s->ws, AU_MSG_CMD_CANNOT_READ, args);
        reply_error(s, m->id, RPC_REQUEST_FAILED, msg);
        free(msg);
      } else {
        au_config ac = ws_audit_config(s->ws, path);
        au_result *r = au_run(path, text, len, NULL, &ac);
        reply(s, m->id, cmd_report(r, lang));
        au_result_free(r);
        free(text);
      }
    } else {
      fail_say(s, m, RPC_INVALID_PARAMS, AU_MSG_CMD_NEEDS_SCRIPT, cmd);
    }
  } else if (!strcmp(cmd, CMD_TRACE_SUMMARY) || !strcmp(cmd, CMD_LINK_TRACE) || !strcmp(cmd, CMD_COMPARE_TRACES)) {
    const char *raw = command_arg(m, 1);
    /* "" is "nothing" (linkTrace: unlink), not the workspace root */
    char *second = raw && !*raw ? pd_xstrdup("") : command_path(s, raw);
    trace_command(s, m, cmd, what, path, second);
    free(second);
  } else {
    fail_say(s, m, RPC_INVALID_PARAMS, AU_MSG_CMD_UNKNOWN, cmd);
  }
  free(path);
}

static void on_workspace_folders(srv *s, const rpc_message *m) {
  json_t *ev = json_object_get(m->params, "event");
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(ev, "removed"), i, f)
    ws_remove_root(s->ws, json_string_value(json_object_get(f, "uri")));
  json_array_foreach(json_object_get(ev, "added"), i, f)
    ws_add_root(s->ws, json_string_value(json_object_get(f, "uri")));
}

/* Requests that need an initialised, running server, with the capability each one is (the
 * initialize reply is built from this table, so that what is advertised is what is served). */
static const struct {
  const char *method;
  void (*fn)(srv *, const rpc_message *);
  const char *capability; /* ServerCapabilities key, or NULL */
  const char *options;    /* its value as JSON text */
} request_table[] = {
    {"textDocument/hover", on_hover, "hoverProvider", "true"},
    {"textDocument/completion", on_completion, "completionProvider",
     "{\"triggerCharacters\": [\"-\"], \"resolveProvider\": true}"},
    {"completionItem/resolve", on_completion_resolve, NULL, NULL},
    {"textDocument/definition", on_definition, "definitionProvider", "true"},
    {"textDocument/references", on_references, "referencesProvider", "true"},
    {"textDocument/documentSymbol", on_document_symbol, "documentSymbolProvider", "true"},
    {"textDocument/prepareRename", on_rename, NULL, NULL},
    {"textDocument/rename", on_rename, "renameProvider", "{\"prepareProvider\": true}"},
    {"textDocument/inlayHint", on_inlay_hint, "inlayHintProvider", "true"},
    {"textDocument/codeLens", on_code_lens, "codeLensProvider", "{\"resolveProvider\": false}"},
    {"textDocument/codeAction", on_code_action, "codeActionProvider",
     "{\"codeActionKinds\": [\"quickfix\", \"refactor.rewrite\", \"source.fixAll.perfDoctor\"]}"},
    {"workspace/executeCommand", on_execute_command, "executeCommandProvider",
     "{\"commands\": [\"" CMD_REPORT "\", \"" CMD_TRACE_SUMMARY "\", \"" CMD_LINK_TRACE "\", \"" CMD_COMPARE_TRACES "\", \"" CMD_MEMORY_BUDGET "\"]}"},
};

static const struct {
  const char *method;
  void (*fn)(srv *, const rpc_message *);
} notification_table[] = {
    {"textDocument/didOpen", on_did_open},
    {"textDocument/didChange", on_did_change},
    {"textDocument/didClose", on_did_close},
    {"textDocument/didSave", on_did_save},
    {"workspace/didChangeWatchedFiles", on_did_change_watched},
    {"workspace/didChangeConfiguration", on_did_change_configuration},
    {"workspace/didChangeWorkspaceFolders", on_workspace_folders},
};

static json_t *table_capabilities(void) {
  json_t *caps = json_object();
  for (size_t i = 0; i < sizeof request_table / sizeof *request_table; i++) {
    if (!request_table[i].capability) continue;
    json_t *v = json_loads(request_table[i].options, JSON_DECODE_ANY, NULL);
    json_object_set_new(caps, request_table[i].capability, v ? v : json_true());
  }
  return caps;
}

static void handle_request(srv *s, const rpc_message *m) {
  if (id_cancelled(s, m->id, true)) {
    reply_error(s, m->id, RPC_REQUEST_CANCELLED, "request cancelled");
    return;
  }
  if (!strcmp(m->method, "initialize")) {
    if (s->state != ST_UNINITIALIZED) reply_error(s, m->id, RPC_INVALID_REQUEST, "initialize was already received");
    else on_initialize(s, m);
    return;
  }
  if (s->state == ST_UNINITIALIZED) {
    reply_error(s, m->id, RPC_SERVER_NOT_INITIALIZED, "the server is not initialized yet");
    return;
  }
  if (s->state == ST_SHUTDOWN) {
    reply_error(s, m->id, RPC_INVALID_REQUEST, "the server is shutting down");
    return;
  }
  if (!strcmp(m->method, "shutdown")) {
    s->state = ST_SHUTDOWN;
    s->shutdown_seen = true;
    reply(s, m->id, NULL);
    return;
  }
  for (size_t i = 0; i < sizeof request_table / sizeof *request_table; i++) {
    if (!strcmp(m->method, request_table[i].method)) {
      if (!json_is_object(m->params)) {
        reply_error(s, m->id, RPC_INVALID_PARAMS, "params must be an object");
        return;
      }
      request_table[i].fn(s, m);
      return;
    }
  }
  char *msg = pd_xasprintf("method not found: %s", m->method);
  reply_error(s, m->id, RPC_METHOD_NOT_FOUND, msg);
  free(msg);
}

static void handle_notification(srv *s, const rpc_message *m) {
  if (!strcmp(m->method, "exit")) {
    s->exit = true;
    return;
  }
  if (s->state != ST_RUNNING) return; /* before initialize and after shutdown: dropped */
  if (!strcmp(m->method, "initialized")) {
    on_initialized(s);
    return;
  }
  if (!strcmp(m->method, "$/setTrace")) {
    set_trace(s, json_object_get(m->params, "value"));
    return;
  }
  for (size_t i = 0; i < sizeof notification_table / sizeof *notification_table; i++) {
    if (!strcmp(m->method, notification_table[i].method)) {
      if (!json_is_object(m->params)) log_msg(s, LOG_ERROR, "%s: params must be an object; ignored", m->method);
      else notification_table[i].fn(s, m);
      return;
    }
  }
  log_msg(s, LOG_DEBUG, "notification %s ignored", m->method);
}

static void handle(srv *s, rpc_message *m) {
  char idbuf[64];
  switch (m->kind) {
  case RPC_INVALID:
    log_msg(s, LOG_ERROR, "invalid message: %s", m->err_msg);
    /* A notification is never answered, even when it is malformed. */
    if (!(m->method && !json_object_get(m->root, "id"))) reply_error(s, m->id, m->err_code, m->err_msg);
    break;
  case RPC_REQUEST:
    log_msg(s, LOG_DEBUG, "request %s %s", rpc_id_str(m->id, idbuf, sizeof idbuf), m->method);
    handle_request(s, m);
    break;
  case RPC_NOTIFICATION:
    log_msg(s, LOG_DEBUG, "notification %s", m->method);
    handle_notification(s, m);
    break;
  case RPC_RESPONSE:
    on_response(s, m);
    break;
  }
}

int srv_serve(int in_fd, int out_fd, const srv_options *opt) {
  srv s_ = {0}, *s = &s_;
  ws_host host = {host_superseded, host_publish, host_warn, host_debug, s};
  s->ws = ws_new(&host);
  if (!s->ws) {
    fprintf(stderr, "perf-doctor lsp: the bash grammar's ABI is not accepted by the tree-sitter runtime\n");
    return 1;
  }
  s->in = lt_reader_new(in_fd, opt && opt->max_message_bytes ? opt->max_message_bytes : PD_MAX_MESSAGE_BYTES);
  s->out = out_fd;
  s->enc = DOC_UTF16;
  s->cancelled = json_array();
  s->pending = json_object();
  while (!s->exit) {
    if (s->qhead == s->qlen) {
      if (s->eof) break;
      ws_doc *d = ws_next_dirty(s->ws);
      if (d && s->state == ST_RUNNING && !lt_pending(s->in)) {
        ws_analyse(s->ws, d);
        continue;
      }
      read_one(s);
      continue;
    }
    drain(s);
    rpc_message m = s->queue[s->qhead++];
    handle(s, &m);
    rpc_message_clear(&m);
  }
  int status = s->shutdown_seen ? 0 : 1;
  if (s->eof && !s->exit) log_msg(s, LOG_INFO, "end of input without exit");
  for (size_t i = s->qhead; i < s->qlen; i++) rpc_message_clear(&s->queue[i]);
  free(s->queue);
  ws_free(s->ws);
  json_decref(s->cancelled);
  json_decref(s->pending);
  lt_reader_free(s->in);
  return status;
}

int pd_cmd_lsp(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stdio")) continue; /* what VS Code passes; stdio is the only transport */
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: perf-doctor lsp [--stdio]\n\nServes the Language Server Protocol (3.17) on "
             "stdin/stdout; logs go to stderr.\n");
      return 0;
    }
    fprintf(stderr, "perf-doctor lsp: unknown option '%s'\n", argv[i]);
    return 2;
  }
  /* A client that disappears must turn into a write error, not a signal. */
  signal(SIGPIPE, SIG_IGN);
  return srv_serve(STDIN_FILENO, STDOUT_FILENO, NULL);
}
