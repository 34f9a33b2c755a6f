#include "cli/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/device.h"
#include "base/limits.h"
#include "base/path.h"
#include "base/str.h"
#include "audit/audit.h"
#include "audit/messages.h"
#include "pysrc/pysrc.h"

const char *co_default_lang(void) {
  const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return pd_str_starts(v, "zh") ? "zh" : "en";
  }
  return "en";
}

const char *co_lang_of(int argc, char **argv) {
  const char *lang = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) break;
    if (!strcmp(argv[i], "--lang") && i + 1 < argc) lang = argv[++i];
    else if (!strncmp(argv[i], "--lang=", 7)) lang = argv[i] + 7;
  }
  return lang && (!strcmp(lang, "en") || !strcmp(lang, "zh")) ? lang : co_default_lang();
}

int co_fail(const char *cmd, const char *lang, au_msg_id id, const ax_value *args) {
  /* an error path: the built-in messages are loaded for this one sentence */
  char **errs = NULL;
  size_t nerrs = 0;
  au_rules *rules = au_rules_load(NULL, &errs, &nerrs);
  for (size_t i = 0; i < nerrs; i++) free(errs[i]); /* a broken catalog renders the key: still an error */
  free(errs);
  char *msg = au_msg(au_rules_messages(rules), id, lang, NULL, args);
  fprintf(stderr, "perf-doctor %s: %s\n", cmd, msg);
  free(msg);
  au_rules_free(rules);
  return 2;
}

int co_fail1(const char *cmd, const char *lang, au_msg_id id, const char *arg) {
  ax_value a = ax_str(arg);
  return co_fail(cmd, lang, id, &a);
}

static bool one_of(const char *v, const char *const *allowed) {
  for (size_t i = 0; allowed[i]; i++)
    if (!strcmp(v, allowed[i])) return true;
  return false;
}

static char *list_values(const char *const *allowed) {
  pd_buf b = {0};
  for (size_t i = 0; allowed[i]; i++) pd_buf_printf(&b, "%s%s", i ? ", " : "", allowed[i]);
  return pd_buf_take(&b);
}

int co_bad_value(const char *cmd, const char *lang, au_msg_id id, const char *v, const char *const *allowed) {
  char *list = list_values(allowed);
  ax_value a[2] = {ax_str(v), ax_str(list)};
  co_fail(cmd, lang, id, a);
  free(list);
  return 2;
}

static void add_override(co_opts *o, const char *rule, size_t n, int sev) {
  au_override *ov = PD_PUSH(o->overrides, o->noverrides, o->overrides_cap);
  ov->rule = pd_xstrndup(rule, n);
  ov->severity = sev;
}

/* --disable R-X,R-Y and --severity R-X=info. */
static int rule_option(const char *cmd, co_opts *o, bool disable, const char *v) {
  const char *lang = o->msg_lang;
  if (disable) {
    for (const char *p = v; *p;) {
      const char *comma = strchr(p, ',');
      size_t n = comma ? (size_t)(comma - p) : strlen(p);
      if (n) add_override(o, p, n, -1);
      p += n + (comma ? 1 : 0);
    }
    return -1;
  }
  const char *eq = strchr(v, '=');
  int sev = eq ? au_settings_severity(eq + 1) : -2;
  if (!eq || eq == v || sev == -2) {
    return co_fail1(cmd, lang, AU_MSG_CLI_SEVERITY_FORM, v);
  }
  add_override(o, v, (size_t)(eq - v), sev);
  return -1;
}

/* The option at argv[*i] that takes a value; returns -1 when handled, 2 on error, 1 when a is not
 * one of them. */
static int value_option(const char *cmd, co_opts *o, int argc, char **argv, int *i) {
  static const char *const names[] = {"--format", "--lang", "--gpu", "--model-config-dir",
                                      "--rules", "--fail-on", "--config", "--base-dir",
                                      "--trace", "--relax-src", "--env", "--disable", "--severity",
                                      NULL};
  const char *a = argv[*i], *val = NULL;
  size_t k;
  for (k = 0; names[k]; k++) {
    size_t n = strlen(names[k]);
    if (!strncmp(a, names[k], n) && (a[n] == '\0' || a[n] == '=')) {
      if (a[n] == '=') val = a + n + 1;
      else if (*i + 1 < argc) val = argv[++*i];
      break;
    }
  }
  if (!names[k]) return 1;
  if (!val) {
    return co_fail1(cmd, o->msg_lang, AU_MSG_CLI_NEEDS_VALUE, names[k]);
  }
  const char **slot[] = {&o->format, &o->lang, &o->gpu, &o->model_config_dir, &o->rules_file,
                         &o->fail_on, &o->config, &o->base_dir, &o->trace, &o->relax_src};
  if (k < 10) {
    *slot[k] = val;
    return -1;
  }
  if (k == 10) {
    if (!strchr(val, '=') || val[0] == '=') {
      return co_fail1(cmd, o->msg_lang, AU_MSG_CLI_ENV_FORM, val);
    }
    *PD_PUSH(o->env, o->nenv, o->env_cap) = val;
    return -1;
  }
  return rule_option(cmd, o, k == 11, val);
}

