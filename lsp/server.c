#include "lsp/server.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/audit.h"
#include "analyzer/cli.h"
#include "analyzer/util.h"
#include "lsp/codeaction.h"
#include "lsp/commands.h"
#include "lsp/config.h"
#include "lsp/diagnostics.h"
#include "lsp/document.h"
#include "lsp/filemap.h"
#include "lsp/hover.h"
#include "lsp/jsonrpc.h"
#include "lsp/transport.h"

enum { SRV_MAX_QUEUE = 4096, SRV_MAX_CANCELLED = 1024 };
#define SRV_MAX_FILE_BYTES ((size_t)16 << 20)

typedef enum { LOG_ERROR = 1, LOG_WARNING = 2, LOG_INFO = 3, LOG_DEBUG = 4 } log_level;
typedef enum { TRACE_OFF, TRACE_MESSAGES, TRACE_VERBOSE } trace_level;
typedef enum { ST_UNINITIALIZED, ST_RUNNING, ST_SHUTDOWN } srv_state;

/* An open document and what the server derived from it. */
typedef struct {
  doc_document *doc;
  bool dirty;          /* needs analysis and publishing */
  au_result *result;   /* last analysis (of result_version), or NULL */
  long long result_version;
  fm_map map;          /* files of result */
  act_cache *actions;  /* code actions of result, built as requested */
  char **deps;         /* normalised paths the last analysis read besides the document */
  size_t ndeps, deps_cap;
  json_t *contrib;     /* uri -> diagnostics this document's analysis contributes */
  sm_checkpoint *ckpt; /* where the next analysis can resume (see sm_resume), or NULL */
  unsigned long long ckpt_gen; /* doc->gen of the tree the checkpoint was checked against */
} srv_doc;

