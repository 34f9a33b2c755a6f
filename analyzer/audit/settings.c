#include "audit/settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"

void au_settings_init(au_settings *c) {
  memset(c, 0, sizeof *c);
  c->lang = pd_xstrdup("en");
  c->syntax_diagnostics = true;
}

void au_settings_free(au_settings *c) {
  free(c->gpu);
  free(c->lang);
  free(c->model_config_dir);
  free(c->extra_rules);
  free(c->docs_url);
  free(c->trace_dir);
  free(c->relax_src);
  for (size_t i = 0; i < c->noverrides; i++) free(c->overrides[i].rule);
  free(c->overrides);
  memset(c, 0, sizeof *c);
}

int au_settings_severity(const char *s) {
  static const struct {
    const char *word;
    int sev;
  } words[] = {{"off", -1},          {"none", -1},        {"disabled", -1},
               {"critical", AU_CRITICAL}, {"error", AU_CRITICAL}, {"warn", AU_WARN},
               {"warning", AU_WARN}, {"info", AU_INFO},   {"information", AU_INFO},
               {"hint", AU_INFO}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (s && !strcasecmp(s, words[i].word)) return words[i].sev;
  return -2;
}

void au_settings_override(au_settings *c, const char *rule, int sev) {
  for (size_t i = 0; i < c->noverrides; i++) {
    if (!strcmp(c->overrides[i].rule, rule)) {
      c->overrides[i].severity = sev;
      return;
    }
  }
  au_override *o = PD_PUSH(c->overrides, c->noverrides, c->overrides_cap);
  o->rule = pd_xstrdup(rule);
  o->severity = sev;
}

/* A string setting: absent or null keeps the default, a string replaces it. */
static void string_setting(const json_t *obj, const char *key, char **dst, pd_buf *errs) {
  json_t *v = json_object_get(obj, key);
  if (!v || json_is_null(v)) return;
  if (!json_is_string(v) || json_string_length(v) == 0 ||
      strlen(json_string_value(v)) != json_string_length(v)) {
    pd_buf_printf(errs, "setting \"%s\" must be a non-empty string; ignored\n", key);
    return;
  }
  free(*dst);
  *dst = pd_xstrdup(json_string_value(v));
}

char *au_settings_load(au_settings *c, const json_t *json) {
  au_settings_free(c);
  au_settings_init(c);
  return au_settings_apply(c, json);
}

char *au_settings_apply(au_settings *c, const json_t *json) {
  pd_buf errs = {0};
  if (json && json_is_object(json) && json_is_object(json_object_get(json, "perfDoctor")))
    json = json_object_get(json, "perfDoctor");
  if (!json || json_is_null(json)) return NULL;
  if (!json_is_object(json)) return pd_xstrdup("settings must be a JSON object; ignored");

  string_setting(json, "gpu", &c->gpu, &errs);
  string_setting(json, "lang", &c->lang, &errs);
  string_setting(json, "modelConfigDir", &c->model_config_dir, &errs);
  string_setting(json, "extraRules", &c->extra_rules, &errs);
  string_setting(json, "docsUrl", &c->docs_url, &errs);
  string_setting(json, "traceDir", &c->trace_dir, &errs);
  json_t *src = json_object_get(json, "relaxSrc");
  if (json_is_string(src) && json_string_length(src) == 0) { /* "": the built-in catalog only */
    free(c->relax_src);
    c->relax_src = pd_xstrdup("");
  } else {
    string_setting(json, "relaxSrc", &c->relax_src, &errs);
  }
  if (strcmp(c->lang, "en") != 0 && strcmp(c->lang, "zh") != 0) {
    pd_buf_printf(&errs, "setting \"lang\" must be \"en\" or \"zh\", not \"%s\"; using en\n", c->lang);
    free(c->lang);
    c->lang = pd_xstrdup("en");
  }

  json_t *rules = json_object_get(json, "rules");
  if (json_is_object(rules)) {
    const char *rule;
    json_t *v;
    json_object_foreach(rules, rule, v) {
      int sev = -2;
      if (json_is_string(v)) sev = au_settings_severity(json_string_value(v));
      else if (json_is_false(v)) sev = -1;
      if (sev == -2)
        pd_buf_printf(&errs, "rules.%s: expected off, critical, error, warn, warning or info\n", rule);
      else
        au_settings_override(c, rule, sev);
    }
  } else if (rules && !json_is_null(rules)) {
    pd_buf_puts(&errs, "setting \"rules\" must be an object of rule id -> severity; ignored\n");
  }

  json_t *off = json_object_get(json, "disabledRules");
  if (json_is_array(off)) {
    size_t i;
    json_t *v;
    json_array_foreach(off, i, v) {
      if (json_is_string(v)) au_settings_override(c, json_string_value(v), -1);
      else pd_buf_printf(&errs, "disabledRules[%zu] must be a rule id string\n", i);
    }
  } else if (off && !json_is_null(off)) {
    pd_buf_puts(&errs, "setting \"disabledRules\" must be an array of rule ids; ignored\n");
  }

  json_t *syn = json_object_get(json, "syntaxDiagnostics");
  bool syn_before = c->syntax_diagnostics;
  if (json_is_boolean(syn)) c->syntax_diagnostics = json_is_true(syn);
  else if (syn && !json_is_null(syn)) pd_buf_puts(&errs, "setting \"syntaxDiagnostics\" must be a boolean\n");
  /* syntax errors reach the user as rule R-S02's findings: the setting turns that rule off */
  if (!c->syntax_diagnostics && syn_before) au_settings_override(c, "R-S02", -1);

  if (errs.len == 0) {
    pd_buf_free(&errs);
    return NULL;
  }
  errs.data[--errs.len] = '\0'; /* drop the last newline */
  return pd_buf_take(&errs);
}

char *au_settings_find(const char *script_path) {
  char *dir = pd_path_dirname(script_path && *script_path ? script_path : ".");
  for (int depth = 0; depth < 64; depth++) {
    char *cand = pd_xasprintf("%s/%s", dir, AU_SETTINGS_FILE);
    struct stat st;
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
      free(dir);
      return cand;
    }
    free(cand);
    char *git = pd_xasprintf("%s/.git", dir);
    bool root = stat(git, &st) == 0 || !strcmp(dir, "/") || !strcmp(dir, ".");
    free(git);
    if (root) break;
    char *up = pd_path_dirname(dir);
    free(dir);
    dir = up;
  }
  free(dir);
  return NULL;
}

