#include "lsp/workspace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"
#include "base/str.h"
#include "lsp/traces.h"
#include "pysrc/pysrc.h"

struct ws_doc {
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
  char *trace_link;    /* the trace perfDoctor.linkTrace tied to it, or NULL */
  unsigned long long ckpt_gen; /* doc->gen of the tree the checkpoint was checked against */
};

struct ws_workspace {
  ws_host host;
  doc_encoding enc;
  bool related;       /* the client shows relatedInformation */
  au_settings cfg;
  char **roots;
  size_t nroots, roots_cap;
  ws_doc **docs;
  size_t ndocs, docs_cap;
  TSParser *parser;
  sm_reader reader;
  au_rules *rules;    /* compiled catalog, loaded on first use; dropped when settings change */
  json_t *settings_json; /* the editor's settings as sent (overlaid on a project config) */
  ws_project *projects; /* the `.perf-doctor.json` files documents fall under, as last read */
  tc_cache *traces;     /* summarised traces, for evidence */
  size_t nprojects, projects_cap;
  ps_catalogs *catalogs; /* flag catalogs with a checkout's Relax options; kept for the session
                            (results borrow them) */
};

/* A project config file and the settings it gives a document: the file overlaid by the editor's
 * settings, so that the editor and `perf-doctor check` judge the script alike. Re-read when the
 * file changes (its modification time and size). */
struct ws_project {
  char *path;
  struct timespec mtime;
  off_t size;
  au_settings cfg;
  au_rules *rules; /* for its extraRules; loaded on first use */
};

