#include "lsp/traces.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/profile.h"
#include "base/alloc.h"
#include "trace/messages.h"
#include "trace/trace.h"

typedef struct {
  char *path, *gpu;
  int lang; /* what err is said in: TR_EN, TR_ZH */
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
  tr_options o = {.gpu = e->gpu, .lang = e->lang == TR_ZH ? "zh" : "en"};
  char *err = NULL;
  json_t *j = tr_summarize_value(e->path, &o, NULL, &err);
  if (j) e->t = evd_trace_from(j, e->path);
  else e->err = err ? err : TR_SAID_IN(e->lang, TM_ERR_CANNOT_SUMMARISE, PD_MS(e->path));
  json_decref(j);
}

const evd_trace *tc_get(tc_cache *c, const char *path, const char *gpu, const char *lang, const char **err) {
  struct stat st;
  *err = NULL;
  entry *e = NULL;
  int lg = tr_lang_of(lang);
  for (size_t i = 0; i < c->n && !e; i++)
    if (!strcmp(c->v[i].path, path) && same_opt(c->v[i].gpu, gpu) && c->v[i].lang == lg) e = &c->v[i];
  bool exists = stat(path, &st) == 0;
  if (!e) {
    e = PD_PUSH(c->v, c->n, c->cap);
    *e = (entry){pd_xstrdup(path), gpu ? pd_xstrdup(gpu) : NULL, lg, {0, 0}, -1, NULL, NULL};
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
      e->err = TR_SAID_IN(lg, TM_ERR_NO_SUCH, PD_MS(path));
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
