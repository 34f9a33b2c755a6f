/* out: the script model as JSON and as text (the body of the `context` command's output).
 * Lines and columns here are 1-based; columns count characters (Unicode code points), not
 * bytes, so that they match what an editor shows. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "script/script.h"

long sm_char_col(const sm_model *m, int file, uint32_t byte, uint32_t byte_col) {
  if (file < 0 || (size_t)file >= m->nfiles) return (long)byte_col + 1;
  const sm_file *f = &m->files[file];
  if (byte > f->len || byte_col > byte) return (long)byte_col + 1;
  long n = 0;
  for (uint32_t i = byte - byte_col; i < byte; i++)
    if (((unsigned char)f->text[i] & 0xC0) != 0x80) n++;
  return n + 1;
}

char *sm_rel_path(const sm_model *m, int file) {
  if (file < 0 || (size_t)file >= m->nfiles) return pd_xstrdup("");
  return pd_path_from(m->files[0].path, m->files[file].path);
}

static void model_put_range(json_t *o, const sm_model *m, int file, sm_range r) {
  json_object_set_new(o, "line", json_integer(r.start_line + 1));
  json_object_set_new(o, "column", json_integer(sm_char_col(m, file, r.start_byte, r.start_col)));
  json_object_set_new(o, "end_line", json_integer(r.end_line + 1));
  json_object_set_new(o, "end_column", json_integer(sm_char_col(m, file, r.end_byte, r.end_col)));
}

const char *sm_cert_name(sm_cert c) {
  static const char *const names[] = {"unresolved", "command", "branch", "default", "literal"};
  return c <= SM_CERT_LITERAL ? names[c] : "unresolved";
}

static json_t *num_or_null(long v) { return v < 0 ? json_null() : json_integer(v); }
static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static const char *level_name(sm_level l) {
  return l == SM_ERROR ? "error" : l == SM_WARN ? "warn" : "info";
}

/* What argparse makes of a flag occurrence: its status, the parser that owns it, and for an
 * unknown one the spelling it was most likely meant to be. */
static json_t *argparse_json(const sm_flag *fl) {
  json_t *a = json_object();
  json_object_set_new(a, "status", json_string(sm_argp_name(fl->argp)));
  if (fl->opt) json_object_set_new(a, "parser", json_string(fc_parser_name(fl->opt->parser)));
  if (fl->intended) json_object_set_new(a, "intended", json_string(fl->intended));
  if (fl->opt && fl->nused < fl->nvalues) json_object_set_new(a, "values_used", json_integer((json_int_t)fl->nused));
  return a;
}