typedef struct {
  lt_reader *in;
  int out;
  srv_state state;
  bool exit, eof, shutdown_seen;
  doc_encoding enc;
  bool cap_related, cap_markdown, cap_show_document, cap_config_pull, cap_watch_register;
  trace_level trace;
  cfg_settings cfg;
  char **roots;
  size_t nroots, roots_cap;
  srv_doc **docs;
  size_t ndocs, docs_cap;
  rpc_message *queue; /* pending messages: queue[qhead..qlen) */
  size_t qhead, qlen, qcap;
  json_t *cancelled;  /* ids of requests cancelled before they were answered */
  long long next_id;
  json_t *pending;    /* id (as text) -> method of our requests to the client */
  TSParser *parser;
  sm_reader reader;
  au_rules *rules;    /* compiled catalog, loaded on first use; dropped when settings change */
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

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
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

/* ---- documents ------------------------------------------------------------------------- */

static srv_doc *find_doc(srv *s, const char *uri) {
  for (size_t i = 0; i < s->ndocs; i++)
    if (!strcmp(s->docs[i]->doc->uri, uri)) return s->docs[i];
  return NULL;
}

static srv_doc *find_doc_path(srv *s, const char *norm_path) {
  for (size_t i = 0; i < s->ndocs; i++) {
    const char *p = s->docs[i]->doc->path;
    if (!p) continue;
    char *n = pd_path_normalize(p);
    bool same = !strcmp(n, norm_path);
    free(n);
    if (same) return s->docs[i];
  }
  return NULL;
}

static bool has_dep(const srv_doc *d, const char *norm_path) {
  for (size_t i = 0; i < d->ndeps; i++)
    if (!strcmp(d->deps[i], norm_path)) return true;
  return false;
}

/* A document another open script sources: its findings come from that script's analysis.
 * Two documents that source each other each analyse themselves. */
static srv_doc *owner_of(srv *s, const srv_doc *d) {
  if (!d->doc->path) return NULL;
  char *n = pd_path_normalize(d->doc->path);
  srv_doc *owner = NULL;
  for (size_t i = 0; i < s->ndocs && !owner; i++) {
    srv_doc *c = s->docs[i];
    if (c == d || !c->doc->path || !has_dep(c, n)) continue;
    char *cn = pd_path_normalize(c->doc->path);
    if (!has_dep(d, cn)) owner = c;
    free(cn);
  }
  free(n);
  return owner;
}

/* Marks every document whose last analysis read `path` dirty. */
static void touch_path(srv *s, const char *path) {
  char *n = pd_path_normalize(path);
  for (size_t i = 0; i < s->ndocs; i++)
    if (has_dep(s->docs[i], n)) s->docs[i]->dirty = true;
  free(n);
}

static void mark_all_dirty(srv *s) {
  for (size_t i = 0; i < s->ndocs; i++) s->docs[i]->dirty = true;
}

static bool is_shell(const doc_document *d) {
  static const char *ids[] = {"shellscript", "sh", "bash", "zsh", "ksh"};
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
    if (!strcmp(d->language_id, ids[i])) return true;
  const char *p = d->path ? d->path : d->uri;
  return pd_str_ends(p, ".sh") || pd_str_ends(p, ".bash");
}

/* A launch script (it runs the train entrypoint) rather than a file it sources. Only used to
 * analyse launch scripts first, so that their sourced files are known to be theirs. */
static bool is_launcher(const doc_document *d) {
  /* The text may hold NUL bytes: search it by length (memmem is not POSIX). */
  for (const char *p = d->text, *end = d->text + d->len; (p = memchr(p, 'e', (size_t)(end - p))) != NULL; p++)
    if ((size_t)(end - p) >= 17 && (!memcmp(p, "entrypoints.train", 17) || !memcmp(p, "entrypoints/train", 17)))
      return true;
  return false;
}

static char *reader_read(void *ctx, const char *path, size_t *len) {
  srv *s = ctx;
  char *n = pd_path_normalize(path);
  srv_doc *d = find_doc_path(s, n);
  free(n);
  if (d) {
    *len = d->doc->len;
    char *copy = pd_xmalloc(d->doc->len + 1);
    memcpy(copy, d->doc->text, d->doc->len + 1);
    return copy;
  }
  return pd_read_file(path, SRV_MAX_FILE_BYTES, len);
}

static char *uri_of(void *ctx, const char *norm_path) {
  srv_doc *d = find_doc_path(ctx, norm_path);
  return d ? pd_xstrdup(d->doc->uri) : doc_path_to_uri(norm_path);
}

static const char *root_for(const srv *s, const char *path) {
  for (size_t i = 0; path && i < s->nroots; i++) {
    size_t n = strlen(s->roots[i]);
    if (n > 0 && !strncmp(path, s->roots[i], n) &&
        (path[n] == '/' || path[n] == '\0' || s->roots[i][n - 1] == '/'))
      return s->roots[i];
  }
  return NULL;
}

static void clear_analysis(srv_doc *d) {
  if (d->result) fm_free(&d->map);
  act_cache_free(d->actions);
  d->actions = NULL;
  au_result_free(d->result);
  d->result = NULL;
  for (size_t i = 0; i < d->ndeps; i++) free(d->deps[i]);
  d->ndeps = 0;
}

static void doc_destroy(srv_doc *d) {
  clear_analysis(d);
  sm_checkpoint_free(d->ckpt);
  free(d->deps);
  json_decref(d->contrib);
  doc_free(d->doc);
  free(d);
}

/* Publishes the union of every document's contribution to `uri`. */
static void publish(srv *s, const char *uri) {
  json_t *all = json_array();
  for (size_t i = 0; i < s->ndocs; i++) json_array_extend(all, json_object_get(s->docs[i]->contrib, uri));
  json_t *params = json_pack("{s:s,s:o}", "uri", uri, "diagnostics", all);
  srv_doc *d = find_doc(s, uri);
  if (d) json_object_set_new(params, "version", json_integer(d->doc->version));
  notify(s, "textDocument/publishDiagnostics", params);
}

/* The rule catalog is compiled once (it costs several times an analysis) and kept until the
 * settings or the user's rule file change. Problems with the rule file are shown once, here. */
static const au_rules *rules_for(srv *s) {
  if (!s->rules) {
    char **errs = NULL;
    size_t n = 0;
    s->rules = au_rules_load(s->cfg.extra_rules, &errs, &n);
    for (size_t i = 0; i < n; i++) {
      show_message(s, LOG_WARNING, errs[i]);
      free(errs[i]);
    }
    free(errs);
  }
  return s->rules;
}

static void drop_rules(srv *s) {
  au_rules_free(s->rules);
  s->rules = NULL;
}

static au_config audit_config(srv *s, const char *path) {
  au_config c = cfg_audit(&s->cfg);
  c.rules = rules_for(s);
  c.reader = &s->reader;
  c.workspace_root = root_for(s, path);
  return c;
}

static sm_options model_options(srv *s, const char *path) {
  sm_options o = {0};
  o.model_config_dir = s->cfg.model_config_dir;
  o.gpu = s->cfg.gpu;
  o.reader = &s->reader;
  o.workspace_root = root_for(s, path);
  return o;
}

static const char *doc_path(const srv_doc *d) { return d->doc->path ? d->doc->path : d->doc->uri; }

/* Analyses d (unless another open script owns it) and publishes the result, unless a queued
 * message has already made it stale. */
#define MAX_DOC_BYTES (16u << 20)

static void analyse(srv *s, srv_doc *d) {
  double t0 = now_ms();
  d->dirty = false;
  srv_doc *owner = owner_of(s, d);
  if (owner) {
    /* Sourced by an open script: that script's analysis reports on this file. */
    json_t *old = d->contrib;
    clear_analysis(d);
    d->contrib = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(old, key, v) if (strcmp(key, d->doc->uri) != 0) publish(s, key);
    json_decref(old);
    if (owner->dirty) analyse(s, owner); /* publishes this document too */
    else publish(s, d->doc->uri);
    return;
  }
  if (d->doc->len > MAX_DOC_BYTES) {
    /* Same limit as the command line: say so once instead of spending seconds per keystroke. */
    json_t *old = d->contrib;
    clear_analysis(d);
    d->contrib = json_object();
    json_object_set_new(d->contrib, d->doc->uri,
                        json_pack("[{s:{s:{s:i,s:i},s:{s:i,s:i}},s:i,s:s,s:s}]", "range", "start",
                                  "line", 0, "character", 0, "end", "line", 0, "character", 0,
                                  "severity", 3, "source", "perf-doctor", "message",
                                  "not analysed: the document is over the 16 MiB limit"));
    const char *key;
    json_t *v;
    json_object_foreach(old, key, v) if (strcmp(key, d->doc->uri) != 0) publish(s, key);
    json_decref(old);
    publish(s, d->doc->uri);
    return;
  }
  const TSTree *tree = doc_parse(d->doc, s->parser);
  au_config ac = audit_config(s, doc_path(d));
  /* Typing in a long script: the model's build resumes at the statement being edited. */
  sm_resume rs = {.checkpoint = d->ckpt,
                  .focus = (uint32_t)(d->doc->edit_at < UINT32_MAX ? d->doc->edit_at : UINT32_MAX)};
  if (d->ckpt && d->ckpt_gen == d->doc->gen) rs.unchanged_before = UINT32_MAX;
  else if (d->ckpt && d->ckpt_gen + 1 == d->doc->gen)
    rs.unchanged_before = d->doc->same_before < UINT32_MAX ? (uint32_t)d->doc->same_before : UINT32_MAX;
  ac.resume = &rs;
  au_result *r = au_run(doc_path(d), d->doc->text, d->doc->len, tree, &ac);
  d->ckpt = rs.checkpoint;
  d->ckpt_gen = d->doc->gen;
  double t1 = now_ms();
  /* The result answers requests about this version; whether to publish it depends on what is
   * already waiting: a queued edit of the script or of a file it read supersedes it. */
  clear_analysis(d);
  d->result = r;
  d->result_version = d->doc->version;
  fm_init(&d->map, r->model, d->doc->uri, s->enc, uri_of, s);
  d->actions = act_cache_new(&d->map, r->nfindings);
  drain(s);
  bool stale = queued_change(s, d->doc->uri);
  for (size_t i = 1; i < d->map.nfiles; i++) {
    if (!d->map.files[i].path) continue;
    *PD_PUSH(d->deps, d->ndeps, d->deps_cap) = pd_xstrdup(d->map.files[i].path);
    srv_doc *dep = find_doc_path(s, d->map.files[i].path);
    if (dep && dep != d && queued_change(s, dep->doc->uri)) stale = true;
  }
  if (stale) {
    log_msg(s, LOG_DEBUG, "analysis of %s v%lld superseded by a queued change", d->doc->uri, d->doc->version);
    d->dirty = true;
    return;
  }
  json_t *uris = json_object(); /* every file whose diagnostics this document touches */
  json_object_set_new(uris, d->doc->uri, json_true());
  for (size_t i = 0; i < d->ndeps; i++) {
    srv_doc *dep = find_doc_path(s, d->deps[i]);
    if (!dep || dep == d) continue;
    /* An open document it sources gets its diagnostics from here from now on. */
    json_object_set_new(uris, dep->doc->uri, json_true());
    const char *key;
    json_t *v;
    json_object_foreach(dep->contrib, key, v) json_object_set_new(uris, key, json_true());
    json_object_clear(dep->contrib);
    clear_analysis(dep);
    dep->dirty = false;
  }
  dg_options o = {s->cap_related, s->cfg.syntax_diagnostics, NULL};
  json_t *old = d->contrib;
  d->contrib = dg_build(r, &d->map, &o);
  const char *key;
  json_t *v;
  json_object_foreach(old, key, v) json_object_set_new(uris, key, json_true());
  json_object_foreach(d->contrib, key, v) json_object_set_new(uris, key, json_true());
  json_object_foreach(uris, key, v) publish(s, key);
  json_decref(uris);
  json_decref(old);
  for (size_t i = 0; i < r->nerrors; i++) show_message(s, LOG_WARNING, r->errors[i]);
  log_msg(s, LOG_DEBUG, "analysed %s v%lld in %.2f ms (%zu findings%s, %zu statements replayed)",
          d->doc->uri, d->doc->version, t1 - t0, r->nfindings, rs.resumed ? ", resumed" : "",
          rs.replayed);
}

/* The analysis that covers d (its own, or its owner's), brought up to date; NULL when d is not
 * a shell script. *file receives d's index among the analysis' files. */
static srv_doc *analysis_for(srv *s, srv_doc *d, int *file) {
  if (!is_shell(d->doc)) return NULL;
  /* Which script sources d is known only once the launch scripts are analysed. */
  for (size_t i = 0; i < s->ndocs; i++)
    if (s->docs[i] != d && s->docs[i]->dirty && is_launcher(s->docs[i]->doc)) analyse(s, s->docs[i]);
  srv_doc *owner = owner_of(s, d);
  srv_doc *a = owner ? owner : d;
  if (a->dirty || (!a->result && !owner)) analyse(s, a);
  if (d->dirty && d != a) analyse(s, d);
  if (!a->result) return NULL;
  *file = 0;
  if (owner) {
    char *n = pd_path_normalize(d->doc->path);
    *file = fm_find(&a->map, n);
    free(n);
    if (*file < 0) return NULL;
  }
  return a;
}

static void close_doc(srv *s, srv_doc *d) {
  json_t *old = d->contrib;
  d->contrib = NULL;
  for (size_t i = 0; i < d->ndeps; i++) {
    srv_doc *dep = find_doc_path(s, d->deps[i]);
    if (dep) dep->dirty = true; /* it may have to analyse itself now */
  }
  char *uri = pd_xstrdup(d->doc->uri);
  char *path = d->doc->path ? pd_xstrdup(d->doc->path) : NULL;
  for (size_t i = 0; i < s->ndocs; i++) {
    if (s->docs[i] == d) {
      memmove(&s->docs[i], &s->docs[i + 1], (s->ndocs - i - 1) * sizeof *s->docs);
      s->ndocs--;
      break;
    }
  }
  doc_destroy(d);
  /* Clear what it published (an empty list for itself), and re-read it from disk elsewhere. */
  const char *key;
  json_t *v;
  json_object_foreach(old, key, v) if (strcmp(key, uri) != 0) publish(s, key);
  publish(s, uri);
  if (path) touch_path(s, path);
  json_decref(old);
  free(uri);
  free(path);
}

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

static void add_root(srv *s, const char *uri) {
  char *p = uri ? doc_uri_to_path(uri) : NULL;
  if (!p) return;
  *PD_PUSH(s->roots, s->nroots, s->roots_cap) = pd_path_normalize(p);
  free(p);
}

static void apply_settings(srv *s, const json_t *settings) {
  drop_rules(s);
  char *errs = cfg_load(&s->cfg, settings);
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
  json_array_foreach(folders, i, f) add_root(s, json_string_value(json_object_get(f, "uri")));
  if (s->nroots == 0) add_root(s, json_string_value(json_object_get(p, "rootUri")));
  if (s->nroots == 0 && json_is_string(json_object_get(p, "rootPath"))) {
    char *uri = doc_path_to_uri(json_string_value(json_object_get(p, "rootPath")));
    add_root(s, uri);
    free(uri);
  }
  s->state = ST_RUNNING;
  apply_settings(s, json_object_get(p, "initializationOptions"));

  json_t *capabilities = json_pack(
      "{s:s, s:{s:b,s:i,s:b}, s:b, s:{s:[s,s,s]}, s:{s:[s,s]}, s:{s:{s:b,s:b}}}",
      "positionEncoding", enc_name, "textDocumentSync", "openClose", 1, "change", 2, "save", 0,
      "hoverProvider", 1, "codeActionProvider", "codeActionKinds", "quickfix", "refactor.rewrite",
      "source.fixAll.perfDoctor", "executeCommandProvider", "commands", CMD_REPORT, CMD_TRACE_SUMMARY,
      "workspace", "workspaceFolders", "supported", 1, "changeNotifications", 1);
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
  srv_doc *old = find_doc(s, json_string_value(uri));
  if (old) close_doc(s, old);
  srv_doc *d = pd_xcalloc(1, sizeof *d);
  d->doc = doc_new(json_string_value(uri), json_string_value(json_object_get(td, "languageId")),
                   json_integer_value(version), json_string_value(text), json_string_length(text));
  d->contrib = json_object();
  d->dirty = is_shell(d->doc);
  *PD_PUSH(s->docs, s->ndocs, s->docs_cap) = d;
  if (d->doc->path) touch_path(s, d->doc->path);
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
  srv_doc *d = uri ? find_doc(s, uri) : NULL;
  if (!d) {
    log_msg(s, LOG_ERROR, "didChange for a document that is not open (%s): ignored", uri ? uri : "no uri");
    return;
  }
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
      doc_set_text(d->doc, json_string_value(text), json_string_length(text));
    } else if (!read_range(range, &a, &b) ||
               !doc_edit(d->doc, s->enc, a, b, json_string_value(text), json_string_length(text))) {
      log_msg(s, LOG_ERROR, "didChange: change %zu has an invalid range: ignored", i);
    }
  }
  json_t *version = path_get(m->params, "textDocument.version");
  if (json_is_integer(version)) d->doc->version = json_integer_value(version);
  d->dirty = is_shell(d->doc);
  if (d->doc->path) touch_path(s, d->doc->path);
}

