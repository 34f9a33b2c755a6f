#include "lsp/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/path.h"
#include "lsp/document.h"
#include "lsp/filemap.h"

#include "trace/compare.h"
#include "trace/messages.h"
#include "trace/trace.h"

json_t *cmd_memory_budget(const au_result *r, const char *lang) {
  char *md = au_budget_markdown(r, lang);
  json_t *j = json_pack("{s:o}", "markdown", fm_string(md ? md : ""));
  free(md);
  return j;
}

json_t *cmd_report(const au_result *r, const char *lang) {
  char *md = au_report_markdown(r, lang);
  json_t *j = json_pack("{s:o}", "markdown", fm_string(md));
  free(md);
  return j;
}

/* Where the summary goes: inside a folder of traces, or beside a single trace file. */
static char *summary_path(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    return pd_xasprintf("%.*s/perf-doctor-trace-summary.md", (int)n, path);
  }
  return pd_xasprintf("%s.perf-doctor-summary.md", path);
}

static bool write_text(const char *path, const char *text, char **err) {
  if (pd_write_file(path, text)) return true;
  *err = pd_xasprintf("cannot write %s: %s", path, strerror(errno));
  return false;
}

json_t *cmd_trace_summary(const char *path, const char *gpu, bool write_file, const char *lang, char **err) {
  *err = NULL;
  char *svg = NULL;
  tr_msgs *msgs = tr_msgs_builtin(NULL, NULL);
  tr_text tx = {msgs, tr_lang_of(lang)};
  tr_options o = {.format = "md", .svg = write_file ? &svg : NULL, .lang = lang, .msgs = msgs, .gpu = gpu};
  char *md = tr_summarize_opts(path, &o, NULL, err);
  if (!md) {
    if (!*err) *err = TR_SAID(&tx, TM_ERR_CANNOT_SUMMARISE, PD_MS(path));
    free(svg);
    tr_msgs_free(msgs);
    return NULL;
  }
  json_t *j = json_object();
  if (write_file) {
    /* A read-only trace folder still gets its summary, just not as a file. The picture goes
     * beside it and the file links it by name, so the editor's markdown preview shows it. */
    char *out = summary_path(path);
    char *pic = pd_xasprintf("%.*s.svg", (int)(strlen(out) - 3), out);
    char *svg_err = NULL; /* a picture that cannot be written only loses the picture */
    char *link = TR_SAID(&tx, TM_SVG_LINK, PD_MS(pd_path_base(pic)));
    char *text = svg && write_text(pic, svg, &svg_err) ? pd_xasprintf("%s\n%s\n", md, link) : pd_xstrdup(md);
    free(link);
    if (write_text(out, text, err)) {
      char *uri = doc_path_to_uri(out);
      json_object_set_new(j, "uri", json_string(uri));
      free(uri);
      free(md);
      md = text; /* the answer is the file's text */
    } else {
      free(text);
    }
    free(svg_err);
    free(pic);
    free(out);
  }
  free(svg);
  json_object_set_new(j, "markdown", fm_string(md));
  free(md);
  tr_msgs_free(msgs);
  return j;
}

json_t *cmd_compare_traces(const char *before, const char *after, const char *gpu, const char *lang, char **err) {
  *err = NULL;
  tr_options o = {.lang = lang, .gpu = gpu};
  json_t *cmp = tr_compare_paths(before, after, &o, NULL, err);
  if (!cmp) return NULL;
  tr_text tx = {NULL, tr_lang_of(lang)};
  char *md = tr_compare_md(cmp, &tx);
  json_t *j = json_pack("{s:o}", "markdown", fm_string(md));
  free(md);
  json_decref(cmp);
  return j;
}
