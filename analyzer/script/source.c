/* source: following `source` into model configs and entrypoints: resolving the path, reading
 * (open editor buffers first, then disk), the sourced-file cache of a CLI run, and the log of
 * every filesystem answer a resumed walk must find unchanged. */
/* realpath(3) is XSI in glibc: resolving symbolic links keeps `source` inside the workspace. */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/limits.h"
#include "base/path.h"
#include "base/str.h"
#include "flagcat/flagcat.h"
#include "script/sm_int.h"

/* ---- paths --------------------------------------------------------------------------------- */

char *sm_path_absolute(const char *p) { return pd_path_absolute(p); }

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool under_root(const char *path, const char *root) {
  if (!root || !*root) return true;
  size_t n = strlen(root);
  while (n > 1 && root[n - 1] == '/') n--;
  return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

/* Whether path lies outside the checkout the script is in (the directory above its scripts/
 * folder): a file there (a .venv, an env file) may well exist where the job runs. */
static char *checkout_root(const sm_builder *b) {
  const char *s = b->w.files[0].path, *at = NULL;
  for (const char *p = strstr(s, "/scripts/"); p; p = strstr(p + 1, "/scripts/")) at = p;
  return at ? pd_xstrndup(s, (size_t)(at - s)) : NULL;
}

static bool outside_checkout(const sm_builder *b, const char *path) {
  char *root = checkout_root(b);
  bool out = root && !under_root(path, root);
  free(root);
  return out;
}

/* One directory up from *dir (replaced); false at the top, *dir left as it is. */
static bool go_up(char **dir) {
  if (!strcmp(*dir, "/") || !strcmp(*dir, ".") || !strchr(*dir, '/')) return false;
  char *parent = pd_path_dirname(*dir);
  free(*dir);
  *dir = parent;
  return true;
}

/* MODEL_CONFIG_DIR when the entrypoint did not provide it: a scripts/models directory upwards
 * from the script, else the user's setting. Caller frees; NULL when neither exists. */
static char *discover_model_dir(const sm_builder *b) {
  char *dir = pd_path_dirname(b->w.files[0].path);
  for (int up = 0; up < 12; up++) {
    char *cand = pd_xasprintf("%s/scripts/models", dir);
    if (is_dir(cand)) {
      free(dir);
      return cand;
    }
    free(cand);
    const char *base = strrchr(dir, '/');
    if (base && !strcmp(base + 1, "scripts")) {
      cand = pd_xasprintf("%s/models", dir);
      if (is_dir(cand)) {
        free(dir);
        return cand;
      }
      free(cand);
    }
    if (!go_up(&dir)) break;
  }
  free(dir);
  if (b->opt->model_config_dir && *b->opt->model_config_dir)
    return pd_xstrdup(b->opt->model_config_dir);
  return NULL;
}

/* ---- the sourced-file cache ---------------------------------------------------------------- */

#define MAX_CACHED 256

typedef struct {
  char *text;
  size_t len;
  TSTree *tree;
} cache_entry;

struct sm_cache {
  cache_entry *v;
  size_t n, cap;
  pd_map index; /* path -> entry */
};

sm_cache *sm_cache_new(void) { return pd_xcalloc(1, sizeof(sm_cache)); }

void sm_cache_free(sm_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    free(c->v[i].text);
    ts_tree_delete(c->v[i].tree);
  }
  free(c->v);
  pd_map_free(&c->index);
  free(c);
}

static const cache_entry *cache_find(const sm_cache *c, const char *path) {
  size_t i;
  return c && pd_map_get(&c->index, path, &i) ? &c->v[i] : NULL;
}

static void cache_add(sm_cache *c, const char *path, const char *text, size_t len,
                      const TSTree *tree) {
  if (!c || !tree || c->n >= MAX_CACHED) return;
  bool added;
  pd_map_slot *slot = pd_map_put(&c->index, path, &added);
  if (!added) return;
  slot->value = c->n;
  cache_entry *e = PD_PUSH(c->v, c->n, c->cap);
  e->text = pd_xstrndup(text, len);
  e->len = len;
  e->tree = ts_tree_copy(tree);
}