static void on_did_close(srv *s, const rpc_message *m) {
  const char *uri = param_uri(m->params);
  srv_doc *d = uri ? find_doc(s, uri) : NULL;
  if (d) close_doc(s, d);
}

static void on_did_change_watched(srv *s, const rpc_message *m) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(m->params, "changes"), i, c) {
    const char *uri = json_string_value(json_object_get(c, "uri"));
    char *path = uri ? doc_uri_to_path(uri) : NULL;
    if (!path) continue;
    touch_path(s, path);
    /* A file that appears or disappears may be one a script failed (or will fail) to source. */
    json_int_t type = json_integer_value(json_object_get(c, "type"));
    if (type == 1 || type == 3) mark_all_dirty(s);
    if (s->cfg.extra_rules) {
      char *a = pd_path_normalize(path), *b = pd_path_normalize(s->cfg.extra_rules);
      if (!strcmp(a, b)) {
        drop_rules(s);
        mark_all_dirty(s);
      }
      free(a);
      free(b);
    }
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
  mark_all_dirty(s);
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
    if (json_is_object(first)) {
      apply_settings(s, first);
      mark_all_dirty(s);
    }
  }
  json_object_del(s->pending, key);
}

/* The open document a textDocument request names. Otherwise answers: InvalidParams without a
 * URI, `none` (consumed) for a document that is not open. */
