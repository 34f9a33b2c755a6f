#include "trace/trace.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/cross.h"
#include "trace/jobs.h"
#include "trace/messages.h"
#include "trace/partial.h"
#include "trace/rank.h"
#include "trace/summary.h"
#include "trace/svg.h"
#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"

#define MAX_DEPTH 8

typedef struct {
  char **v;
  size_t n, cap;
} strvec;

static bool is_trace_name(const char *name) {
  return name[0] != '.' && (pd_str_ends(name, ".json") || pd_str_ends(name, ".json.gz"));
}

static void collect_traces(const char *dir, int depth, strvec *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = pd_xasprintf("%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      if (depth < MAX_DEPTH) collect_traces(p, depth + 1, out);
      free(p);
    } else if (is_trace_name(e->d_name)) {
      *PD_PUSH(out->v, out->n, out->cap) = p;
    } else {
      free(p);
    }
  }
  closedir(d);
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct {
  char **files;
  tr_rank **out;
  size_t n, next;
  pthread_mutex_t mu;
  tr_rank_opts ro;
} pool;

static void *worker(void *arg) {
  pool *p = arg;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    size_t i = p->next++;
    pthread_mutex_unlock(&p->mu);
    if (i >= p->n) return NULL;
    p->out[i] = tr_rank_analyze(p->files[i], &p->ro);
  }
}

/* The JSON document of a folder with several jobs: the usual keys, ranks tagged with their job,
 * the cross-rank figures and hypotheses inside each job. Takes the references and warn. */
static json_t *jobs_document(const char *path, tr_rank **all, size_t n, const tr_options *opts, char *warn,
                             json_t *jobs, json_t *ranks) {
  json_t *root = json_object(), *src = json_object(), *errs = json_array();
  size_t failed = 0;
  for (size_t i = 0; i < n; i++)
    if (all[i]->err) {
      json_t *e = json_object();
      json_object_set_new(e, "file", json_string(all[i]->file));
      json_object_set_new(e, "message", json_string(all[i]->err));
      json_array_append_new(errs, e);
      failed++;
    }
  json_object_set_new(root, "tool", json_string("perf-doctor trace"));
  json_object_set_new(src, "path", json_string(path));
  json_object_set_new(src, "files", json_integer((json_int_t)n));
  json_object_set_new(src, "read", json_integer((json_int_t)(n - failed)));
  json_object_set_new(src, "failed", json_integer((json_int_t)failed));
  json_object_set_new(root, "source", src);
  json_object_set_new(root, "include_last_profiler_step", json_boolean(opts->include_last));
  json_object_set_new(root, "warning", json_string(warn));
  json_object_set_new(root, "errors", errs);
  json_object_set_new(root, "jobs", jobs);
  json_object_set_new(root, "ranks", ranks);
  json_object_set_new(root, "cross_rank", json_null());
  json_object_set_new(root, "kernels", json_null());
  json_object_set_new(root, "hypotheses", json_array());
  free(warn);
  return root;
}

/* "0–7", or "0, 2, 5" when not contiguous. */
static void rank_list(pd_buf *b, tr_rank *const *r, size_t n) {
  bool run = n > 2;
  for (size_t i = 1; i < n && run; i++) run = r[i]->rank == r[i - 1]->rank + 1;
  if (run) {
    pd_buf_printf(b, "%d–%d", r[0]->rank, r[n - 1]->rank);
    return;
  }
  for (size_t i = 0; i < n; i++) pd_buf_printf(b, "%s%d", i ? ", " : "", r[i]->rank);
}

/* The world size the job's files state (an unstated one agrees with any), or -1. */
static int job_world(tr_rank *const *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (r[i]->world_size >= 0) return r[i]->world_size;
  return -1;
}

static char *job_title(size_t j, size_t nj, tr_rank *const *r, size_t n, const tr_text *tx) {
  pd_buf list = {0};
  rank_list(&list, r, n);
  int world = job_world(r, n);
  char *t = world >= 0 ? TR_SAID(tx, TM_JOB_TITLE, PD_MI(j + 1), PD_MI(nj), PD_MI(world), PD_MS(list.data), PD_MI(n))
                       : TR_SAID(tx, TM_JOB_TITLE_NO_WORLD, PD_MI(j + 1), PD_MI(nj), PD_MS(list.data), PD_MI(n));
  pd_buf_free(&list);
  return t;
}

/* The catalog and language of a call: opts', or the built-in catalog loaded for it. */
typedef struct {
  tr_text given, own;
  const tr_text *t;
} text_hold;

static const tr_text *text_open(text_hold *h, const tr_options *opts) {
  h->given = (tr_text){opts ? opts->msgs : NULL, tr_lang_of(opts ? opts->lang : NULL)};
  h->t = tr_text_or_builtin(&h->given, &h->own);
  return h->t;
}