/* The values given, checked: a bad one names itself and what is allowed. */
static int check_values(const char *cmd, const char *const *formats, const co_opts *o) {
  static const char *const langs[] = {"en", "zh", NULL};
  static const char *const levels[] = {"critical", "warn", "info", NULL};
  const char *lang = o->msg_lang;
  if (o->format && !one_of(o->format, formats)) return co_bad_value(cmd, lang, AU_MSG_CLI_UNKNOWN_FORMAT, o->format, formats);
  if (o->lang && !one_of(o->lang, langs)) return co_bad_value(cmd, lang, AU_MSG_CLI_UNKNOWN_LANG, o->lang, langs);
  if (o->fail_on && !one_of(o->fail_on, levels)) return co_bad_value(cmd, lang, AU_MSG_CLI_UNKNOWN_LEVEL, o->fail_on, levels);
  pd_device custom;
  if (o->gpu && !pd_device_find(o->gpu, &custom)) {
    const char *ids[64];
    size_t n = 0;
    for (size_t i = 0; i < pd_device_count() && n + 1 < sizeof ids / sizeof ids[0]; i++) ids[n++] = pd_device_at(i)->id;
    ids[n] = NULL;
    return co_bad_value(cmd, lang, AU_MSG_CLI_UNKNOWN_GPU, o->gpu, ids);
  }
  struct stat st;
  const char *dirs[] = {o->model_config_dir, o->base_dir};
  for (int i = 0; i < 2; i++)
    if (dirs[i] && (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))) {
      if (stat(dirs[i], &st) == 0) return co_fail1(cmd, lang, AU_MSG_CLI_NOT_DIR, dirs[i]);
      fprintf(stderr, "perf-doctor %s: %s: %s\n", cmd, dirs[i], strerror(errno));
      return 2;
    }
  if (o->config && (stat(o->config, &st) != 0 || !S_ISREG(st.st_mode))) {
    if (stat(o->config, &st) == 0) return co_fail1(cmd, lang, AU_MSG_CLI_NOT_FILE, o->config);
    fprintf(stderr, "perf-doctor %s: --config %s: %s\n", cmd, o->config, strerror(errno));
    return 2;
  }
  return -1;
}

int co_parse(const char *cmd, const char *usage, const char *const *formats, int argc, char **argv,
             co_opts *o) {
  memset(o, 0, sizeof *o);
  o->msg_lang = co_lang_of(argc, argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(usage, stdout), 0;
    if (!strcmp(a, "--")) { /* the rest is the script's own arguments */
      o->args = (const char **)argv + i + 1;
      o->nargs = (size_t)(argc - i - 1);
      break;
    }
    if (!strcmp(a, "--no-config")) {
      o->no_config = true;
      continue;
    }
    int r = value_option(cmd, o, argc, argv, &i);
    if (r == 2) return 2;
    if (r < 0) continue;
    if (a[0] == '-' && a[1]) {
      co_fail1(cmd, o->msg_lang, AU_MSG_CLI_UNKNOWN_OPTION, a);
      fputs(usage, stderr);
      return 2;
    }
    *PD_PUSH(o->inputs, o->ninputs, o->inputs_cap) = a;
  }
  if (!o->ninputs) {
    co_fail(cmd, o->msg_lang, AU_MSG_CLI_NO_SCRIPT, NULL);
    fputs(usage, stderr);
    return 2;
  }
  return check_values(cmd, formats, o);
}

void co_free(co_opts *o) {
  for (size_t i = 0; i < o->noverrides; i++) free(o->overrides[i].rule);
  free(o->overrides);
  free(o->env);
  free(o->inputs);
  memset(o, 0, sizeof *o);
}

static void replace(char **dst, const char *v) {
  if (!v) return;
  free(*dst);
  *dst = pd_xstrdup(v);
}

int co_settings(const char *cmd, const co_opts *o, const char *script, au_settings *s) {
  au_settings_init(s);
  if (!o->lang) replace(&s->lang, co_default_lang());
  char *path = o->no_config ? NULL : o->config ? pd_xstrdup(o->config) : au_settings_find(script);
  if (path) {
    char *errs = au_settings_apply_file(s, path);
    free(path);
    if (errs) { /* a broken project config must not make a green run */
      fprintf(stderr, "perf-doctor %s: %s\n", cmd, errs);
      free(errs);
      return 2;
    }
  }
  replace(&s->lang, o->lang);
  replace(&s->gpu, o->gpu);
  replace(&s->model_config_dir, o->model_config_dir);
  replace(&s->extra_rules, o->rules_file);
  for (size_t i = 0; i < o->noverrides; i++)
    au_settings_override(s, o->overrides[i].rule, o->overrides[i].severity);
  return 0;
}

au_config co_config(const co_opts *o, const au_settings *s) {
  au_config c = au_settings_config(s);
  c.env = o->env;
  c.nenv = o->nenv;
  c.args = o->args;
  c.nargs = o->nargs;
  return c;
}

sm_model *co_read_model(const char *cmd, const char *script, const sm_options *opt) {
  size_t len;
  char *text = pd_read_file(script, PD_MAX_FILE_BYTES, &len);
  if (!text) {
    fprintf(stderr, "perf-doctor %s: %s: %s\n", cmd, script, pd_read_error(errno));
    return NULL;
  }
  sm_model *m = sm_build(script, text, len, NULL, opt);
  free(text);
  return m;
}

/* ---- flag catalogs ---- */

const fc_catalog *co_catalog(ps_catalogs *cc, const fc_catalog *builtin, const char *cmd,
                             const char *relax_src, const char *script) {
  char *warning = NULL;
  const fc_catalog *c = ps_catalog_for(cc, builtin, relax_src, script, &warning);
  if (warning) fprintf(stderr, "perf-doctor %s: %s\n", cmd, warning);
  free(warning);
  return c;
}