/* ---- reading and parsing sourced files ---------------------------------------------------- */

/* Reads a sourced file: from the reader (open buffers) when there is one, else from disk. Either
 * way pd_read_file refuses a FIFO or device before opening it (a FIFO would block forever). */
static char *read_source(const sm_builder *b, const char *path, size_t *len) {
  size_t max = b->opt->max_file_bytes ? b->opt->max_file_bytes : PD_MAX_FILE_BYTES;
  if (b->opt->reader) {
    char *t = b->opt->reader->read(b->opt->reader->ctx, path, len);
    if (t && *len > max) {
      free(t);
      errno = EFBIG;
      return NULL;
    }
    return t;
  }
  return pd_read_file(path, max, len);
}

/* under_root on the paths with symbolic links resolved, so that a link inside the workspace
 * cannot lead `source` out of it. A path that does not exist (yet) is judged by its name. */
static bool under_root_real(const char *path, const char *root) {
  if (!root || !*root) return true;
  char *rp = realpath(path, NULL);
  if (!rp) return true;
  char *rr = realpath(root, NULL);
  bool in = under_root(rp, rr ? rr : root);
  free(rp);
  free(rr);
  return in;
}

/* ---- the filesystem log: what a resumed walk must find unchanged ------------------------- */

static sm_fsq *log_fsq(sm_builder *b, sm_fsq_kind kind, const char *path, bool ok) {
  b->unrepeatable = true;
  sm_fsq *q = PD_PUSH(b->w.fslog, b->w.nfslog, b->w.fslog_cap);
  memset(q, 0, sizeof *q);
  q->kind = kind;
  q->path = pd_xstrdup(path ? path : "");
  q->ok = ok;
  return q;
}

/* read_source, logged. */
static char *read_logged(sm_builder *b, const char *path, size_t *len) {
  errno = 0;
  char *t = read_source(b, path, len);
  int e = errno;
  sm_fsq *q = log_fsq(b, SM_FSQ_READ, path, t != NULL);
  if (t) {
    q->len = *len;
    q->hash = pd_hash(PD_HASH_SEED, t, *len);
  } else {
    q->err = e;
  }
  errno = e;
  return t;
}

static bool under_root_logged(sm_builder *b, const char *path) {
  bool in = under_root_real(path, b->opt->workspace_root);
  log_fsq(b, SM_FSQ_UNDER_ROOT, path, in);
  return in;
}

/* The forks a git config's remote URLs name (FC_IN_* bits); *url (caller frees) the first such. */
static unsigned remote_forks(const char *text, size_t len, char **url) {
  static const struct { const char *repo; unsigned in; } forks[] = {
      {"redai-infra/relax", FC_IN_INFRA}, {"redai-studio/relax", FC_IN_STUDIO}};
  unsigned in = 0;
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    char *line = pd_xstrndup(p, n), *v = line;
    while (*v == ' ' || *v == '\t') v++;
    if (!strncmp(v, "url", 3) && strchr(v, '=')) {
      v = strchr(v, '=') + 1;
      while (*v == ' ' || *v == '\t') v++;
      size_t k = strlen(v);
      while (k && (v[k - 1] == '\r' || v[k - 1] == ' ')) v[--k] = '\0';
      for (char *c = v; *c; c++) *c = (char)tolower((unsigned char)*c);
      for (size_t f = 0; f < sizeof forks / sizeof forks[0]; f++)
        if (strstr(v, forks[f].repo) && !(in & forks[f].in)) {
          in |= forks[f].in;
          if (!*url) *url = pd_xstrdup(v);
        }
    }
    free(line);
    p += n + 1;
  }
  return in;
}

unsigned sm_git_fork(sm_builder *b, char **url) {
  *url = NULL;
  char *dir = pd_path_dirname(b->w.files[0].path);
  unsigned in = 0;
  for (int up = 0; up < 16 && under_root(dir, b->opt->workspace_root); up++) {
    char *cfg = pd_xasprintf("%s/.git/config", dir);
    size_t len = 0;
    char *text = read_logged(b, cfg, &len);
    free(cfg);
    if (text) {
      in = remote_forks(text, len, url);
      free(text);
      break;
    }
    if (!go_up(&dir)) break;
  }
  free(dir);
  if (in == (FC_IN_INFRA | FC_IN_STUDIO)) in = 0; /* a clone of one with the other as a remote */
  if (!in) {
    free(*url);
    *url = NULL;
  }
  return in;
}

