#include "audit/catalog.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit/facts.h"
#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"

ac_catalog *ac_new(void) { return pd_xcalloc(1, sizeof(ac_catalog)); }

static void text_free(ac_text *t) {
  free(t->en);
  free(t->zh);
}

static void strv_free(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static void tpl_free(ac_tpl *t) {
  at_free(t->en);
  at_free(t->zh);
}

static void case_free(ac_case *c) {
  ax_free(c->when);
  ax_free(c->ratio);
  strv_free(c->at, c->nat);
  free(c->at_env);
  tpl_free(&c->cost);
  tpl_free(&c->fix_title);
  for (size_t i = 0; i < c->nedits; i++) {
    free(c->edits[i].flag);
    at_free(c->edits[i].value);
    strv_free(c->edits[i].near, c->edits[i].nnear);
    ax_free(c->edits[i].cond);
  }
  free(c->edits);
}

static void rule_free(ac_rule *r) {
  free(r->id);
  free(r->category);
  text_free(&r->title);
  text_free(&r->why);
  text_free(&r->fix);
  text_free(&r->skip_if);
  ax_free(r->skip);
  strv_free(r->at, r->nat);
  strv_free(r->conditions, r->nconditions);
  strv_free(r->modes, r->nmodes);
  free(r->verified);
  json_decref(r->json);
  strv_free(r->intents, r->nintents);
  for (size_t i = 0; i < r->ncases; i++) case_free(&r->cases[i]);
  free(r->cases);
}

void ac_free(ac_catalog *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) rule_free(&c->rules[i]);
  free(c->rules);
  free(c);
}

const char *ac_tr(const ac_text *t, const char *lang) {
  if (lang && !strcmp(lang, "zh") && t->zh) return t->zh;
  return t->en ? t->en : "";
}

const at_tpl *ac_tpl_in(const ac_tpl *t, const char *lang) {
  if (lang && !strcmp(lang, "zh") && t->zh) return t->zh;
  return t->en;
}

int ac_resolve(void *ctx, const char *name, bool is_call, size_t nargs, char **why) {
  (void)ctx;
  if (!is_call) return af_fact_id(name);
  int id = af_fn_id(name, nargs, why);
  return id;
}

const ac_rule *ac_find(const ac_catalog *c, const char *id) {
  for (size_t i = 0; i < c->n; i++)
    if (!strcmp(c->rules[i].id, id)) return &c->rules[i];
  return NULL;
}

/* ---- loading ---- */

typedef struct {
  char ***errs;
  size_t *nerrs, *cap;
  const char *origin, *rule;
  bool bad;
} loader;

static void err(loader *ld, const char *fmt, const char *a, const char *b) {
  char *msg = pd_xasprintf(fmt, a ? a : "", b ? b : "");
  *PD_PUSH(*ld->errs, *ld->nerrs, *ld->cap) =
      pd_xasprintf("%s: %s: %s", ld->origin, ld->rule ? ld->rule : "(file)", msg);
  free(msg);
  ld->bad = true;
}

static ax_expr *expr(loader *ld, json_t *v, const char *what) {
  if (!v) return NULL;
  if (!json_is_string(v)) {
    err(ld, "%s must be a string", what, NULL);
    return NULL;
  }
  char *msg = NULL;
  ax_expr *e = ax_parse(json_string_value(v), &msg);
  if (e && !ax_bind(e, ac_resolve, NULL, &msg)) {
    ax_free(e);
    e = NULL;
  }
  if (!e) {
    err(ld, "%s: %s", what, msg);
    free(msg);
  }
  return e;
}

static at_tpl *template_of(loader *ld, const char *src, const char *what) {
  char *msg = NULL;
  at_tpl *t = at_compile(src, ac_resolve, NULL, &msg);
  if (!t) {
    err(ld, "%s: %s", what, msg);
    free(msg);
  }
  return t;
}

