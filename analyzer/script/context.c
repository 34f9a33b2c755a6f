/* context: what the script states about the job besides its flags (sm_context): its file
 * name, the GPU the options or a `# perf-doctor: gpu=` comment name, and the variables it
 * sets. Nothing here is derived from the flags: that is the audit's facts. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "script/fname.h"
#include "script/sm_int.h"

/* `# perf-doctor: gpu=H100-80G` anywhere in the file */
static char *gpu_from_comment(const sm_file *f) {
  const char *p = f->text;
  while ((p = strstr(p, "perf-doctor:")) != NULL) {
    const char *line = p;
    while (line > f->text && line[-1] != '\n') line--;
    const char *hash = memchr(line, '#', (size_t)(p - line));
    p += 12;
    if (!hash) continue;
    while (*p == ' ') p++;
    if (strncmp(p, "gpu=", 4) != 0) continue;
    p += 4;
    const char *e = p;
    while (*e && !isspace((unsigned char)*e)) e++;
    if (e > p) return pd_xstrndup(p, (size_t)(e - p));
  }
  return NULL;
}

/* A name as typed, without surrounding blanks; NULL when nothing is left. */
static char *trimmed(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  return n ? pd_xstrndup(s, n) : NULL;
}

void sm_state_context(sm_model *m, const sm_options *opt) {
  sm_context *c = &m->ctx;
  fn_info fi = fn_parse(m->files[0].path);
  c->name_gpus = fi.gpus;
  c->name_device = fi.device ? pd_xstrdup(fi.device) : NULL;
  c->name_model = fi.model ? pd_xstrdup(fi.model) : NULL;
  c->name_size = fi.size ? pd_xstrdup(fi.size) : NULL;
  c->name_suffixes = fi.suffixes ? pd_xstrdup(fi.suffixes) : NULL;
  c->name_mode = fi.mode_hint;
  c->name_modality = fi.modality_hint;
  fn_info_free(&fi);
  c->gpu = opt->gpu ? trimmed(opt->gpu) : NULL;
  for (size_t i = 0; !c->gpu && i < m->nfiles; i++) c->gpu = gpu_from_comment(&m->files[i]);
}

typedef struct {
  sm_model *m;
  size_t cap;
} var_sink;

static void collect_var(void *ctx, const char *name, const char *value, sm_cert cert,
                        bool exported, int file, sm_range range) {
  bool known = sm_cert_known(cert);
  var_sink *vs = ctx;
  sm_var *v = PD_PUSH(vs->m->vars, vs->m->nvars, vs->cap);
  memset(v, 0, sizeof *v);
  v->name = pd_xstrdup(name);
  v->value = pd_xstrdup(known ? value : "");
  v->known = known;
  v->cert = cert;
  v->exported = exported;
  v->file = file;
  v->range = range;
}

static int by_var_name(const void *a, const void *b) {
  return strcmp(((const sm_var *)a)->name, ((const sm_var *)b)->name);
}

void sm_collect_vars(sm_model *m, const sh_env *env) {
  var_sink vs = {m, 0};
  sh_var_foreach(env, collect_var, &vs);
  if (m->nvars) qsort(m->vars, m->nvars, sizeof *m->vars, by_var_name);
}

const sm_var *sm_var_get(const sm_model *m, const char *name) {
  sm_var key = {.name = (char *)name};
  return m->nvars ? bsearch(&key, m->vars, m->nvars, sizeof *m->vars, by_var_name) : NULL;
}