/* An absolute path of the machine the job runs on that names one of this checkout's own files
 * there: "/workspace/Relax/scripts/models/qwen3-4B.sh" from a script in a checkout that has
 * scripts/models/qwen3-4B.sh. The job's copy of the checkout is taken to be this one (the
 * recipes mount it so), and the file is read here. On success *full becomes the local path and
 * *as_written (caller frees) the path as the script wrote it. */
static char *read_job_copy(sm_builder *b, char **full, size_t *len, char **as_written) {
  const char *at = (*full)[0] == '/' ? strstr(*full, "/scripts/") : NULL;
  char *root = at ? checkout_root(b) : NULL;
  bool outside = root && !under_root(*full, root);
  char *local = outside ? pd_xasprintf("%s%s", root, at) : NULL, *text = NULL;
  free(root);
  if (local && under_root(local, b->opt->workspace_root) && under_root_logged(b, local))
    text = read_logged(b, local, len);
  if (!text) {
    free(local);
    return NULL;
  }
  *as_written = *full;
  *full = local;
  return text;
}

static char *discover_logged(sm_builder *b) {
  char *d = discover_model_dir(b);
  log_fsq(b, SM_FSQ_DISCOVER, d, d != NULL);
  return d;
}

bool sm_fslog_holds(const sm_builder *b, const sm_fsq *log, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const sm_fsq *q = &log[i];
    if (q->kind == SM_FSQ_READ) {
      size_t len = 0;
      errno = 0;
      char *t = read_source(b, q->path, &len);
      int e = errno;
      bool same = t ? q->ok && len == q->len && pd_hash(PD_HASH_SEED, t, len) == q->hash
                    : !q->ok && e == q->err;
      free(t);
      if (!same) return false;
    } else if (q->kind == SM_FSQ_UNDER_ROOT) {
      if (under_root_real(q->path, b->opt->workspace_root) != q->ok) return false;
    } else {
      char *d = discover_model_dir(b);
      bool same = d ? q->ok && !strcmp(d, q->path) : !q->ok;
      free(d);
      if (!same) return false;
    }
  }
  return true;
}

int sm_add_file(sm_walk *w, char *path /* consumed */, char *text /* consumed */, size_t len,
                int parent, sm_range src_range) {
  sm_file *f = PD_PUSH(w->files, w->nfiles, w->files_cap);
  f->path = path;
  f->text = text;
  f->len = len;
  size_t cap = 0;
  f->lines = NULL;
  f->nlines = 0;
  *PD_PUSH(f->lines, f->nlines, cap) = 0;
  for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p++)
    *PD_PUSH(f->lines, f->nlines, cap) = (uint32_t)(p - text) + 1;
  f->parent = parent;
  f->source_range = src_range;
  f->job_path = NULL;
  pd_grow((void **)&w->trees, &w->trees_cap, w->nfiles, sizeof *w->trees);
  w->trees[w->nfiles - 1] = NULL;
  return (int)(w->nfiles - 1);
}

/* Whether c[0..n) is a path component worth comparing (a typo of "a" or "lib" is not one). */
static bool long_component(const char *c, size_t n) { return n >= 4 && n < 64 && !memchr(c, '$', n); }

/* Whether a and b differ only in their digits ("qwen35-27B.sh", "qwen36-27B.sh"): model names
 * carry versions and sizes, so that is another model, not a typo. */
static bool digits_apart(const char *a, const char *b) {
  for (;; a++, b++) {
    while (isdigit((unsigned char)*a)) a++;
    while (isdigit((unsigned char)*b)) b++;
    if (*a != *b) return false;
    if (!*a) return true;
  }
}

/* Whether other is near enough to name to be what it meant: one or two edits, not equal, and
 * not another version or size of the same name. */
static bool near_name(const char *name, const char *other) {
  return strcmp(name, other) && !digits_apart(name, other) && pd_edit_distance(name, other, 2) <= 2;
}