static srv_doc *request_doc(srv *s, const rpc_message *m, json_t *none) {
  const char *uri = param_uri(m->params);
  srv_doc *d = uri ? find_doc(s, uri) : NULL;
  if (!uri) reply_error(s, m->id, RPC_INVALID_PARAMS, "params.textDocument.uri is required");
  else if (!d) reply(s, m->id, none);
  if (d || !uri) json_decref(none);
  return d;
}

/* The up-to-date analysis that answers request m about d; NULL when m has been answered here
 * instead: cancelled meanwhile, or nothing to analyse (then `empty` is the reply). `empty` is
 * consumed either way. */
static srv_doc *answering_analysis(srv *s, const rpc_message *m, srv_doc *d, int *file,
                                   json_t *empty) {
  srv_doc *a = analysis_for(s, d, file);
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
  srv_doc *d = request_doc(s, m, NULL);
  if (!d) return;
  int file;
  srv_doc *a = answering_analysis(s, m, d, &file, NULL);
  if (!a) return;
  size_t at = fm_offset(&a->map, file, pos);
  reply(s, m->id, hov_hover(a->result, &a->map, file, at, s->cfg.lang, s->cap_markdown));
}

static void on_code_action(srv *s, const rpc_message *m) {
  doc_pos p0, p1;
  if (!read_range(json_object_get(m->params, "range"), &p0, &p1)) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "params.range is required");
    return;
  }
  srv_doc *d = request_doc(s, m, json_array());
  if (!d) return;
  int file;
  srv_doc *a = answering_analysis(s, m, d, &file, json_array());
  if (!a) return;
  size_t x = fm_offset(&a->map, file, p0), y = fm_offset(&a->map, file, p1);
  if (y < x) y = x;
  sm_options smo = model_options(s, doc_path(a));
  dg_options dgo = {s->cap_related, s->cfg.syntax_diagnostics, NULL};
  act_options o = {path_get(m->params, "context.only"), s->parser, &smo, &dgo};
  reply(s, m->id, act_actions(a->result, &a->map, file, x, y, &o, a->actions));
}