static void text_close(text_hold *h) { tr_text_release(&h->own); }

/* A folder holding several runs: one summary per job, never merged; as markdown (*md) or as the
 * JSON document (*doc), whichever is not NULL. */
static void summarize_jobs(const char *path, tr_rank **all, size_t n, const int *job_of, size_t nj,
                           const tr_options *opts, const tr_text *tx, char **md_out, json_t **doc_out) {
  bool json = doc_out != NULL;
  pd_buf md = {0};
  json_t *jobs = json_array(), *ranks = json_array();
  const tr_text en = {tx->msgs, TR_EN};
  char *warn = TR_SAID(json ? &en : tx, TM_JOB_WARNING, PD_MI(nj));
  pd_buf_puts(&md, "# ");
  TR_SAY(&md, tx, TM_SUM_TITLE, PD_MS(pd_path_base(path)));
  pd_buf_puts(&md, "\n\n");
  TR_SAY(&md, tx, TM_JOB_WARNING_LINE, PD_MS(warn));
  pd_buf_puts(&md, "\n\n");
  for (size_t i = 0; i < n; i++)
    if (all[i]->err) {
      TR_SAY(&md, tx, TM_COULD_NOT_READ, PD_MS(all[i]->err));
      pd_buf_puts(&md, "\n\n");
    }
  tr_rank **sub = pd_xmalloc(n * sizeof *sub);
  for (size_t j = 0; j < nj; j++) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (job_of[i] == (int)j) sub[k++] = all[i];
    tr_cross cross;
    tr_cross_compute(sub, k, &cross);
    char *title = job_title(j, nj, sub, k, tx);
    tr_report rep = {path, sub, k, &cross, opts->include_last, title, tx};
    if (json) {
      json_t *doc = tr_summary_json_value(&rep), *e = json_object(), *files = json_array(), *rk = json_array();
      json_object_set_new(e, "id", json_integer((json_int_t)j + 1));
      int world = job_world(sub, k);
      json_object_set_new(e, "world_size", world >= 0 ? json_integer(world) : json_null());
      for (size_t t = 0; t < k; t++) {
        json_array_append_new(files, json_string(sub[t]->file));
        json_array_append_new(rk, json_integer(sub[t]->rank));
      }
      json_object_set_new(e, "files", files);
      json_object_set_new(e, "ranks", rk);
      json_object_set(e, "cross_rank", json_object_get(doc, "cross_rank"));
      json_object_set(e, "kernels", json_object_get(doc, "kernels"));
      json_object_set(e, "hypotheses", json_object_get(doc, "hypotheses"));
      size_t t;
      json_t *ro;
      json_array_foreach(json_object_get(doc, "ranks"), t, ro) {
        json_object_set_new(ro, "job", json_integer((json_int_t)j + 1));
        json_array_append(ranks, ro);
      }
      json_array_append_new(jobs, e);
      json_decref(doc);
    } else {
      char *text = tr_summary_md(&rep);
      pd_buf_puts(&md, text);
      pd_buf_puts(&md, "\n");
      free(text);
    }
    free(title);
    tr_cross_free(&cross);
  }
  free(sub);
  if (!json) {
    json_decref(jobs);
    json_decref(ranks);
    free(warn);
    *md_out = pd_buf_take(&md);
    return;
  }
  pd_buf_free(&md);
  *doc_out = jobs_document(path, all, n, opts, warn, jobs, ranks);
}

static int rank_cmp(const void *pa, const void *pb) {
  const tr_rank *a = *(tr_rank *const *)pa, *b = *(tr_rank *const *)pb;
  if (!a->err != !b->err) return a->err ? 1 : -1; /* failed files last */
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return strcmp(a->file, b->file);
}

/* The summary of ranks[0..n) (sorted here): one job, or each job of a folder of several, as
 * markdown (*md) and/or as the JSON document (*doc), for the outputs that are not NULL. False
 * with *err when no rank could be read. */
static bool render(const char *path, tr_rank **ranks, size_t n, const tr_options *opts, const tr_text *tx, char **md,
                   json_t **doc, char **err) {
  qsort(ranks, n, sizeof *ranks, rank_cmp);
  size_t ok = 0;
  for (size_t i = 0; i < n; i++) ok += ranks[i]->err ? 0 : 1;
  if (ok == 0) {
    pd_buf b = {0};
    for (size_t i = 0; i < n; i++) pd_buf_printf(&b, "%s%s", i ? "\n" : "", ranks[i]->err);
    *err = pd_buf_take(&b);
    return false;
  }
  int *job_of = pd_xmalloc(n * sizeof *job_of);
  size_t nj = tr_jobs_split(ranks, n, job_of);
  if (nj > 1) {
    if (md) summarize_jobs(path, ranks, n, job_of, nj, opts, tx, md, NULL);
    if (doc) summarize_jobs(path, ranks, n, job_of, nj, opts, tx, NULL, doc);
  } else {
    tr_cross cross;
    tr_cross_compute(ranks, n, &cross);
    tr_report rep = {path, ranks, n, &cross, opts->include_last, NULL, tx};
    if (md) *md = tr_summary_md(&rep);
    if (doc) *doc = tr_summary_json_value(&rep);
    tr_cross_free(&cross);
  }
  free(job_of);
  return true;
}

