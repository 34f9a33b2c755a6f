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
#include "trace/rank.h"
#include "trace/summary.h"
#include "base/alloc.h"
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

static int rank_cmp(const void *pa, const void *pb) {
  const tr_rank *a = *(tr_rank *const *)pa, *b = *(tr_rank *const *)pb;
  if (!a->err != !b->err) return a->err ? 1 : -1; /* failed files last */
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return strcmp(a->file, b->file);
}

char *tr_summarize_opts(const char *path, const tr_options *opts, int *n_failed, char **err) {
  static const tr_options defaults = {"md", 0, false};
  if (!opts) opts = &defaults;
  const char *format = opts->format ? opts->format : "md";
  *err = NULL;
  if (n_failed) *n_failed = 0;
  if (strcmp(format, "md") != 0 && strcmp(format, "json") != 0) {
    *err = pd_xasprintf("unknown format '%s' (expected md or json)", format);
    return NULL;
  }
  struct stat sb;
  if (stat(path, &sb) != 0) {
    *err = pd_xasprintf("%s: %s", path, strerror(errno));
    return NULL;
  }
  strvec files = {0};
  if (S_ISDIR(sb.st_mode)) {
    collect_traces(path, 0, &files);
    if (files.n == 0) {
      *err = pd_xasprintf("%s: no trace files (*.json, *.json.gz) in this folder", path);
      free(files.v);
      return NULL;
    }
    qsort(files.v, files.n, sizeof *files.v, str_cmp);
  } else {
    *PD_PUSH(files.v, files.n, files.cap) = pd_xstrdup(path);
  }

  /* jansson seeds its hash function on first use; do it before the workers start */
  json_object_seed(0);
  pool p = {.files = files.v, .n = files.n, .ro = {opts->include_last}};
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

  qsort(p.out, files.n, sizeof *p.out, rank_cmp);
  size_t ok = 0;
  for (size_t i = 0; i < files.n; i++) ok += p.out[i]->err ? 0 : 1;
  char *text = NULL;
  if (ok == 0) {
    pd_buf b = {0};
    for (size_t i = 0; i < files.n; i++) pd_buf_printf(&b, "%s%s", i ? "\n" : "", p.out[i]->err);
    *err = pd_buf_take(&b);
  } else {
    tr_cross cross;
    tr_cross_compute(p.out, files.n, &cross);
    tr_report rep = {path, p.out, files.n, &cross, opts->include_last};
    text = !strcmp(format, "json") ? tr_summary_json(&rep) : tr_summary_md(&rep);
    tr_cross_free(&cross);
  }
  if (n_failed) *n_failed = (int)(files.n - ok);
  for (size_t i = 0; i < files.n; i++) {
    tr_rank_free(p.out[i]);
    free(files.v[i]);
  }
  free(p.out);
  free(files.v);
  return text;
}

char *tr_summarize(const char *path, const char *format, char **err) {
  tr_options o = {format, 0, false};
  return tr_summarize_opts(path, &o, NULL, err);
}