/* {"en": .., "zh": ..} or a plain string, compiled; `what` names it in messages. */
static ac_tpl tpl(loader *ld, json_t *v, const char *what) {
  ac_tpl t = {NULL, NULL};
  char where[96];
  json_t *en = json_is_object(v) ? json_object_get(v, "en") : v, *zh = json_object_get(v, "zh");
  snprintf(where, sizeof where, "%s (en)", what);
  if (json_is_string(en)) t.en = template_of(ld, json_string_value(en), where);
  snprintf(where, sizeof where, "%s (zh)", what);
  if (json_is_string(zh)) t.zh = template_of(ld, json_string_value(zh), where);
  return t;
}

static ac_text text(json_t *v) {
  ac_text t = {NULL, NULL};
  if (json_is_string(v)) {
    t.en = pd_xstrdup(json_string_value(v));
  } else if (json_is_object(v)) {
    json_t *en = json_object_get(v, "en"), *zh = json_object_get(v, "zh");
    if (json_is_string(en)) t.en = pd_xstrdup(json_string_value(en));
    if (json_is_string(zh)) t.zh = pd_xstrdup(json_string_value(zh));
  }
  return t;
}

static char **strv(json_t *v, size_t *n) {
  *n = 0;
  if (json_is_string(v)) {
    char **r = pd_xmalloc(sizeof *r);
    r[0] = pd_xstrdup(json_string_value(v));
    *n = 1;
    return r;
  }
  if (!json_is_array(v) || !json_array_size(v)) return NULL;
  char **r = pd_xcalloc(json_array_size(v), sizeof *r);
  size_t i;
  json_t *x;
  json_array_foreach(v, i, x) {
    if (json_is_string(x)) r[(*n)++] = pd_xstrdup(json_string_value(x));
  }
  return r;
}

/* "modes", "needs" and "intent", checked against the words the facts use. */
static void read_modes(loader *ld, ac_rule *r, json_t *o) {
  static const char *const jobs[] = {"rl", "genrm", "diffusion", "sft", "cpt", "dpo",
                                     "reward-model"};
  r->modes = strv(json_object_get(o, "modes"), &r->nmodes);
  for (size_t i = 0; i < r->nmodes; i++) {
    bool known = false;
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++) known |= !strcmp(r->modes[i], jobs[j]);
    if (!known)
      err(ld, "mode '%s' is not rl|genrm|diffusion|sft|cpt|dpo|reward-model", r->modes[i], NULL);
  }
  size_t nneeds = 0;
  char **needs = strv(json_object_get(o, "needs"), &nneeds);
  for (size_t i = 0; i < nneeds; i++) {
    if (!strcmp(needs[i], "engine")) r->needs_engine = true;
    else if (!strcmp(needs[i], "train")) r->needs_train = true;
    else if (!strcmp(needs[i], "megatron")) r->needs_megatron = true;
    else err(ld, "needs '%s' is not engine|train|megatron", needs[i], NULL);
  }
  strv_free(needs, nneeds);
  r->intents = strv(json_object_get(o, "intent"), &r->nintents);
}

static int catalog_severity(const char *s) {
  if (!s) return -2;
  if (!strcmp(s, "critical")) return AU_CRITICAL;
  if (!strcmp(s, "warn") || !strcmp(s, "warning")) return AU_WARN;
  if (!strcmp(s, "info")) return AU_INFO;
  return -2;
}

static void load_edits(loader *ld, json_t *edits, ac_case *c, const char *where);

static bool load_case(loader *ld, json_t *o, ac_case *c, size_t index) {
  char where[64], what[160];
  snprintf(where, sizeof where, "cases[%zu]", index);
  memset(c, 0, sizeof *c);
  c->severity = -1;
  if (!json_is_object(o)) {
    err(ld, "a case must be an object", NULL, NULL);
    return false;
  }
  snprintf(what, sizeof what, "%s.when", where);
  c->when = expr(ld, json_object_get(o, "when"), what);
  if (!c->when && !ld->bad) err(ld, "a case needs \"when\"", NULL, NULL);
  snprintf(what, sizeof what, "%s.ratio", where);
  c->ratio = expr(ld, json_object_get(o, "ratio"), what);
  json_t *band = json_object_get(o, "band");
  c->band = json_is_number(band) ? json_number_value(band) : 0.1;
  json_t *sev = json_object_get(o, "severity");
  if (sev) {
    c->severity = catalog_severity(json_string_value(sev));
    if (c->severity == -2) err(ld, "bad case severity", NULL, NULL);
  }
  c->at = strv(json_object_get(o, "at"), &c->nat);
  const char *ae = json_string_value(json_object_get(o, "at_env"));
  c->at_env = ae ? pd_xstrdup(ae) : NULL;
  snprintf(what, sizeof what, "%s.cost", where);
  c->cost = tpl(ld, json_object_get(o, "cost"), what);
  snprintf(what, sizeof what, "%s.fix_title", where);
  c->fix_title = tpl(ld, json_object_get(o, "fix_title"), what);
  c->safe = json_is_true(json_object_get(o, "safe"));
  load_edits(ld, json_object_get(o, "edits"), c, where);
  return !ld->bad;
}

