/* checkout: finding a Relax checkout and reading its own options (pysrc.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"
#include "base/str.h"
#include "pysrc/pysrc.h"
#include "pysrc/pyval.h"

static const char ARGS_PY[] = "relax/utils/arguments.py";

static bool isalnum_ascii(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool ps_is_relax_checkout(const char *dir) {
  char *p = pd_xasprintf("%s/%s", dir, ARGS_PY);
  bool ok = is_file(p);
  free(p);
  return ok;
}

char *ps_find_checkout(const char *path) {
  char *d = pd_xstrdup(path && *path ? path : ".");
  for (int depth = 0; depth < 64; depth++) {
    if (ps_is_relax_checkout(d)) return d;
    char *slash = strrchr(d, '/');
    if (!slash) break;
    if (slash == d) {
      d[1] = '\0';
      if (ps_is_relax_checkout(d)) return d;
      break;
    }
    *slash = '\0';
  }
  free(d);
  return NULL;
}

/* The relax modules arguments.py imports option-adding functions from: `from relax.a.b import
 * add_x_arguments, ...` gives "relax/a/b.py" with the names that look like them. */
typedef struct {
  char *path;
  char **names;
  size_t n, cap;
} ps_import;

static bool adds_options(const char *name) {
  return pd_str_starts(name, "add_") && strstr(name, "argument") != NULL;
}

static void imports_of(const char *text, size_t len, ps_import **out, size_t *n, size_t *cap) {
  /* a plain scan is enough here: import lines of arguments.py are simple statements */
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    if (eol - p > 12 && !strncmp(p, "from relax.", 11)) {
      const char *m = p + 5, *sp = memchr(m, ' ', (size_t)(eol - m));
      if (sp && !strncmp(sp, " import ", 8)) {
        ps_import imp = {0};
        char *mod = pd_xstrndup(m, (size_t)(sp - m));
        for (char *q = mod; *q; q++)
          if (*q == '.') *q = '/';
        imp.path = pd_xasprintf("%s.py", mod);
        free(mod);
        /* names up to the closing parenthesis (imports may span lines) */
        const char *q = sp + 8, *stop = *q == '(' ? memchr(q, ')', (size_t)(end - q)) : eol;
        if (!stop) stop = eol;
        while (q < stop) {
          while (q < stop && !(isalnum_ascii(*q) || *q == '_')) q++;
          const char *w = q;
          while (q < stop && (isalnum_ascii(*q) || *q == '_')) q++;
          if (q > w) {
            char *name = pd_xstrndup(w, (size_t)(q - w));
            if (adds_options(name)) *PD_PUSH(imp.names, imp.n, imp.cap) = name;
            else free(name);
          }
        }
        if (imp.n) *PD_PUSH(*out, *n, *cap) = imp;
        else free(imp.path);
        eol = stop < end ? stop : end;
      }
    }
    p = eol + 1;
  }
}

static char *read_rel(const char *root, const char *rel, size_t *len, char **err) {
  char *p = pd_xasprintf("%s/%s", root, rel);
  char *text = pd_read_file(p, PD_MAX_FILE_BYTES, len);
  if (!text && err) *err = pd_xasprintf("%s: cannot read it (%s)", p, pd_read_error(errno));
  free(p);
  return text;
}

/* The commit the checkout is at, from .git/HEAD (a detached sha, or the ref it names); NULL when
 * it cannot be told without running git. Caller frees. */
static char *head_commit(const char *root) {
  size_t n;
  char *head = read_rel(root, ".git/HEAD", &n, NULL);
  if (!head) return NULL;
  head[strcspn(head, "\r\n")] = '\0';
  char *sha = NULL;
  if (pd_str_starts(head, "ref: ")) {
    char *rel = pd_xasprintf(".git/%s", head + 5);
    sha = read_rel(root, rel, &n, NULL);
    free(rel);
    if (sha) sha[strcspn(sha, "\r\n")] = '\0';
  } else {
    sha = pd_xstrdup(head);
  }
  free(head);
  if (sha && strlen(sha) < 7) {
    free(sha);
    sha = NULL;
  }
  return sha;
}