/* An entry of directory dir one or two edits from name (not equal), copied to out; or false. */
static bool dir_near(const char *dir, const char *name, char *out, size_t cap) {
  DIR *d = opendir(*dir ? dir : "/");
  if (!d) return false;
  bool found = false;
  for (struct dirent *e; !found && (e = readdir(d));) {
    size_t k = strlen(e->d_name);
    if (!long_component(e->d_name, k) || k >= cap) continue;
    if (near_name(name, e->d_name)) memcpy(out, e->d_name, k + 1), found = true;
  }
  closedir(d);
  return found;
}

/* How many times component name is written between two slashes in the script's files, or
 * stands in the paths those files were read from (a checkout at /workspace/Relax says Relax). */
static size_t written_count(const sm_builder *b, const char *name) {
  size_t k = strlen(name), count = 0;
  for (size_t fi = 0; fi < b->w.nfiles; fi++) {
    const char *texts[2] = {b->w.files[fi].text, b->w.files[fi].path};
    for (size_t j = 0; j < 2; j++)
      for (const char *p = texts[j] ? strstr(texts[j], name) : NULL; p; p = strstr(p + 1, name))
        count += p > texts[j] && p[-1] == '/' && p[k] == '/';
  }
  return count;
}

#define PATH_STOP "/\"' \t\n)}$;:=({"

/* Whether the component written at slash p of text t follows parent[0..n) (the component above
 * it; n == 0: it is at the root): "/workdir/model" is no sibling of "/workspace/.../models". */
static bool under_parent(const char *t, const char *p, const char *parent, size_t n) {
  const char *s = p;
  while (s > t && !strchr(PATH_STOP, s[-1])) s--;
  if (!n) return s == p;
  return (size_t)(p - s) == n && !memcmp(s, parent, n) && s > t && s[-1] == '/';
}

/* A component of another path the script's files write ("/workspace/Relax/scripts/...") near
 * name (near_name) under the same parent component, copied to out; or false. */
static bool written_near(const sm_builder *b, const char *name, const char *parent, size_t n, char *out,
                         size_t cap) {
  for (size_t fi = 0; fi < b->w.nfiles; fi++) {
    const char *t = b->w.files[fi].text;
    for (const char *p = t ? strchr(t, '/') : NULL; p; p = strchr(p + 1, '/')) {
      size_t k = strcspn(p + 1, PATH_STOP);
      if (p[1 + k] != '/' || !long_component(p + 1, k) || k >= cap || !under_parent(t, p, parent, n)) continue;
      memcpy(out, p + 1, k);
      out[k] = '\0';
      if (near_name(name, out)) return true;
    }
  }
  return false;
}

/* Why a path that does not resolve is most likely a typo: its first missing component is one or
 * two edits from an entry of the directory above it, or a missing component is that near to one
 * another path of the script writes (a path of the machine the job runs on need not exist here:
 * "/workspace/Rrelax/..." beside "/workspace/Relax/..."). "`Rrelax` is 1 edit from `Relax`, ..."
 * (caller frees), or NULL when neither. */
static char *near_miss(const sm_builder *b, const char *full) {
  char probe[PATH_MAX], name[64], near[64];
  bool missing = false;
  for (const char *c = full; *c;) {
    while (*c == '/') c++;
    size_t n = strcspn(c, "/"), at = (size_t)(c - full);
    if (!n || at + n >= sizeof probe) return NULL;
    memcpy(probe, full, at + n);
    probe[at + n] = '\0';
    struct stat st;
    bool first = !missing && stat(probe, &st) != 0;
    missing = missing || first;
    if (missing && long_component(c, n)) {
      memcpy(name, c, n);
      name[n] = '\0';
      probe[at ? at - 1 : 0] = '\0'; /* the directory above it */
      bool on_disk = first && dir_near(probe, name, near, sizeof near);
      size_t d = 0;
      if (on_disk) {
        d = pd_edit_distance(name, near, 2);
        return pd_xasprintf("`%s` is %zu edit%s from `%s`, which is there:", name, d, d == 1 ? "" : "s", near);
      }
      const char *up = probe + (at ? at - 1 : 0);
      while (up > probe && up[-1] != '/') up--;
      if (written_near(b, name, up, strlen(up), near, sizeof near)) {
        /* the spelling more paths use is taken as meant; a tie names both */
        size_t mine = written_count(b, name), theirs = written_count(b, near);
        d = pd_edit_distance(name, near, 2);
        if (theirs > mine)
          return pd_xasprintf("`%s` is %zu edit%s from `%s`, which more paths of the script have:", name, d,
                              d == 1 ? "" : "s", near);
        if (theirs == mine)
          return pd_xasprintf("`%s` and `%s` (another path of the script) are %zu edit%s apart: one of the "
                              "two is", name, near, d, d == 1 ? "" : "s");
      }
    }
    c += n;
  }
  return NULL;
}