static void load_edits(loader *ld, json_t *edits, ac_case *c, const char *where) {
  char what[160];
  if (json_is_array(edits) && json_array_size(edits)) {
    c->edits = pd_xcalloc(json_array_size(edits), sizeof *c->edits);
    size_t i;
    json_t *e;
    json_array_foreach(edits, i, e) {
      const char *op = json_string_value(json_object_get(e, "op"));
      const char *flag = json_string_value(json_object_get(e, "flag"));
      /* replace: the text the finding points at; remove without a flag: the flag occurrence a
         condition is about */
      bool own = op && (!strcmp(op, "replace") || (!strcmp(op, "remove") && !flag));
      if (!op || (!own && (!flag || strncmp(flag, "--", 2) != 0))) {
        err(ld, "an edit needs \"op\" and a \"flag\" starting with -- (only replace, and remove "
                "of a condition's own flag, take none)", NULL, NULL);
        continue;
      }
      ac_edit *ed = &c->edits[c->nedits];
      memset(ed, 0, sizeof *ed);
      if (!strcmp(op, "set")) ed->op = AC_SET;
      else if (!strcmp(op, "add")) ed->op = AC_ADD;
      else if (!strcmp(op, "remove")) ed->op = AC_REMOVE;
      else if (!strcmp(op, "replace")) ed->op = AC_REPLACE;
      else {
        err(ld, "unknown edit op '%s'", op, NULL);
        continue;
      }
      ed->flag = pd_xstrdup(flag ? flag : "");
      const char *val = json_string_value(json_object_get(e, "value"));
      snprintf(what, sizeof what, "%s.edits[%zu].value", where, i);
      ed->value = val ? template_of(ld, val, what) : NULL;
      ed->near = strv(json_object_get(e, "near"), &ed->nnear);
      snprintf(what, sizeof what, "%s.edits[%zu].if", where, i);
      ed->cond = expr(ld, json_object_get(e, "if"), what);
      c->nedits++;
    }
  }
}