/* The summary in the format asked for, and the SVG when asked, from one rendering. */
static char *render_text(const char *path, tr_rank **ranks, size_t n, const tr_options *opts, const tr_text *tx,
                         char **err) {
  bool json = opts->format && !strcmp(opts->format, "json");
  char *md = NULL;
  json_t *doc = NULL;
  if (!render(path, ranks, n, opts, tx, json ? NULL : &md, json || opts->svg ? &doc : NULL, err)) return NULL;
  if (opts->svg) *opts->svg = tr_svg(doc, tx);
  if (json) md = tr_summary_dump(doc);
  json_decref(doc);
  return md;
}

/* Reads every trace file at path (one file, or a folder searched recursively) in parallel.
 * Returns the ranks (*n of them; free with free_ranks), or NULL with *err. */
static tr_rank **analyze_path(const char *path, const tr_options *opts, const tr_text *tx, size_t *n, char **err) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    *err = errno == ENOENT ? TR_SAID(tx, TM_ERR_NO_SUCH, PD_MS(path)) : TR_SAID(tx, TM_ERR_OPEN, PD_MS(path), PD_MS(strerror(errno)));
    return NULL;
  }
  strvec files = {0};
  if (S_ISDIR(sb.st_mode)) {
    collect_traces(path, 0, &files);
    if (files.n == 0) {
      *err = TR_SAID(tx, TM_ERR_NO_TRACES, PD_MS(path));
      free(files.v);
      return NULL;
    }
    qsort(files.v, files.n, sizeof *files.v, str_cmp);
  } else {
    *PD_PUSH(files.v, files.n, files.cap) = pd_xstrdup(path);
  }

  /* jansson seeds its hash function on first use; do it before the workers start */
  json_object_seed(0);
  pool p = {.files = files.v, .n = files.n, .ro = {opts->include_last, opts->gpu, tr_lang_of(opts->lang)}};
  p.out = pd_xcalloc(files.n, sizeof *p.out);
  pthread_mutex_init(&p.mu, NULL);
  long jobs = opts->jobs > 0 ? opts->jobs : sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  if ((size_t)jobs > files.n) jobs = (long)files.n;
  pthread_t *th = pd_xcalloc((size_t)jobs, sizeof *th);
  long started = 0;
  for (long i = 1; i < jobs; i++)
    if (pthread_create(&th[i], NULL, worker, &p) == 0) started = i;
    else break;
  worker(&p); /* the calling thread works too; it also finishes alone if no thread started */
  for (long i = 1; i <= started; i++) pthread_join(th[i], NULL);
  free(th);
  pthread_mutex_destroy(&p.mu);
  for (size_t i = 0; i < files.n; i++) free(files.v[i]);
  free(files.v);
  *n = files.n;
  return p.out;
}

/* Frees the ranks; the number that could not be read. */
static int free_ranks(tr_rank **ranks, size_t n) {
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    failed += ranks[i]->err != NULL;
    tr_rank_free(ranks[i]);
  }
  free(ranks);
  return failed;
}

/* The error for a format the text renderers do not know (NULL means md), or NULL. */
static char *format_error(const char *format, const tr_text *tx) {
  if (!format || !strcmp(format, "md") || !strcmp(format, "json")) return NULL;
  return TR_SAID(tx, TM_ERR_FORMAT, PD_MS(format));
}

char *tr_summarize_opts(const char *path, const tr_options *opts, int *n_failed, char **err) {
  static const tr_options defaults = {"md", 0, false, NULL, NULL, NULL, NULL};
  if (!opts) opts = &defaults;
  if (n_failed) *n_failed = 0;
  text_hold h;
  const tr_text *tx = text_open(&h, opts);
  size_t n = 0;
  tr_rank **ranks = (*err = format_error(opts->format, tx)) ? NULL : analyze_path(path, opts, tx, &n, err);
  char *text = ranks ? render_text(path, ranks, n, opts, tx, err) : NULL;
  int failed = ranks ? free_ranks(ranks, n) : 0;
  if (n_failed) *n_failed = failed;
  text_close(&h);
  return text;
}