/* The condition for a sourced file that could not be read (errno e; typo: consumed). A file
 * outside the checkout that is not a model config (a .venv, an env file) is source-missing-outside:
 * it may well exist where the job runs, and what it defines is asked for where a flag needs it. */
static void note_unreadable(sm_builder *b, int file, sm_range cr, const char *full, const char *shown,
                            int e, char *typo, bool models) {
  const char *code = typo                                  ? "source-near-miss"
                     : !models && outside_checkout(b, full) ? "source-missing-outside"
                                                            : "source-missing";
  sm_add_cond(b, SM_WARN, code, file, cr,
              pd_xasprintf("cannot read sourced file %s: %s%s%s", shown,
                           e == EFBIG ? "file too large" : pd_read_error(e ? e : ENOENT),
                           typo ? "; " : "", typo ? typo : ""));
  free(typo);
  sm_cond_about(b, shown, NULL);
}

void sm_follow_source(sm_builder *b, int file, TSNode cmd, TSNode arg) {
  b->unrepeatable = true;
  sh_file sf = sm_shfile(b, file);
  char *raw = sm_node_text(b, file, arg);
  const char *v, *via;
  sm_cert c;
  if (strstr(raw, "MODEL_CONFIG_DIR") && !sh_var_get(b->w.env, "MODEL_CONFIG_DIR", &v, &c, &via)) {
    char *dir = discover_logged(b);
    if (dir) sh_var_set(b->w.env, "MODEL_CONFIG_DIR", dir, SM_CERT_LITERAL, NULL);
    free(dir);
  }
  sm_cert cert;
  char *p = sh_expand_scalar(b->w.env, &sf, arg, &cert, &via);
  bool known = sm_cert_known(cert);
  sm_range cr = sh_node_range(cmd);
  bool models = strstr(raw, "MODEL_CONFIG_DIR") || strstr(p, "/models/");
  if (!known || !*p) {
    sm_add_cond(b, SM_WARN, "source-unresolved", file, cr,
             pd_xasprintf("cannot resolve the sourced path %s%s", raw,
                          models ? " (set the model config directory in the settings)" : ""));
    sm_cond_about(b, raw, NULL);
    if (models && !b->w.model) {
      char *bn = pd_xstrdup(pd_path_base(raw));
      size_t L = strlen(bn);
      while (L && (bn[L - 1] == '"' || bn[L - 1] == '\'')) bn[--L] = '\0';
      if (L > 3 && !strcmp(bn + L - 3, ".sh")) bn[L - 3] = '\0';
      b->w.model = bn;
      b->w.source_file = file;
      b->w.source_range = cr;
    }
    free(p);
    free(raw);
    return;
  }
  if (strlen(p) + strlen(b->w.files[file].path) >= PATH_MAX) {
    /* No such file can be opened; and a path built from ${SCRIPT_DIR} several times over would
     * grow with each level of sourcing (the fuzzer made gigabytes of messages that way). */
    sm_add_cond(b, SM_WARN, "source-unresolved", file, cr,
             pd_xasprintf("the sourced path is %zu bytes long, over the system's limit of %d; "
                          "not followed",
                          strlen(p), PATH_MAX));
    free(p);
    free(raw);
    return;
  }
  char *full;
  if (p[0] == '/') {
    full = pd_path_normalize(p);
  } else {
    char *dir = pd_path_dirname(b->w.files[file].path);
    char *j = pd_xasprintf("%s/%s", dir, p);
    full = pd_path_normalize(j);
    free(j);
    free(dir);
  }
  free(p);
  free(raw);

  char *bn = pd_xstrdup(pd_path_base(full));
  size_t L = strlen(bn);
  if (L > 3 && !strcmp(bn + L - 3, ".sh")) bn[L - 3] = '\0';

  /* paths in messages as seen from the script, like the user wrote them */
  char *shown = pd_path_from(b->w.files[0].path, full);
  char *via_file = pd_path_from(b->w.files[0].path, b->w.files[file].path);
  for (size_t i = 0; i < b->nstack; i++)
    if (!strcmp(b->w.files[b->stack[i]].path, full)) {
      sm_add_cond(b, SM_WARN, "source-cycle", file, cr,
               pd_xasprintf("%s sources itself (through %s); not followed again", shown,
                            via_file));
    sm_cond_about(b, shown, NULL);
      goto out;
    }
  if (b->nstack >= SM_MAX_SOURCE_DEPTH) {
    sm_add_cond(b, SM_WARN, "source-depth", file, cr,
             pd_xasprintf("sources nested more than %d deep; %s not followed", SM_MAX_SOURCE_DEPTH,
                          shown));
    sm_cond_about(b, shown, NULL);
    goto out;
  }
  if (b->w.nfiles >= SM_MAX_SOURCED_FILES) {
    sm_add_cond(b, SM_WARN, "source-limit", file, cr,
             pd_xasprintf("more than %d files sourced in all; %s not followed", SM_MAX_SOURCED_FILES,
                          shown));
    sm_cond_about(b, shown, NULL);
    goto out;
  }
  if (!under_root(full, b->opt->workspace_root)) {
    sm_add_cond(b, SM_INFO, "source-outside", file, cr,
             pd_xasprintf("%s is outside the workspace; not followed", shown));
    sm_cond_about(b, shown, NULL);
    goto out;
  }
  if (!under_root_logged(b, full)) {
    sm_add_cond(b, SM_INFO, "source-outside", file, cr,
             pd_xasprintf("%s is outside the workspace (through a symbolic link); not followed",
                          shown));
    sm_cond_about(b, shown, NULL);
    goto out;
  }
  size_t len = 0;
  errno = 0;
  const cache_entry *hit = cache_find(b->opt->cache, full);
  char *text = hit ? pd_xstrndup(hit->text, hit->len) : read_logged(b, full, &len);
  char *as_written = NULL;
  if (hit) len = hit->len;
  int e = text ? 0 : errno;
  /* a near spelling of a path that is there is a typo, not the job's own copy of a file */
  char *typo = e == ENOENT ? near_miss(b, full) : NULL;
  if (!text && !typo && e == ENOENT) text = read_job_copy(b, &full, &len, &as_written);
  if (!text) {
    note_unreadable(b, file, cr, full, shown, e, typo, models);
    if (models && !b->w.model) {
      b->w.model = pd_xstrdup(bn);
      b->w.source_file = file;
      b->w.source_range = cr;
    }
    goto out;
  }
  {
    int nf = sm_add_file(&b->w, full, text, len, file, cr);
    b->w.files[nf].job_path = as_written;
    full = NULL;
    if (hit) {
      b->w.trees[nf] = sm_tree_ref_new(ts_tree_copy(hit->tree));
    } else {
      b->w.trees[nf] = sm_tree_ref_new(ts_parser_parse_string(b->parser, NULL, b->w.files[nf].text,
                                                         (uint32_t)b->w.files[nf].len));
      cache_add(b->opt->cache, b->w.files[nf].path, text, len, b->w.trees[nf]->tree);
    }
    bool before = b->w.defined_model_args;
    b->w.defined_model_args = false;
    sm_walk_file(b, nf);
    if (b->w.defined_model_args && !before) {
      free(b->w.model);
      b->w.model = pd_xstrdup(bn);
      b->w.source_file = file;
      b->w.source_range = cr;
    }
    b->w.defined_model_args = b->w.defined_model_args || before;
  }
out:
  free(bn);
  free(full);
  free(shown);
  free(via_file);
}