static void debugf(ws_workspace *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void debugf(ws_workspace *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pd_buf b = {0};
  pd_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  s->host.debug(s->host.ctx, b.data);
  pd_buf_free(&b);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}


ws_doc *ws_find(ws_workspace *s, const char *uri) {
  for (size_t i = 0; i < s->ndocs; i++)
    if (!strcmp(s->docs[i]->doc->uri, uri)) return s->docs[i];
  return NULL;
}

ws_doc *ws_find_path(ws_workspace *s, const char *norm_path) {
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

static bool has_dep(const ws_doc *d, const char *norm_path) {
  for (size_t i = 0; i < d->ndeps; i++)
    if (!strcmp(d->deps[i], norm_path)) return true;
  return false;
}

/* A document another open script sources: its findings come from that script's analysis.
 * Two documents that source each other each analyse themselves. */
static ws_doc *owner_of(ws_workspace *s, const ws_doc *d) {
  if (!d->doc->path) return NULL;
  char *n = pd_path_normalize(d->doc->path);
  ws_doc *owner = NULL;
  for (size_t i = 0; i < s->ndocs && !owner; i++) {
    ws_doc *c = s->docs[i];
    if (c == d || !c->doc->path || !has_dep(c, n)) continue;
    char *cn = pd_path_normalize(c->doc->path);
    if (!has_dep(d, cn)) owner = c;
    free(cn);
  }
  free(n);
  return owner;
}

/* Marks every document whose last analysis read `path` dirty. */
static void touch_path(ws_workspace *s, const char *path) {
  char *n = pd_path_normalize(path);
  for (size_t i = 0; i < s->ndocs; i++)
    if (has_dep(s->docs[i], n)) s->docs[i]->dirty = true;
  free(n);
}

void ws_mark_all_dirty(ws_workspace *s) {
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
static bool runs_train(const doc_document *d) {
  /* The text may hold NUL bytes: search it by length (memmem is not POSIX). */
  for (const char *p = d->text, *end = d->text + d->len; (p = memchr(p, 'e', (size_t)(end - p))) != NULL; p++)
    if ((size_t)(end - p) >= 17 && (!memcmp(p, "entrypoints.train", 17) || !memcmp(p, "entrypoints/train", 17)))
      return true;
  return false;
}

static char *reader_read(void *ctx, const char *path, size_t *len) {
  ws_workspace *s = ctx;
  char *n = pd_path_normalize(path);
  ws_doc *d = ws_find_path(s, n);
  free(n);
  if (d) {
    *len = d->doc->len;
    char *copy = pd_xmalloc(d->doc->len + 1);
    memcpy(copy, d->doc->text, d->doc->len + 1);
    return copy;
  }
  return pd_read_file(path, PD_MAX_FILE_BYTES, len);
}

static char *uri_of(void *ctx, const char *norm_path) {
  ws_doc *d = ws_find_path(ctx, norm_path);
  return d ? pd_xstrdup(d->doc->uri) : doc_path_to_uri(norm_path);
}

static const char *root_for(const ws_workspace *s, const char *path) {
  for (size_t i = 0; path && i < s->nroots; i++) {
    size_t n = strlen(s->roots[i]);
    if (n > 0 && !strncmp(path, s->roots[i], n) &&
        (path[n] == '/' || path[n] == '\0' || s->roots[i][n - 1] == '/'))
      return s->roots[i];
  }
  return NULL;
}

static void clear_analysis(ws_doc *d) {
  if (d->result) fm_free(&d->map);
  act_cache_free(d->actions);
  d->actions = NULL;
  au_result_free(d->result);
  d->result = NULL;
  for (size_t i = 0; i < d->ndeps; i++) free(d->deps[i]);
  d->ndeps = 0;
}

static void doc_destroy(ws_doc *d) {
  clear_analysis(d);
  sm_checkpoint_free(d->ckpt);
  free(d->deps);
  free(d->trace_link);
  json_decref(d->contrib);
  doc_free(d->doc);
  free(d);
}

/* Publishes the union of every document's contribution to `uri`. */
static void publish(ws_workspace *s, const char *uri) {
  json_t *all = json_array();
  for (size_t i = 0; i < s->ndocs; i++) json_array_extend(all, json_object_get(s->docs[i]->contrib, uri));
  ws_doc *d = ws_find(s, uri);
  s->host.publish(s->host.ctx, uri, all, d ? d->doc->version : -1);
}

/* The rule catalog is compiled once (it costs several times an analysis) and kept until the
 * settings or the user's rule file change. Problems with the rule file are shown once, here. */
/* The catalog with a user rule file (NULL: none); its problems are shown once, here. */
static au_rules *load_rules(ws_workspace *s, const char *extra_rules) {
  char **errs = NULL;
  size_t n = 0;
  au_rules *r = au_rules_load(extra_rules, &errs, &n);
  for (size_t i = 0; i < n; i++) {
    s->host.warn(s->host.ctx, errs[i]);
    free(errs[i]);
  }
  free(errs);
  return r;
}

static const au_rules *rules_for(ws_workspace *s) {
  if (!s->rules) s->rules = load_rules(s, s->cfg.extra_rules);
  return s->rules;
}

static void drop_rules(ws_workspace *s) {
  au_rules_free(s->rules);
  s->rules = NULL;
}

static void project_free(ws_project *p) {
  free(p->path);
  au_settings_free(&p->cfg);
  au_rules_free(p->rules);
}

static void drop_projects(ws_workspace *s) {
  for (size_t i = 0; i < s->nprojects; i++) project_free(&s->projects[i]);
  s->nprojects = 0;
}

/* The project config governing path, current with the file on disk; NULL when there is none. */
static ws_project *project_for(ws_workspace *s, const char *path) {
  char *cfg = au_settings_find(path);
  if (!cfg) return NULL;
  struct stat st;
  if (stat(cfg, &st) != 0) {
    free(cfg);
    return NULL;
  }
  ws_project *p = NULL;
  for (size_t i = 0; i < s->nprojects && !p; i++)
    if (!strcmp(s->projects[i].path, cfg)) p = &s->projects[i];
  bool fresh = p && p->size == st.st_size && p->mtime.tv_sec == st.st_mtim.tv_sec &&
               p->mtime.tv_nsec == st.st_mtim.tv_nsec;
  if (fresh) {
    free(cfg);
    return p;
  }
  if (p) project_free(p);
  else p = PD_PUSH(s->projects, s->nprojects, s->projects_cap);
  memset(p, 0, sizeof *p);
  p->path = cfg;
  p->mtime = st.st_mtim;
  p->size = st.st_size;
  au_settings_init(&p->cfg);
  char *errs = au_settings_apply_file(&p->cfg, cfg);
  char *more = au_settings_apply(&p->cfg, s->settings_json);
  if (errs) s->host.warn(s->host.ctx, errs);
  free(errs);
  free(more); /* already reported when the editor sent them */
  return p;
}

/* The settings a document is analysed with: its project's, else the editor's. */
static const au_settings *settings_for(ws_workspace *s, const char *path, ws_project **proj) {
  *proj = project_for(s, path);
  return *proj ? &(*proj)->cfg : &s->cfg;
}

static const au_rules *project_rules(ws_workspace *s, ws_project *p) {
  if (!p || !p->cfg.extra_rules || (s->cfg.extra_rules && !strcmp(p->cfg.extra_rules, s->cfg.extra_rules)))
    return rules_for(s);
  if (!p->rules) p->rules = load_rules(s, p->cfg.extra_rules);
  return p->rules;
}

/* The flag catalog for the script at path: the built-in one with Relax's options read from the
 * checkout the relaxSrc setting names, else the one the script is in. */
static const fc_catalog *catalog_for(ws_workspace *s, const au_settings *cfg, const au_rules *rules,
                                     const char *path) {
  char *warning = NULL;
  const fc_catalog *c = ps_catalog_for(s->catalogs, au_rules_flags(rules), cfg->relax_src, path, &warning);
  if (warning) s->host.warn(s->host.ctx, warning);
  free(warning);
  return c;
}

/* The audit configuration for path, and (cfg) the settings it was made from. */
static au_config audit_config(ws_workspace *s, const char *path, const au_settings **cfg) {
  ws_project *p;
  *cfg = settings_for(s, path, &p);
  au_config c = au_settings_config(*cfg);
  c.rules = project_rules(s, p);
  c.catalog = catalog_for(s, *cfg, c.rules, path);
  c.reader = &s->reader;
  c.workspace_root = root_for(s, path);
  return c;
}

au_config ws_audit_config(ws_workspace *s, const char *path) {
  const au_settings *cfg;
  return audit_config(s, path, &cfg);
}

sm_options ws_model_options(ws_workspace *s, const char *path) {
  ws_project *p;
  const au_settings *cfg = settings_for(s, path, &p);
  sm_options o = {0};
  o.model_config_dir = cfg->model_config_dir;
  o.gpu = cfg->gpu;
  o.reader = &s->reader;
  o.workspace_root = root_for(s, path);
  o.catalog = catalog_for(s, cfg, project_rules(s, p), path);
  return o;
}

const char *ws_doc_path(const ws_doc *d) { return d->doc->path ? d->doc->path : d->doc->uri; }

/* The trace whose measures back d's findings: linked, the traceDir setting, or the default
 * folder (lsp/traces.h); NULL when there is none. Caller frees. */
static char *trace_of(ws_workspace *s, const ws_doc *d, const au_result *r, const au_settings *cfg) {
  if (d->trace_link) return pd_xstrdup(d->trace_link);
  if (cfg->trace_dir) return pd_xstrdup(cfg->trace_dir);
  return r->model->launch_script ? tc_default_dir(r->model, s->roots, s->nroots) : NULL;
}

static void attach_evidence(ws_workspace *s, ws_doc *d, au_result *r, const au_settings *cfg) {
  char *dir = trace_of(s, d, r, cfg);
  if (!dir) return;
  const char *err;
  const evd_trace *t = tc_get(s->traces, dir, cfg->gpu, cfg->lang, &err);
  if (t) evd_apply(r, t);
  else debugf(s, "no evidence for %s: %s", d->doc->uri, err);
  free(dir);
}

const char *ws_link_trace(ws_workspace *s, ws_doc *d, const char *path, json_t **measures) {
  *measures = NULL;
  if (!path || !*path) {
    free(d->trace_link);
    d->trace_link = NULL;
    d->dirty = true;
    return NULL;
  }
  char *link = pd_path_normalize(path);
  ws_project *p;
  const char *err = NULL;
  const au_settings *cfg = settings_for(s, ws_doc_path(d), &p);
  const evd_trace *t = tc_get(s->traces, link, cfg->gpu, cfg->lang, &err);
  if (!t) { /* the link stays as it was */
    free(link);
    return err;
  }
  free(d->trace_link);
  d->trace_link = link;
  d->dirty = true;
  if (d->result) *measures = evd_trace_json(t, d->result);
  return NULL;
}

char *ws_trace_mismatch(ws_workspace *s, ws_doc *d) {
  if (!d->trace_link) return NULL;
  int file;
  ws_doc *a = ws_analysis_for(s, d, &file);
  if (!a || a != d || !a->result) return NULL;
  ws_project *p;
  const char *err;
  const au_settings *cfg = settings_for(s, ws_doc_path(d), &p);
  const evd_trace *t = tc_get(s->traces, d->trace_link, cfg->gpu, cfg->lang, &err);
  return t ? evd_mismatch(t, a->result, s->cfg.lang) : NULL;
}

/* Analyses d (unless another open script owns it) and publishes the result, unless a queued
 * message has already made it stale. */
void ws_analyse(ws_workspace *s, ws_doc *d) {
  double t0 = now_ms();
  d->dirty = false;
  ws_doc *owner = owner_of(s, d);
  if (owner) {
    /* Sourced by an open script: that script's analysis reports on this file. */
    json_t *old = d->contrib;
    clear_analysis(d);
    d->contrib = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(old, key, v) if (strcmp(key, d->doc->uri) != 0) publish(s, key);
    json_decref(old);
    if (owner->dirty) ws_analyse(s, owner); /* publishes this document too */
    else publish(s, d->doc->uri);
    return;
  }
  if (d->doc->len > PD_MAX_FILE_BYTES) {
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
  const au_settings *cfg;
  au_config ac = audit_config(s, ws_doc_path(d), &cfg);
  /* Typing in a long script: the model's build resumes at the statement being edited. */
  sm_resume rs = {.checkpoint = d->ckpt,
                  .focus = (uint32_t)(d->doc->edit_at < UINT32_MAX ? d->doc->edit_at : UINT32_MAX)};
  if (d->ckpt && d->ckpt_gen == d->doc->gen) rs.unchanged_before = UINT32_MAX;
  else if (d->ckpt && d->ckpt_gen + 1 == d->doc->gen)
    rs.unchanged_before = d->doc->same_before < UINT32_MAX ? (uint32_t)d->doc->same_before : UINT32_MAX;
  ac.resume = &rs;
  au_result *r = au_run(ws_doc_path(d), d->doc->text, d->doc->len, tree, &ac);
  attach_evidence(s, d, r, cfg);
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
  bool stale = s->host.superseded(s->host.ctx, d->doc->uri);
  for (size_t i = 1; i < d->map.nfiles; i++) {
    if (!d->map.files[i].path) continue;
    *PD_PUSH(d->deps, d->ndeps, d->deps_cap) = pd_xstrdup(d->map.files[i].path);
    ws_doc *dep = ws_find_path(s, d->map.files[i].path);
    if (dep && dep != d && s->host.superseded(s->host.ctx, dep->doc->uri)) stale = true;
  }
  if (stale) {
    debugf(s, "analysis of %s v%lld superseded by a queued change", d->doc->uri, d->doc->version);
    d->dirty = true;
    return;
  }
  json_t *uris = json_object(); /* every file whose diagnostics this document touches */
  json_object_set_new(uris, d->doc->uri, json_true());
  for (size_t i = 0; i < d->ndeps; i++) {
    ws_doc *dep = ws_find_path(s, d->deps[i]);
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
  dg_options o = ws_diag_options(s);
  json_t *old = d->contrib;
  d->contrib = dg_build(r, &d->map, &o);
  const char *key;
  json_t *v;
  json_object_foreach(old, key, v) json_object_set_new(uris, key, json_true());
  json_object_foreach(d->contrib, key, v) json_object_set_new(uris, key, json_true());
  json_object_foreach(uris, key, v) publish(s, key);
  json_decref(uris);
  json_decref(old);
  for (size_t i = 0; i < r->nerrors; i++) s->host.warn(s->host.ctx, r->errors[i]);
  debugf(s, "analysed %s v%lld in %.2f ms (%zu findings%s, %zu statements replayed)",
          d->doc->uri, d->doc->version, t1 - t0, r->nfindings, rs.resumed ? ", resumed" : "",
          rs.replayed);
}

/* The analysis that covers d (its own, or its owner's), brought up to date; NULL when d is not
 * a shell script. *file receives d's index among the analysis' files. */
ws_doc *ws_analysis_for(ws_workspace *s, ws_doc *d, int *file) {
  if (!is_shell(d->doc)) return NULL;
  /* Which script sources d is known only once the launch scripts are analysed. */
  for (size_t i = 0; i < s->ndocs; i++)
    if (s->docs[i] != d && s->docs[i]->dirty && runs_train(s->docs[i]->doc)) ws_analyse(s, s->docs[i]);
  ws_doc *owner = owner_of(s, d);
  ws_doc *a = owner ? owner : d;
  if (a->dirty || (!a->result && !owner)) ws_analyse(s, a);
  if (d->dirty && d != a) ws_analyse(s, d);
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

void ws_close(ws_workspace *s, ws_doc *d) {
  json_t *old = d->contrib;
  d->contrib = NULL;
  for (size_t i = 0; i < d->ndeps; i++) {
    ws_doc *dep = ws_find_path(s, d->deps[i]);
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


/* ---- the workspace's lifetime and settings ---- */

ws_workspace *ws_new(const ws_host *host) {
  TSParser *parser = sm_parser_new();
  if (!parser) return NULL;
  ws_workspace *s = pd_xcalloc(1, sizeof *s);
  s->host = *host;
  s->enc = DOC_UTF16;
  s->parser = parser;
  s->reader.read = reader_read;
  s->reader.ctx = s;
  au_settings_init(&s->cfg);
  s->traces = tc_new();
  s->catalogs = ps_catalogs_new();
  return s;
}

void ws_free(ws_workspace *s) {
  if (!s) return;
  for (size_t i = 0; i < s->ndocs; i++) doc_destroy(s->docs[i]);
  free(s->docs);
  for (size_t i = 0; i < s->nroots; i++) free(s->roots[i]);
  free(s->roots);
  drop_rules(s);
  drop_projects(s);
  free(s->projects);
  json_decref(s->settings_json);
  au_settings_free(&s->cfg);
  tc_free(s->traces);
  ps_catalogs_free(s->catalogs); /* after the documents, whose results borrow them */
  ts_parser_delete(s->parser);
  free(s);
}

void ws_set_client(ws_workspace *s, doc_encoding enc, bool related_information) {
  s->enc = enc;
  s->related = related_information;
}

char *ws_apply_settings(ws_workspace *s, const json_t *settings) {
  drop_rules(s);
  drop_projects(s);
  json_decref(s->settings_json);
  s->settings_json = settings ? json_deep_copy(settings) : NULL;
  if (s->settings_json && json_is_object(json_object_get(s->settings_json, "perfDoctor"))) {
    json_t *inner = json_incref(json_object_get(s->settings_json, "perfDoctor"));
    json_decref(s->settings_json);
    s->settings_json = inner;
  }
  char *errs = au_settings_load(&s->cfg, settings);
  ws_mark_all_dirty(s);
  return errs;
}

const au_settings *ws_settings(const ws_workspace *s) { return &s->cfg; }

void ws_add_root(ws_workspace *s, const char *uri) {
  char *p = uri ? doc_uri_to_path(uri) : NULL;
  if (!p) return;
  *PD_PUSH(s->roots, s->nroots, s->roots_cap) = pd_path_normalize(p);
  free(p);
  ws_mark_all_dirty(s);
}

void ws_remove_root(ws_workspace *s, const char *uri) {
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
  ws_mark_all_dirty(s);
}

const char *ws_first_root(const ws_workspace *s) { return s->nroots ? s->roots[0] : NULL; }

TSParser *ws_parser(ws_workspace *s) { return s->parser; }

dg_options ws_diag_options(const ws_workspace *s) {
  dg_options o = {s->related, s->cfg.docs_url ? s->cfg.docs_url : PD_DOCS_URL, s->cfg.lang};
  return o;
}

/* ---- documents ---- */

void ws_open(ws_workspace *s, const char *uri, const char *language_id, long long version,
             const char *text, size_t len) {
  ws_doc *old = ws_find(s, uri);
  if (old) ws_close(s, old);
  ws_doc *d = pd_xcalloc(1, sizeof *d);
  d->doc = doc_new(uri, language_id, version, text, len);
  d->contrib = json_object();
  d->dirty = is_shell(d->doc);
  *PD_PUSH(s->docs, s->ndocs, s->docs_cap) = d;
  if (d->doc->path) touch_path(s, d->doc->path);
}

doc_document *ws_text(ws_doc *d) { return d->doc; }

void ws_changed(ws_workspace *s, ws_doc *d) {
  d->dirty = is_shell(d->doc);
  if (d->doc->path) touch_path(s, d->doc->path);
}

void ws_file_changed(ws_workspace *s, const char *path, bool appeared_or_gone) {
  touch_path(s, path);
  /* A file that appears or disappears may be one a script failed (or will fail) to source. */
  if (appeared_or_gone) ws_mark_all_dirty(s);
  /* a project config (re)read on the next analysis of the documents it may govern */
  if (!strcmp(pd_path_base(path), AU_SETTINGS_FILE)) {
    drop_projects(s);
    ws_mark_all_dirty(s);
  }
  if (!s->cfg.extra_rules) return;
  char *a = pd_path_normalize(path), *b = pd_path_normalize(s->cfg.extra_rules);
  if (!strcmp(a, b)) {
    drop_rules(s);
    ws_mark_all_dirty(s);
  }
  free(a);
  free(b);
}

ws_doc *ws_next_dirty(ws_workspace *s) {
  ws_doc *first = NULL;
  for (size_t i = 0; i < s->ndocs; i++) {
    if (!s->docs[i]->dirty) continue;
    if (runs_train(s->docs[i]->doc)) return s->docs[i];
    if (!first) first = s->docs[i];
  }
  return first;
}

const au_result *ws_result(const ws_doc *d) { return d->result; }
const fm_map *ws_map(const ws_doc *d) { return &d->map; }
act_cache *ws_actions(ws_doc *d) { return d->actions; }

char *ws_say(ws_workspace *s, au_msg_id id, const ax_value *args) {
  return au_rules_say(rules_for(s), id, s->cfg.lang, args);
}