static bool load_rule(loader *ld, json_t *o, ac_rule *r) {
  memset(r, 0, sizeof *r);
  const char *id = json_string_value(json_object_get(o, "id"));
  ld->rule = id;
  ld->bad = false;
  if (!id || !*id) {
    err(ld, "a rule needs an \"id\"", NULL, NULL);
    return false;
  }
  r->id = pd_xstrdup(id);
  r->forced_severity = -1;
  r->json = json_incref(o);
  const char *cat = json_string_value(json_object_get(o, "category"));
  if (!cat) {
    char kind = strlen(id) > 2 ? id[2] : '\0'; /* R-C.., R-M.., R-P.. */
    cat = kind == 'C' ? "config" : kind == 'M' ? "memory" : "performance";
  }
  if (strcmp(cat, "config") && strcmp(cat, "memory") && strcmp(cat, "performance"))
    err(ld, "category '%s' is not config|memory|performance", cat, NULL);
  r->category = pd_xstrdup(cat);
  int sev = catalog_severity(json_string_value(json_object_get(o, "severity")));
  if (sev < 0) err(ld, "severity must be critical|warn|info", NULL, NULL);
  r->severity = sev < 0 ? AU_WARN : (au_severity)sev;
  r->title = text(json_object_get(o, "title"));
  r->why = text(json_object_get(o, "why"));
  r->fix = text(json_object_get(o, "fix"));
  r->skip_if = text(json_object_get(o, "skip_if"));
  const char *verified = json_string_value(json_object_get(o, "verified"));
  r->verified = verified ? pd_xstrdup(verified) : NULL;
  if (!r->title.en) err(ld, "a rule needs a title", NULL, NULL);
  r->skip = expr(ld, json_object_get(o, "skip"), "skip");
  const char *note = json_string_value(json_object_get(o, "note"));
  r->note_skips = note && !strcmp(note, "skip");
  const char *anchor = json_string_value(json_object_get(o, "anchor"));
  r->anchor_source = anchor && !strcmp(anchor, "source");
  const char *related = json_string_value(json_object_get(o, "related"));
  r->related_config = related && !strcmp(related, "model-config");
  r->conditions = strv(json_object_get(o, "condition"), &r->nconditions);
  if (related && !r->related_config) err(ld, "related '%s' is not model-config", related, NULL);
  r->about_file = json_is_true(json_object_get(o, "about_file"));
  read_modes(ld, r, o);
  r->each = json_is_true(json_object_get(o, "each"));
  r->file_local = json_is_true(json_object_get(o, "file_local"));
  r->group = json_is_true(json_object_get(o, "group"));
  r->at = strv(json_object_get(o, "at"), &r->nat);
  json_t *cases = json_object_get(o, "cases");
  if (!json_is_array(cases) || !json_array_size(cases)) {
    err(ld, "a rule needs a non-empty \"cases\" array", NULL, NULL);
  } else {
    size_t i;
    json_t *x;
    json_array_foreach(cases, i, x) {
      ac_case *c = PD_PUSH(r->cases, r->ncases, r->capcases);
      if (!load_case(ld, x, c, i)) {
        case_free(c);
        r->ncases--;
      }
    }
  }
  return !ld->bad;
}

bool ac_load(ac_catalog *c, const char *text_, size_t len, const char *origin, char ***errs,
             size_t *nerrs, size_t *caperrs) {
  loader ld = {errs, nerrs, caperrs, origin ? origin : "rules", NULL, false};
  json_error_t je;
  json_t *root = json_loadb(text_, len, 0, &je);
  if (!root) {
    char line[32];
    snprintf(line, sizeof line, "%d", je.line);
    err(&ld, "invalid JSON at line %s: %s", line, je.text);
    return false;
  }
  json_t *rules = json_is_object(root) ? json_object_get(root, "rules") : root;
  if (!json_is_array(rules)) {
    err(&ld, "expected {\"rules\": [...]}", NULL, NULL);
    json_decref(root);
    return false;
  }
  size_t i;
  json_t *o;
  json_array_foreach(rules, i, o) {
    if (!json_is_object(o)) continue;
    const char *id = json_string_value(json_object_get(o, "id"));
    bool disabled = json_is_true(json_object_get(o, "disabled"));
    /* an override replaces the rule of the same id in place, keeping catalog order */
    size_t slot = c->n;
    for (size_t k = 0; id && k < c->n; k++)
      if (!strcmp(c->rules[k].id, id)) slot = k;
    /* {"id": <built-in>, "severity": ...} and nothing else of a rule: only the severity changes */
    if (!disabled && slot < c->n && !json_object_get(o, "cases") && !json_object_get(o, "title")) {
      int sev = catalog_severity(json_string_value(json_object_get(o, "severity")));
      if (sev < 0) err(&ld, "severity must be critical|warn|info", NULL, NULL);
      else c->rules[slot].forced_severity = sev;
      continue;
    }
    if (disabled) {
      if (slot < c->n) {
        rule_free(&c->rules[slot]);
        memmove(&c->rules[slot], &c->rules[slot + 1], (c->n - slot - 1) * sizeof *c->rules);
        c->n--;
      }
      continue;
    }
    ac_rule r;
    if (!load_rule(&ld, o, &r)) {
      rule_free(&r);
      continue;
    }
    if (slot < c->n) {
      rule_free(&c->rules[slot]);
      c->rules[slot] = r;
    } else {
      *PD_PUSH(c->rules, c->n, c->cap) = r;
    }
  }
  json_decref(root);
  return true;
}
