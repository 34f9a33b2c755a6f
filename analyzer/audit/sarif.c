/* sarif: the findings as SARIF 2.1.0 for code-scanning services (GitHub's code-scanning action
 * annotates a pull request from it). Paths are relative to a base directory and carry the
 * `SRCROOT` uriBaseId; every rule has a helpUri (its page under docs/rules); each result has a
 * partialFingerprint built from what it is about (rule, file, flag and the text of its line), not
 * from its line number, so code scanning recognises the same finding after unrelated edits;
 * suppressed findings are kept with an in-source suppression. Validated in the tests against the
 * OASIS schema. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/path.h"

#ifndef PD_HOMEPAGE
#define PD_HOMEPAGE "https://github.com/redai-infra/perf-doctor"
#endif
#ifndef PD_DOCS_URL
#define PD_DOCS_URL PD_HOMEPAGE "/blob/main/docs/rules/"
#endif

/* A path as a URI reference: unreserved characters and '/' as they are, the rest %-encoded. */
static char *uri_of(const char *path) {
  pd_buf b = {0};
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("-._~/", *p);
    if (keep) pd_buf_putc(&b, (char)*p);
    else pd_buf_printf(&b, "%%%02X", *p);
  }
  return b.data ? pd_buf_take(&b) : pd_xstrdup("");
}

typedef struct {
  char *base; /* absolute, normalised, no trailing slash */
} sarif_ctx;

/* The artifactLocation of a file: relative to the base with SRCROOT, else an absolute file URI. */
static json_t *artifact(const sarif_ctx *c, const sm_model *m, int file) {
  const char *path = file >= 0 && (size_t)file < m->nfiles ? m->files[file].path : "";
  size_t n = strlen(c->base);
  json_t *loc;
  if (!strncmp(path, c->base, n) && path[n] == '/') {
    char *u = uri_of(path + n + 1);
    loc = json_pack("{s:s, s:s}", "uri", u, "uriBaseId", "SRCROOT");
    free(u);
  } else {
    char *u = uri_of(path);
    char *abs = pd_xasprintf("file://%s", u);
    loc = json_pack("{s:s}", "uri", abs);
    free(abs);
    free(u);
  }
  return loc;
}

static json_t *region(const sm_model *m, int file, sm_range rg) {
  return json_pack("{s:I, s:I, s:I, s:I}", "startLine", (json_int_t)rg.start_line + 1, "startColumn",
                   (json_int_t)sm_char_col(m, file, rg.start_byte, rg.start_col), "endLine",
                   (json_int_t)rg.end_line + 1, "endColumn",
                   (json_int_t)sm_char_col(m, file, rg.end_byte, rg.end_col));
}

static json_t *location(const sarif_ctx *c, const sm_model *m, int file, sm_range rg) {
  return json_pack("{s:{s:o, s:o}}", "physicalLocation", "artifactLocation", artifact(c, m, file),
                   "region", region(m, file, rg));
}

static const char *level(au_severity s) {
  return s == AU_CRITICAL ? "error" : s == AU_WARN ? "warning" : "note";
}

/* What the finding is about, stable under edits elsewhere: rule, file, flag, and its line's text
 * with the blanks squeezed out. */
static char *fingerprint(const sarif_ctx *c, const sm_model *m, const au_finding *f) {
  uint64_t h = pd_hash_str(f->rule);
  const char *path = f->file >= 0 && (size_t)f->file < m->nfiles ? m->files[f->file].path : "";
  size_t n = strlen(c->base);
  if (!strncmp(path, c->base, n) && path[n] == '/') path += n + 1;
  h = pd_hash(h, path, strlen(path));
  if (f->flag) h = pd_hash(h, f->flag, strlen(f->flag));
  if (f->file >= 0 && (size_t)f->file < m->nfiles) {
    const sm_file *src = &m->files[f->file];
    for (uint32_t i = f->range.start_byte; i < src->len && src->text[i] != '\n'; i++)
      if (src->text[i] != ' ' && src->text[i] != '\t') h = pd_hash(h, &src->text[i], 1);
  }
  return pd_xasprintf("%016llx", (unsigned long long)h);
}

static json_t *rule_descriptor(const au_finding *f) {
  char *help = pd_xasprintf("%s%s.md", PD_DOCS_URL, f->rule);
  char *text = pd_xasprintf("%s Fix: %s", f->why, f->fix);
  json_t *d = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}, s:s, s:{s:s}, s:{s:s}}", "id", f->rule, "name",
                        f->rule, "shortDescription", "text", f->title, "fullDescription", "text",
                        f->why, "helpUri", help, "help", "text", text, "defaultConfiguration",
                        "level", level(f->severity));
  json_object_set_new(d, "properties", json_pack("{s:s}", "category", f->category));
  free(help);
  free(text);
  return d;
}

