#include "lsp/traces.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/profile.h"
#include "base/alloc.h"
#include "trace/trace.h"

typedef struct {
  char *path, *gpu;
  struct timespec mtime;
  off_t size;
  evd_trace *t; /* NULL when it could not be read ... */
  char *err;    /* ... and why */
} entry;

struct tc_cache {
  entry *v;
  size_t n, cap;
};

tc_cache *tc_new(void) { return pd_xcalloc(1, sizeof(tc_cache)); }

static void entry_clear(entry *e) {
  evd_trace_free(e->t);
  free(e->err);
  e->t = NULL;
  e->err = NULL;
}

void tc_free(tc_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    entry_clear(&c->v[i]);
    free(c->v[i].path);
    free(c->v[i].gpu);
  }
  free(c->v);
  free(c);
}

static bool same_opt(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static void summarise(entry *e) {
  tr_options o = {.gpu = e->gpu};
  char *err = NULL;
  json_t *j = tr_summarize_value(e->path, &o, NULL, &err);
  if (j) e->t = evd_trace_from(j, e->path);
  else e->err = err ? err : pd_xasprintf("%s: cannot summarise", e->path);
  json_decref(j);
}

const evd_trace *tc_get(tc_cache *c, const char *path, const char *gpu, const char **err) {
  struct stat st;
  *err = NULL;
  entry *e = NULL;
  for (size_t i = 0; i < c->n && !e; i++)
    if (!strcmp(c->v[i].path, path) && same_opt(c->v[i].gpu, gpu)) e = &c->v[i];
  bool exists = stat(path, &st) == 0;
  if (!e) {
    e = PD_PUSH(c->v, c->n, c->cap);
    *e = (entry){pd_xstrdup(path), gpu ? pd_xstrdup(gpu) : NULL, {0, 0}, -1, NULL, NULL};
  }
  bool fresh = exists && e->size == st.st_size && e->mtime.tv_sec == st.st_mtim.tv_sec &&
               e->mtime.tv_nsec == st.st_mtim.tv_nsec && (e->t || e->err);
  if (!fresh) {
    entry_clear(e);
    if (exists) {
      e->mtime = st.st_mtim;
      e->size = st.st_size;
      summarise(e);
    } else {
      e->size = -1;
      e->err = pd_xasprintf("%s: no such trace file or folder", path);
    }
  }
  *err = e->err;
  return e->t;
}

char *tc_default_dir(const sm_model *m, char *const *roots, size_t nroots) {
  char *folder = au_profile_trace_folder(m); /* where the profiling plan says the traces go */
  for (size_t i = 0; folder && i < nroots; i++) {
    char *dir = pd_xasprintf("%s/%s", roots[i], folder);
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
      free(folder);
      return dir;
    }
    free(dir);
  }
  free(folder);
  return NULL;
}