/* A path a config file gives, relative to that file's folder ("" stays: it means none). */
static void relative_to(char **p, const char *file) {
  if (!*p || !(*p)[0] || (*p)[0] == '/') return;
  char *dir = pd_path_dirname(file), *abs = pd_xasprintf("%s/%s", dir, *p);
  free(*p);
  *p = pd_path_normalize(abs);
  free(abs);
  free(dir);
}

char *au_settings_apply_file(au_settings *c, const char *path) {
  size_t len = 0;
  char *text = pd_read_file(path, PD_MAX_FILE_BYTES, &len);
  if (!text) return pd_xasprintf("%s: %s", path, pd_read_error(errno));
  json_error_t je;
  json_t *j = json_loadb(text, len, 0, &je);
  free(text);
  if (!j) return pd_xasprintf("%s:%d:%d: invalid JSON: %s", path, je.line, je.column, je.text);
  const json_t *own = json_is_object(json_object_get(j, "perfDoctor")) ? json_object_get(j, "perfDoctor") : j;
  bool sets_trace = json_is_string(json_object_get(own, "traceDir"));
  bool sets_src = json_is_string(json_object_get(own, "relaxSrc"));
  char *errs = au_settings_apply(c, j);
  json_decref(j);
  if (sets_trace) relative_to(&c->trace_dir, path);
  if (sets_src) relative_to(&c->relax_src, path);
  if (!errs) return NULL;
  char *out = pd_xasprintf("%s: %s", path, errs);
  free(errs);
  return out;
}

au_config au_settings_config(const au_settings *c) {
  au_config a = {0};
  a.gpu = c->gpu;
  a.lang = c->lang;
  a.model_config_dir = c->model_config_dir;
  a.extra_rules = c->extra_rules;
  a.overrides = c->overrides;
  a.noverrides = c->noverrides;
  return a;
}