static void on_execute_command(srv *s, const rpc_message *m) {
  const char *cmd = json_string_value(json_object_get(m->params, "command"));
  json_t *arg = json_array_get(json_object_get(m->params, "arguments"), 0);
  if (json_is_object(arg)) arg = json_object_get(arg, json_object_get(arg, "uri") ? "uri" : "path");
  const char *what = json_string_value(arg);
  if (!cmd || !what) {
    reply_error(s, m->id, RPC_INVALID_PARAMS, "executeCommand needs a command and one argument (a URI or a path)");
    return;
  }
  char *path = pd_str_starts(what, "file:") ? doc_uri_to_path(what) : pd_xstrdup(what);
  if (path && path[0] != '/' && s->nroots > 0) {
    char *abs = pd_xasprintf("%s/%s", s->roots[0], path);
    free(path);
    path = abs;
  }
  if (!strcmp(cmd, CMD_REPORT)) {
    srv_doc *d = find_doc(s, what);
    if (!d && path) {
      char *n = pd_path_normalize(path);
      d = find_doc_path(s, n);
      free(n);
    }
    int file;
    srv_doc *a = d ? analysis_for(s, d, &file) : NULL;
    if (a) {
      reply(s, m->id, cmd_report(a->result, s->cfg.lang));
    } else if (path) {
      /* Not open: read it from disk (nothing is written). */
      size_t len;
      char *text = pd_read_file(path, SRV_MAX_FILE_BYTES, &len);
      if (!text) {
        char *msg = pd_xasprintf("cannot read %s: %s", path, strerror(errno));
        reply_error(s, m->id, RPC_REQUEST_FAILED, msg);
        free(msg);
      } else {
        au_config ac = audit_config(s, path);
        au_result *r = au_run(path, text, len, NULL, &ac);
        reply(s, m->id, cmd_report(r, s->cfg.lang));
        au_result_free(r);
        free(text);
      }
    } else {
      reply_error(s, m->id, RPC_INVALID_PARAMS, "perfDoctor.report needs the URI of a script");
    }
  } else if (!strcmp(cmd, CMD_TRACE_SUMMARY)) {
    char *err = NULL;
    json_t *res = path ? cmd_trace_summary(path, s->cap_show_document, &err) : NULL;
    if (!res) {
      char *msg = pd_xasprintf("perfDoctor.traceSummary: %s", err ? err : "needs a trace file or folder");
      reply_error(s, m->id, RPC_REQUEST_FAILED, msg);
      free(msg);
    } else {
      if (err) show_message(s, LOG_WARNING, err);
      const char *uri = json_string_value(json_object_get(res, "uri"));
      if (uri) request(s, "window/showDocument", json_pack("{s:s,s:b}", "uri", uri, "takeFocus", 1));
      reply(s, m->id, res);
    }
    free(err);
  } else {
    char *msg = pd_xasprintf("unknown command \"%s\"", cmd);
    reply_error(s, m->id, RPC_INVALID_PARAMS, msg);
    free(msg);
  }
  free(path);
}