static json_t *fixes(const sarif_ctx *c, const sm_model *m, const au_finding *f) {
  json_t *changes = json_array();
  for (size_t j = 0; j < f->nedits; j++) {
    const au_edit *e = &f->edits[j];
    json_array_append_new(changes, json_pack("{s:o, s:[{s:o, s:{s:s}}]}", "artifactLocation",
                                             artifact(c, m, e->file), "replacements", "deletedRegion",
                                             region(m, e->file, e->range), "insertedContent", "text",
                                             e->new_text));
  }
  return json_pack("[{s:{s:s}, s:o}]", "description", "text", f->fix_title ? f->fix_title : f->fix,
                   "artifactChanges", changes);
}

static json_t *result(const sarif_ctx *c, const sm_model *m, const au_finding *f, size_t index) {
  char *msg = pd_xasprintf("%s: %s. Cost: %s. Fix: %s", f->rule, f->title, f->cost, f->fix);
  char *fp = fingerprint(c, m, f);
  json_t *res = json_pack("{s:s, s:I, s:s, s:{s:s}, s:[o], s:{s:s}}", "ruleId", f->rule, "ruleIndex",
                          (json_int_t)index, "level", level(f->severity), "message", "text", msg,
                          "locations", location(c, m, f->file, f->range), "partialFingerprints",
                          "perfDoctorFinding/v1", fp);
  free(msg);
  free(fp);
  json_object_set_new(res, "properties",
                      json_pack("{s:s, s:s, s:s, s:s}", "verdict", f->borderline ? "borderline" : "applies",
                                "category", f->category, "certainty", sm_cert_name(f->certainty),
                                "skipIf", f->skip_if));
  if (f->suppressed)
    json_object_set_new(res, "suppressions", json_pack("[{s:s}]", "kind", "inSource"));
  if (f->nrelated) {
    json_t *rel = json_array();
    for (size_t j = 0; j < f->nrelated; j++) {
      json_t *loc = location(c, m, f->related[j].file, f->related[j].range);
      json_object_set_new(loc, "id", json_integer((json_int_t)j));
      json_object_set_new(loc, "message", json_pack("{s:s}", "text", f->related[j].message));
      json_array_append_new(rel, loc);
    }
    json_object_set_new(res, "relatedLocations", rel);
  }
  if (f->nedits) json_object_set_new(res, "fixes", fixes(c, m, f));
  return res;
}

static char *absolute_base(const char *base_dir) {
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
  char *joined = !base_dir ? pd_xstrdup(cwd) : base_dir[0] == '/' ? pd_xstrdup(base_dir)
                                                                  : pd_xasprintf("%s/%s", cwd, base_dir);
  char *norm = pd_path_normalize(joined);
  free(joined);
  return norm;
}

json_t *au_report_sarif(au_result *const *rs, size_t n, const char *base_dir) {
  sarif_ctx c = {absolute_base(base_dir)};
  json_t *rules = json_array(), *results = json_array(), *seen = json_object();
  for (size_t k = 0; k < n; k++) {
    const au_result *r = rs[k];
    for (size_t i = 0; r && i < r->nfindings; i++) {
      const au_finding *f = &r->findings[i];
      json_t *idx = json_object_get(seen, f->rule);
      if (!idx) {
        idx = json_integer((json_int_t)json_array_size(rules));
        json_object_set_new(seen, f->rule, idx);
        json_array_append_new(rules, rule_descriptor(f));
      }
      json_array_append_new(results, result(&c, r->model, f, (size_t)json_integer_value(idx)));
    }
  }
  json_decref(seen);
  char *root = uri_of(c.base);
  char *root_uri = pd_xasprintf("file://%s/", strcmp(root, "/") ? root : "");
  json_t *driver = json_pack("{s:s, s:s, s:s, s:o}", "name", "perf-doctor", "version", PD_VERSION,
                             "informationUri", PD_HOMEPAGE, "rules", rules);
  json_t *run = json_pack("{s:{s:o}, s:{s:{s:s}}, s:o, s:[{s:b}]}", "tool", "driver", driver,
                          "originalUriBaseIds", "SRCROOT", "uri", root_uri, "results", results,
                          "invocations", "executionSuccessful", 1);
  free(root);
  free(root_uri);
  free(c.base);
  return json_pack("{s:s, s:s, s:[o]}", "$schema",
                   "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
                   "version", "2.1.0", "runs", run);
}