json_t *tr_summarize_value(const char *path, const tr_options *opts, int *n_failed, char **err) {
  *err = NULL;
  if (n_failed) *n_failed = 0;
  text_hold h;
  const tr_text *tx = text_open(&h, opts);
  size_t n = 0;
  tr_rank **ranks = analyze_path(path, opts, tx, &n, err);
  json_t *doc = NULL;
  if (ranks && render(path, ranks, n, opts, tx, NULL, &doc, err) && opts->svg) *opts->svg = tr_svg(doc, tx);
  int failed = ranks ? free_ranks(ranks, n) : 0;
  if (n_failed) *n_failed = failed;
  text_close(&h);
  return doc;
}

char *tr_summarize(const char *path, const char *format, char **err) {
  tr_options o = {format, 0, false, NULL, NULL, NULL, NULL};
  return tr_summarize_opts(path, &o, NULL, err);
}

char *tr_partial_file(const char *file, const tr_options *opts, bool *failed, char **err) {
  struct stat sb;
  *err = NULL;
  bool dir = false;
  if (stat(file, &sb) != 0 || (dir = S_ISDIR(sb.st_mode))) {
    text_hold h;
    *err = dir ? TR_SAID(text_open(&h, opts), TM_ERR_PARTIAL_FOLDER, PD_MS(file)) : pd_xasprintf("%s: %s", file, strerror(errno));
    if (dir) text_close(&h);
    return NULL;
  }
  json_object_seed(0);
  tr_rank_opts ro = {opts->include_last, opts->gpu, tr_lang_of(opts->lang)};
  tr_rank *r = tr_rank_analyze(file, &ro);
  *failed = r->err != NULL;
  json_t *doc = tr_partial_json(r, &ro);
  char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(doc);
  tr_rank_free(r);
  return text;
}

/* The folder the ranks' files share ("." when none), or the file when there is one. */
static char *common_dir(tr_rank **ranks, size_t n) {
  if (n == 1) return pd_xstrdup(ranks[0]->file);
  char *dir = pd_path_dirname(ranks[0]->file);
  for (size_t i = 1; i < n; i++) {
    char *d = pd_path_dirname(ranks[i]->file);
    while (strcmp(dir, d) != 0 && (strncmp(d, dir, strlen(dir)) != 0 || d[strlen(dir)] != '/')) {
      char *up = pd_path_dirname(dir);
      bool stuck = !strcmp(up, dir);
      free(dir);
      dir = up;
      if (stuck) break;
    }
    free(d);
  }
  return dir;
}

static tr_rank *load_part(const char *path, tr_rank_opts *ro, const tr_text *tx, char **err) {
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  if (!doc) {
    *err = TR_SAID(tx, TM_ERR_NOT_JSON, PD_MS(path), PD_MS(je.text), PD_MI(je.line));
    return NULL;
  }
  char *why = NULL;
  tr_rank *r = tr_partial_load(doc, ro, &why);
  if (!r) *err = pd_xasprintf("%s: %s", path, why);
  /* the gpu option points into doc: keep a copy for the comparison */
  ro->gpu = ro->gpu ? pd_xstrdup(ro->gpu) : NULL;
  free(why);
  json_decref(doc);
  return r;
}

char *tr_merge(char *const *parts, size_t n, const tr_options *opts, int *n_failed, char **err) {
  if (n_failed) *n_failed = 0;
  text_hold h;
  const tr_text *tx = text_open(&h, opts);
  if ((*err = format_error(opts->format, tx))) {
    text_close(&h);
    return NULL;
  }
  tr_rank **ranks = pd_xcalloc(n ? n : 1, sizeof *ranks);
  char *first_gpu = NULL;
  bool first_last = false;
  size_t got = 0;
  for (size_t i = 0; i < n && !*err; i++) {
    tr_rank_opts ro = {0};
    tr_rank *r = load_part(parts[i], &ro, tx, err);
    if (r) ranks[got++] = r;
    if (r && i == 0) {
      first_gpu = ro.gpu ? pd_xstrdup(ro.gpu) : NULL;
      first_last = ro.include_last;
    } else if (r && (ro.include_last != first_last || (ro.gpu == NULL) != (first_gpu == NULL) ||
                     (ro.gpu && strcmp(ro.gpu, first_gpu) != 0))) {
      *err = TR_SAID(tx, TM_ERR_MERGE_OPTIONS, PD_MS(parts[i]), PD_MS(parts[0]));
    }
    free((char *)ro.gpu);
  }
  char *text = NULL;
  if (!*err && got) {
    tr_options o = *opts;
    o.include_last = first_last;
    o.gpu = first_gpu;
    char *path = common_dir(ranks, got);
    text = render_text(path, ranks, got, &o, tx, err);
    free(path);
  } else if (!*err) {
    *err = TR_SAID0(tx, TM_ERR_NO_PARTIALS);
  }
  int failed = free_ranks(ranks, got);
  if (n_failed) *n_failed = failed;
  free(first_gpu);
  text_close(&h);
  return text;
}