static void on_workspace_folders(srv *s, const rpc_message *m) {
  json_t *ev = json_object_get(m->params, "event");
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(ev, "removed"), i, f) {
    const char *uri = json_string_value(json_object_get(f, "uri"));
    char *p = uri ? doc_uri_to_path(uri) : NULL;
    char *n = p ? pd_path_normalize(p) : NULL;
    for (size_t k = 0; n && k < s->nroots; k++) {
      if (strcmp(s->roots[k], n) != 0) continue;
      free(s->roots[k]);
      s->roots[k] = s->roots[--s->nroots];
      break;
    }
    free(n);
    free(p);
  }
  json_array_foreach(json_object_get(ev, "added"), i, f) add_root(s, json_string_value(json_object_get(f, "uri")));
  mark_all_dirty(s);
}

/* Requests that need an initialised, running server. */
static const struct {
  const char *method;
  void (*fn)(srv *, const rpc_message *);
} request_table[] = {
    {"textDocument/hover", on_hover},
    {"textDocument/codeAction", on_code_action},
    {"workspace/executeCommand", on_execute_command},
};

static const struct {
  const char *method;
  void (*fn)(srv *, const rpc_message *);
} notification_table[] = {
    {"textDocument/didOpen", on_did_open},
    {"textDocument/didChange", on_did_change},
    {"textDocument/didClose", on_did_close},
    {"workspace/didChangeWatchedFiles", on_did_change_watched},
    {"workspace/didChangeConfiguration", on_did_change_configuration},
    {"workspace/didChangeWorkspaceFolders", on_workspace_folders},
};

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