json_t *sm_to_json(const sm_model *m) {
  const sm_context *c = &m->ctx;
  json_t *o = json_object();
  const char *script = strrchr(m->files[0].path, '/');
  json_object_set_new(o, "script", json_string(script ? script + 1 : m->files[0].path));
  json_object_set_new(o, "model", str_or_null(c->model));
  json_object_set_new(o, "train_line_found", json_boolean(m->train_line_found));
  if (m->train_line_found) {
    json_t *t = json_object();
    char *rp = sm_rel_path(m, m->train_file);
    json_object_set_new(t, "file", json_string(rp));
    free(rp);
    model_put_range(t, m, m->train_file, m->train_range);
    json_object_set_new(o, "train_line", t);
  }
  json_t *name = json_object();
  json_object_set_new(name, "gpus", num_or_null(c->name_gpus));
  json_object_set_new(name, "device", str_or_null(c->name_device));
  json_object_set_new(name, "model", str_or_null(c->name_model));
  json_object_set_new(name, "size", str_or_null(c->name_size));
  json_object_set_new(name, "suffixes", str_or_null(c->name_suffixes));
  json_object_set_new(o, "file_name", name);

  json_t *files = json_array();
  for (size_t i = 0; i < m->nfiles; i++) {
    json_t *f = json_object();
    char *rp = sm_rel_path(m, (int)i);
    json_object_set_new(f, "file", json_string(rp));
    free(rp);
    json_object_set_new(f, "path", json_string(m->files[i].path));
    if (m->files[i].job_path) json_object_set_new(f, "as_written", json_string(m->files[i].job_path));
    if (m->files[i].parent >= 0) {
      json_object_set_new(f, "sourced_from", json_integer(m->files[i].parent));
      json_object_set_new(f, "source_line", json_integer(m->files[i].source_range.start_line + 1));
    }
    json_array_append_new(files, f);
  }
  json_object_set_new(o, "files", files);

  json_t *flags = json_array();
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    json_t *f = json_object();
    json_object_set_new(f, "name", json_string(fl->name));
    json_t *vals = json_array(), *vr = json_array();
    for (size_t j = 0; j < fl->nvalues; j++) {
      json_array_append_new(vals, json_string(fl->values[j].text));
      json_t *r = json_object();
      model_put_range(r, m, fl->values[j].file, fl->values[j].range);
      json_object_set_new(r, "resolved", json_boolean(fl->values[j].resolved));
      json_object_set_new(r, "certainty", json_string(sm_cert_name(fl->values[j].cert)));
      if (fl->values[j].cert_var) json_object_set_new(r, "via", json_string(fl->values[j].cert_var));
      json_array_append_new(vr, r);
    }
    json_object_set_new(f, "values", vals);
    char *rp = sm_rel_path(m, fl->file);
    json_object_set_new(f, "file", json_string(rp));
    free(rp);
    model_put_range(f, m, fl->file, fl->range);
    json_object_set_new(f, "value_ranges", vr);
    json_object_set_new(f, "group", str_or_null(fl->group));
    json_object_set_new(f, "conditional", json_boolean(fl->conditional));
    json_object_set_new(f, "certainty", json_string(sm_cert_name(fl->cert)));
    json_object_set_new(f, "overridden", json_boolean(fl->overridden));
    json_object_set_new(f, "note", str_or_null(fl->note));
    if (fl->note) {
      json_t *nr = json_object();
      model_put_range(nr, m, fl->note_file, fl->note_range);
      json_object_set_new(f, "note_range", nr);
    }
    if (fl->json) json_object_set(f, "json", fl->json);
    if (m->catalog) json_object_set_new(f, "argparse", argparse_json(fl));
    json_array_append_new(flags, f);
  }
  json_object_set_new(o, "flags", flags);
  if (m->catalog) {
    json_t *cat = json_object();
    for (int p = 0; p < FC_NPARSERS; p++)
      json_object_set_new(cat, fc_parser_name((fc_parser)p), json_string(fc_origin(m->catalog, (fc_parser)p)));
    json_object_set_new(o, "catalog", cat);
  }

  json_t *conds = json_array();
  for (size_t i = 0; i < m->nconds; i++) {
    const sm_condition *cd = &m->conds[i];
    json_t *x = json_object();
    json_object_set_new(x, "level", json_string(level_name(cd->level)));
    json_object_set_new(x, "code", json_string(cd->code));
    json_object_set_new(x, "message", json_string(cd->message));
    if (cd->subject) json_object_set_new(x, "subject", json_string(cd->subject));
    if (cd->flag) json_object_set_new(x, "flag", json_string(cd->flag));
    if (cd->suggest) json_object_set_new(x, "suggest", json_string(cd->suggest));
    char *rp = sm_rel_path(m, cd->file);
    json_object_set_new(x, "file", json_string(rp));
    free(rp);
    model_put_range(x, m, cd->file, cd->range);
    json_array_append_new(conds, x);
  }
  json_object_set_new(o, "conditions", conds);

  json_t *vars = json_object();
  for (size_t i = 0; i < m->nvars; i++)
    json_object_set_new(vars, m->vars[i].name,
                        m->vars[i].known ? json_string(m->vars[i].value) : json_null());
  json_object_set_new(o, "variables", vars);
  return o;
}

char *sm_to_text(const sm_model *m) {
  pd_buf b = {0};
  if (m->train_line_found)
    pd_buf_printf(&b, "train command: line %u\n", m->train_range.start_line + 1);
  else
    pd_buf_puts(&b, "train command: not found (all *_ARGS arrays counted)\n");
  for (size_t i = 1; i < m->nfiles; i++) {
    char *rp = sm_rel_path(m, (int)i);
    pd_buf_printf(&b, "sourced: %s (line %u)\n", rp, m->files[i].source_range.start_line + 1);
    free(rp);
  }
  if (m->catalog)
    for (int p = 0; p < FC_NPARSERS; p++)
      pd_buf_printf(&b, "flag catalog, %s: %s\n", fc_parser_name((fc_parser)p), fc_origin(m->catalog, (fc_parser)p));
  else
    pd_buf_puts(&b, "flag catalog: none (flags not checked)\n");
  pd_buf_printf(&b, "\nflags (%zu, argparse order):\n", m->nflags);
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    char *rp = sm_rel_path(m, fl->file);
    pd_buf_printf(&b, "  %s%s", fl->overridden ? "~" : " ", fl->name);
    for (size_t j = 0; j < fl->nvalues; j++)
      pd_buf_printf(&b, " %s%s", fl->values[j].text, fl->values[j].resolved ? "" : " (unresolved)");
    pd_buf_printf(&b, "    [%s:%u%s%s%s]", rp, fl->range.start_line + 1, fl->group ? " " : "",
                  fl->group ? fl->group : "", fl->conditional ? " conditional" : "");
    if (fl->overridden) pd_buf_puts(&b, " overridden");
    if (m->catalog && fl->argp != SM_ARGP_OK) pd_buf_printf(&b, " argparse: %s", sm_argp_name(fl->argp));
    if (fl->note) pd_buf_printf(&b, " note: %s", fl->note);
    pd_buf_putc(&b, '\n');
    free(rp);
  }
  if (m->nconds) {
    pd_buf_puts(&b, "\nconditions:\n");
    for (size_t i = 0; i < m->nconds; i++) {
      const sm_condition *cd = &m->conds[i];
      char *rp = sm_rel_path(m, cd->file);
      pd_buf_printf(&b, "  %s %s %s:%u: %s\n", level_name(cd->level), cd->code, rp,
                    cd->range.start_line + 1, cd->message);
      free(rp);
    }
  }
  return pd_buf_take(&b);
}