static bool read_module(const char *root, const ps_import *imp, json_t *opts, char **err) {
  size_t len;
  char *text = read_rel(root, imp->path, &len, NULL);
  char *rel = pd_xstrdup(imp->path);
  if (!text) { /* a package: relax/a/b/__init__.py */
    free(rel);
    rel = pd_xasprintf("%.*s/__init__.py", (int)(strlen(imp->path) - 3), imp->path);
    text = read_rel(root, rel, &len, NULL);
  }
  bool ok = true;
  if (text) ok = ps_read_options(rel, text, len, (const char *const *)imp->names, imp->n, opts, err);
  free(text);
  free(rel);
  return ok; /* a module that is not there adds nothing: its options are not this version's */
}

fc_catalog *ps_relax_catalog(const char *root, char **err) {
  *err = NULL;
  size_t len;
  char *text = read_rel(root, ARGS_PY, &len, err);
  if (!text) return NULL;
  json_t *opts = json_array();
  bool ok = ps_read_options(ARGS_PY, text, len, NULL, 0, opts, err);
  ps_import *imps = NULL;
  size_t nimp = 0, cap = 0;
  if (ok) imports_of(text, len, &imps, &nimp, &cap);
  for (size_t i = 0; ok && i < nimp; i++) ok = read_module(root, &imps[i], opts, err);
  for (size_t i = 0; i < nimp; i++) {
    for (size_t k = 0; k < imps[i].n; k++) free(imps[i].names[k]);
    free(imps[i].names);
    free(imps[i].path);
  }
  free(imps);
  free(text);
  fc_catalog *c = NULL;
  if (ok) {
    char *sha = head_commit(root);
    char *repo = pd_xasprintf("%s (checkout)", root);
    json_t *doc = json_pack("{s:i,s:{s:{s:s,s:s?}},s:o}", "perf_doctor_flags", 1, "sources",
                            "relax-infra", "repo", repo, "commit", sha, "options", opts);
    c = fc_from_json(doc, ARGS_PY, err);
    json_decref(doc);
    free(repo);
    free(sha);
  } else {
    json_decref(opts);
  }
  return c;
}

/* ---- a session's catalogs ---- */

typedef struct {
  char *root;
  fc_catalog *cat; /* NULL: that checkout could not be read (the built-in one is used) */
} ps_checkout;

struct ps_catalogs {
  ps_checkout *v;
  size_t n, cap;
};

ps_catalogs *ps_catalogs_new(void) { return pd_xcalloc(1, sizeof(ps_catalogs)); }

void ps_catalogs_free(ps_catalogs *cc) {
  if (!cc) return;
  for (size_t i = 0; i < cc->n; i++) {
    free(cc->v[i].root);
    fc_free(cc->v[i].cat);
  }
  free(cc->v);
  free(cc);
}

static char *checkout_root(const char *relax_src, const char *path) {
  if (relax_src) return relax_src[0] ? pd_path_normalize(relax_src) : NULL;
  if (!path) return NULL;
  char *abs = pd_path_absolute(path);
  char *dir = pd_path_dirname(abs);
  char *root = ps_find_checkout(dir);
  free(dir);
  free(abs);
  return root;
}

const fc_catalog *ps_catalog_for(ps_catalogs *cc, const fc_catalog *builtin, const char *relax_src,
                                 const char *path, char **warning) {
  *warning = NULL;
  char *root = builtin ? checkout_root(relax_src, path) : NULL;
  if (!root) return builtin;
  for (size_t i = 0; i < cc->n; i++)
    if (!strcmp(cc->v[i].root, root)) {
      free(root);
      return cc->v[i].cat ? cc->v[i].cat : builtin;
    }
  char *err = NULL;
  fc_catalog *own = ps_is_relax_checkout(root) ? ps_relax_catalog(root, &err) : NULL;
  if (!own && !err) err = pd_xasprintf("%s: not a Relax checkout (no %s)", root, ARGS_PY);
  fc_catalog *merged = NULL;
  if (own) {
    char *origin = pd_xstrdup(fc_origin(own, FC_RELAX));
    merged = fc_merge(builtin, own, FC_RELAX, origin);
    free(origin);
    fc_free(own);
  } else {
    *warning = pd_xasprintf("%s; using the built-in flag catalog", err);
  }
  free(err);
  *PD_PUSH(cc->v, cc->n, cc->cap) = (ps_checkout){root, merged};
  return merged ? merged : builtin;
}