static srv_doc *next_dirty(srv *s) {
  srv_doc *first = NULL;
  for (size_t i = 0; i < s->ndocs; i++) {
    if (!s->docs[i]->dirty) continue;
    if (is_launcher(s->docs[i]->doc)) return s->docs[i];
    if (!first) first = s->docs[i];
  }
  return first;
}

int srv_serve(int in_fd, int out_fd, const srv_options *opt) {
  srv s_ = {0}, *s = &s_;
  s->in = lt_reader_new(in_fd, opt && opt->max_message_bytes ? opt->max_message_bytes : (size_t)64 << 20);
  s->out = out_fd;
  s->enc = DOC_UTF16;
  s->cancelled = json_array();
  s->pending = json_object();
  s->reader.read = reader_read;
  s->reader.ctx = s;
  cfg_init(&s->cfg);
  s->parser = sm_parser_new();
  if (!s->parser) {
    fprintf(stderr, "perf-doctor lsp: the bash grammar's ABI is not accepted by the tree-sitter runtime\n");
    lt_reader_free(s->in);
    json_decref(s->cancelled);
    json_decref(s->pending);
    cfg_free(&s->cfg);
    return 1;
  }
  while (!s->exit) {
    if (s->qhead == s->qlen) {
      if (s->eof) break;
      srv_doc *d = next_dirty(s);
      if (d && s->state == ST_RUNNING && !lt_pending(s->in)) {
        analyse(s, d);
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
  for (size_t i = 0; i < s->ndocs; i++) doc_destroy(s->docs[i]);
  free(s->docs);
  for (size_t i = 0; i < s->nroots; i++) free(s->roots[i]);
  free(s->roots);
  json_decref(s->cancelled);
  json_decref(s->pending);
  drop_rules(s);
  cfg_free(&s->cfg);
  ts_parser_delete(s->parser);
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
