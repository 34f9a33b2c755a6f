#include "flagcat/flagcat.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/data.h"
#include "base/hash.h"
#include "base/path.h"
#include "base/str.h"
#include "flagcat/fc_int.h"

static const char *const parser_names[FC_NPARSERS] = {"relax", "megatron", "sglang", "pre"};
const char *fc_parser_name(fc_parser p) { return p < FC_NPARSERS ? parser_names[p] : "unknown"; }

char *fc_keep(fc_catalog *c, char *s) {
  *PD_PUSH(c->strs, c->nstrs, c->strcap) = s;
  return s;
}
const char *fc_keep_dup(fc_catalog *c, const char *s) { return s ? fc_keep(c, pd_xstrdup(s)) : NULL; }

void fc_free(fc_catalog *c) {
  if (!c) return;
  for (size_t i = 0; i < c->nopts; i++) {
    free((void *)c->opts[i].names);
    free((void *)c->opts[i].choices);
    free((void *)c->opts[i].dep_values);
  }
  free(c->opts);
  free(c->next);
  free(c->uncovered);
  free(c->rejected);
  for (size_t i = 0; i < c->nstrs; i++) free(c->strs[i]);
  free(c->strs);
  pd_map_free(&c->by_name);
  pd_map_free(&c->dropped);
  free(c);
}

/* ---- loading ---- */

static const struct {
  const char *name;
  fc_action action;
} actions[] = {
    {"store", FC_STORE},
    {"store_true", FC_STORE_TRUE},
    {"store_false", FC_STORE_FALSE},
    {"store_const", FC_STORE_CONST},
    {"append", FC_APPEND},
    {"append_const", FC_APPEND_CONST},
    {"count", FC_COUNT_ACTION},
    {"extend", FC_EXTEND},
    {"boolean_optional", FC_BOOLEAN_OPTIONAL},
    {"help", FC_HELP},
    {"version", FC_VERSION},
};

static const struct {
  const char *name;
  fc_type type;
} types[] = {
    {"none", FC_T_NONE}, {"str", FC_T_STR},   {"int", FC_T_INT},   {"float", FC_T_FLOAT},
    {"json", FC_T_JSON}, {"bool", FC_T_BOOL}, {"path", FC_T_PATH},
};

static bool parser_of(const char *s, fc_parser *out) {
  for (int p = 0; p < FC_NPARSERS; p++)
    if (s && !strcmp(s, parser_names[p])) {
      *out = (fc_parser)p;
      return true;
    }
  return false;
}

static int nargs_of(json_t *v) {
  if (json_is_integer(v)) return (int)json_integer_value(v);
  const char *s = json_string_value(v);
  if (!s) return FC_NARGS_ONE;
  return !strcmp(s, "?") ? FC_NARGS_OPT : !strcmp(s, "*") ? FC_NARGS_ANY
         : !strcmp(s, "+") ? FC_NARGS_SOME : FC_NARGS_ONE;
}

/* The default as a user reads it: Python's spelling of the JSON value. */
static char *default_text(json_t *v, bool *computed) {
  *computed = false;
  if (!v || json_is_null(v)) return pd_xstrdup("None");
  if (json_is_true(v)) return pd_xstrdup("True");
  if (json_is_false(v)) return pd_xstrdup("False");
  if (json_is_string(v)) return pd_xstrdup(json_string_value(v));
  if (json_is_object(v)) {
    json_t *e = json_object_get(v, "computed");
    if (json_is_string(e)) {
      *computed = true;
      return pd_xasprintf("computed: %s", json_string_value(e));
    }
    if (json_is_true(json_object_get(v, "suppress"))) return pd_xstrdup("(not set)");
  }
  if (json_is_real(v)) { /* Python's repr: the shortest text that reads back the same */
    double d = json_real_value(v);
    for (int prec = 1; prec <= 17; prec++) {
      char *s = pd_xasprintf("%.*g", prec, d);
      if (strtod(s, NULL) == d) return s;
      free(s);
    }
  }
  char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  return s ? s : pd_xstrdup("None");
}

static const char **strings_of(fc_catalog *c, json_t *arr, size_t *n) {
  *n = json_is_array(arr) ? json_array_size(arr) : 0;
  if (!*n) return NULL;
  const char **v = pd_xcalloc(*n, sizeof *v);
  for (size_t i = 0; i < *n; i++) {
    json_t *e = json_array_get(arr, i);
    if (json_is_string(e)) {
      v[i] = fc_keep_dup(c, json_string_value(e));
    } else {
      char *s = json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT);
      v[i] = fc_keep(c, s ? s : pd_xstrdup(""));
    }
  }
  return v;
}

static unsigned forks_of(json_t *in) {
  unsigned bits = 0;
  for (size_t i = 0; json_is_array(in) && i < json_array_size(in); i++) {
    const char *s = json_string_value(json_array_get(in, i));
    if (s && !strcmp(s, "relax-infra")) bits |= FC_IN_INFRA;
    if (s && !strcmp(s, "relax-studio")) bits |= FC_IN_STUDIO;
    if (s && !strcmp(s, "checkout")) bits |= FC_IN_CHECKOUT;
  }
  return bits;
}

/* The deprecation of an option: a validator's (deprecated_effect), or its help's when the help
 * itself opens with it ("Deprecated: see --ckpt-format"); a help that only mentions a
 * deprecated value ("Note: dist_muon is deprecated") leaves the option as it is. */
static void load_deprecation(fc_catalog *c, fc_option *op, json_t *o) {
  const char *text = json_string_value(json_object_get(o, "deprecated"));
  const char *eff = json_string_value(json_object_get(o, "deprecated_effect"));
  if (text && eff) {
    op->dep = !strcmp(eff, "error") ? FC_DEP_ERROR : FC_DEP_WARNING;
  } else if (text) {
    const char *h = pd_str_starts(text, "help: ") ? text + 6 : text;
    while (*h == '[' || *h == '(') h++;
    if (!strncasecmp(h, "deprecated", 10)) {
      op->dep = FC_DEP_HELP;
      text = pd_str_starts(text, "help: ") ? text + 6 : text;
    } else {
      text = NULL;
    }
  }
  op->deprecated = fc_keep_dup(c, text);
  const char *repl = json_string_value(json_object_get(json_object_get(o, "action_args"), "new_flag"));
  op->replaced_by = text && repl && pd_str_starts(repl, "--") ? fc_keep_dup(c, repl) : NULL;
  json_t *vals = json_object_get(o, "deprecated_values");
  size_t n = json_object_size(vals), k = 0;
  fc_dep_value *dv = n ? pd_xcalloc(n, sizeof *dv) : NULL;
  const char *key;
  json_t *v;
  json_object_foreach(vals, key, v) {
    const char *msg = json_string_value(json_object_get(v, "message"));
    const char *e = json_string_value(json_object_get(v, "effect"));
    dv[k++] = (fc_dep_value){fc_keep_dup(c, key), fc_keep_dup(c, msg ? msg : "deprecated"), e && !strcmp(e, "error")};
  }
  op->dep_values = dv;
  op->ndep_values = k;
}

/* One option object; false with *err when it lacks what every option must have. */
static bool load_option(fc_catalog *c, json_t *o, size_t idx, const char *origin, char **err) {
  fc_option op = {0};
  json_t *names = json_object_get(o, "names");
  fc_parser parser;
  if (!json_is_object(o) || !json_is_array(names) || !json_array_size(names) ||
      !parser_of(json_string_value(json_object_get(o, "parser")), &parser)) {
    *err = pd_xasprintf("%s: option %zu: needs \"names\" (a non-empty list) and \"parser\" "
                        "(relax, megatron, sglang or pre)", origin, idx);
    return false;
  }
  op.names = strings_of(c, names, &op.nnames);
  op.parser = parser;
  op.in = forks_of(json_object_get(o, "in"));
  op.dest = fc_keep_dup(c, json_string_value(json_object_get(o, "dest")));
  const char *act = json_string_value(json_object_get(o, "action"));
  op.action = act ? FC_ACTION_OTHER : FC_STORE;
  for (size_t i = 0; act && i < sizeof actions / sizeof *actions; i++)
    if (!strcmp(act, actions[i].name)) op.action = actions[i].action;
  op.nargs = nargs_of(json_object_get(o, "nargs"));
  const char *ty = json_string_value(json_object_get(o, "type"));
  op.type = ty ? FC_T_OTHER : (op.action == FC_STORE || op.action == FC_APPEND) ? FC_T_STR : FC_T_NONE;
  for (size_t i = 0; ty && i < sizeof types / sizeof *types; i++)
    if (!strcmp(ty, types[i].name)) op.type = types[i].type;
  op.type_text = fc_keep_dup(c, ty && pd_str_starts(ty, "other:") ? ty + 6 : ty);
  op.choices = strings_of(c, json_object_get(o, "choices"), &op.nchoices);
  op.default_text = fc_keep(c, default_text(json_object_get(o, "default"), &op.default_computed));
  const char *help = json_string_value(json_object_get(o, "help"));
  op.help = fc_keep_dup(c, help ? help : "");
  load_deprecation(c, &op, o);
  const char *sp = json_string_value(json_object_get(o, "sglang_parser"));
  op.sglang = parser != FC_SGLANG ? FC_SG_NONE : sp && !strcmp(sp, "teacher") ? FC_SG_TEACHER : FC_SG_ROLLOUT;
  op.file = fc_keep_dup(c, json_string_value(json_object_get(o, "file")));
  op.line = (long)json_integer_value(json_object_get(o, "line"));
  op.reset = json_is_true(json_object_get(o, "reset"));
  *PD_PUSH(c->opts, c->nopts, c->cap) = op;
  return true;
}

void fc_index(fc_catalog *c) {
  c->next = pd_xrealloc(c->next, (c->nopts ? c->nopts : 1) * sizeof *c->next);
  for (size_t i = 0; i < c->nopts; i++) c->next[i] = SIZE_MAX;
  for (size_t i = 0; i < c->nopts; i++)
    for (size_t k = 0; k < c->opts[i].nnames && !c->opts[i].reset; k++) {
      bool added;
      pd_map_slot *s = pd_map_put(&c->by_name, c->opts[i].names[k], &added);
      /* the first definition is the one look-ups find; the forks' other definitions of the
         same spelling hang off it (fc_variant) */
      if (added) {
        s->value = i;
      } else if (k == 0) {
        size_t j = s->value;
        while (c->next[j] != SIZE_MAX) j = c->next[j];
        if (j != i) c->next[j] = i;
      }
    }
}

/* What the notes say the catalog leaves out, and the flags Relax refuses before parsing. */
static void load_notes(fc_catalog *c, json_t *notes) {
  json_t *pre = json_object_get(notes, "uncovered_prefixes");
  size_t cap = 0;
  for (size_t i = 0; i < json_array_size(pre); i++)
    if (json_is_string(json_array_get(pre, i)))
      *PD_PUSH(c->uncovered, c->nuncovered, cap) = fc_keep_dup(c, json_string_value(json_array_get(pre, i)));
  if (!json_is_array(pre) && json_is_true(json_object_get(notes, "sglang_partial"))) {
    *PD_PUSH(c->uncovered, c->nuncovered, cap) = fc_keep_dup(c, "--sglang-");
    *PD_PUSH(c->uncovered, c->nuncovered, cap) = fc_keep_dup(c, "--teacher-sglang-");
  }
  bool router_read = false;
  for (size_t i = 0; i < c->nopts && !router_read; i++)
    router_read = pd_str_starts(c->opts[i].names[0], "--router-");
  if (!json_is_array(pre) && json_object_get(notes, "router_args") && !router_read) {
    *PD_PUSH(c->uncovered, c->nuncovered, cap) = fc_keep_dup(c, "--router-");
    *PD_PUSH(c->uncovered, c->nuncovered, cap) = fc_keep_dup(c, "--sglang-router-");
  }
  json_t *rej = json_object_get(notes, "rejected_flags");
  size_t rcap = 0;
  for (size_t i = 0; i < json_array_size(rej); i++) {
    json_t *r = json_array_get(rej, i), *names = json_object_get(r, "names");
    const char *rep = json_string_value(json_object_get(r, "replacement"));
    unsigned in = forks_of(json_object_get(r, "in"));
    for (size_t k = 0; k < json_array_size(names); k++)
      if (json_is_string(json_array_get(names, k)))
        *PD_PUSH(c->rejected, c->nrejected, rcap) =
            (fc_rejected_flag){fc_keep_dup(c, json_string_value(json_array_get(names, k))), fc_keep_dup(c, rep), in};
  }
}

static void load_origins(fc_catalog *c, json_t *sources) {
  static const char *const keys[FC_NPARSERS][2] = {
      {"relax-infra", "relax-studio"}, {"megatron", NULL}, {"sglang", NULL}, {"relax-infra", "relax-studio"}};
  for (int p = 0; p < FC_NPARSERS; p++) {
    pd_buf b = {0};
    for (int k = 0; k < 2 && keys[p][k]; k++) {
      json_t *s = json_object_get(sources, keys[p][k]);
      const char *repo = json_string_value(json_object_get(s, "repo"));
      const char *commit = json_string_value(json_object_get(s, "commit"));
      if (!repo) continue;
      pd_buf_printf(&b, "%s%s", b.len ? ", " : "", repo);
      if (commit) pd_buf_printf(&b, " @ %.12s", commit);
      /* the tree as Relax's image runs it: the pinned commit with the image's patch applied */
      json_t *patch = json_object_get(s, "patched_with");
      const char *ppath = json_string_value(json_object_get(patch, "path"));
      if (ppath) pd_buf_printf(&b, " + %s", pd_path_base(ppath));
    }
    c->origin[p] = b.len ? fc_keep(c, pd_buf_take(&b)) : "no source named";
    pd_buf_free(&b);
  }
}

fc_catalog *fc_load(const char *text, size_t len, const char *origin, char **err) {
  *err = NULL;
  json_error_t je;
  json_t *root = json_loadb(text, len, 0, &je);
  if (!root) {
    *err = pd_xasprintf("%s:%d:%d: %s", origin, je.line, je.column, je.text);
    return NULL;
  }
  fc_catalog *c = fc_from_json(root, origin, err);
  json_decref(root);
  return c;
}

fc_catalog *fc_from_json(const json_t *root, const char *origin, char **err) {
  *err = NULL;
  json_t *opts = json_object_get(root, "options");
  if (json_integer_value(json_object_get(root, "perf_doctor_flags")) != 1 || !json_is_array(opts)) {
    *err = pd_xasprintf("%s: not a flag catalog (needs \"perf_doctor_flags\": 1 and an "
                        "\"options\" list)", origin);
    return NULL;
  }
  fc_catalog *c = pd_xcalloc(1, sizeof *c);
  for (size_t i = 0; i < json_array_size(opts); i++)
    if (!load_option(c, json_array_get(opts, i), i, origin, err)) {
      fc_free(c);
      return NULL;
    }
  fc_index(c);
  json_t *drop = json_object_get(root, "dropped_sglang");
  for (size_t i = 0; i < json_array_size(drop); i++) {
    const char *n = json_string_value(json_array_get(drop, i));
    if (!n) continue;
    bool added;
    pd_map_slot *s = pd_map_put(&c->dropped, n, &added);
    if (added) s->value = i;
  }
  load_origins(c, json_object_get(root, "sources"));
  load_notes(c, json_object_get(root, "notes"));
  return c;
}

fc_catalog *fc_builtin(char **err) {
  size_t len = 0;
  /* the build compiles flags.json into flags.bin (flagc.c): loading it parses nothing */
  const unsigned char *bin = pd_data_bytes("flags.bin", &len);
  if (bin) return fc_from_binary(bin, len, "flags.bin (built in)", err);
  char *text = pd_data_text("flags.json", &len);
  if (!text) {
    *err = pd_xstrdup("flags.json: the built-in flag catalog is missing from this build");
    return NULL;
  }
  fc_catalog *c = fc_load(text, len, "flags.json (built in)", err);
  free(text);
  return c;
}

/* ---- merging ---- */

static void copy_option(fc_catalog *dst, const fc_option *o) {
  fc_option op = *o;
  const char **names = pd_xcalloc(o->nnames, sizeof *names);
  for (size_t i = 0; i < o->nnames; i++) names[i] = fc_keep_dup(dst, o->names[i]);
  op.names = names;
  const char **ch = o->nchoices ? pd_xcalloc(o->nchoices, sizeof *ch) : NULL;
  for (size_t i = 0; i < o->nchoices; i++) ch[i] = fc_keep_dup(dst, o->choices[i]);
  op.choices = ch;
  op.dest = fc_keep_dup(dst, o->dest);
  op.type_text = fc_keep_dup(dst, o->type_text);
  op.default_text = fc_keep_dup(dst, o->default_text);
  op.help = fc_keep_dup(dst, o->help);
  op.deprecated = fc_keep_dup(dst, o->deprecated);
  op.replaced_by = fc_keep_dup(dst, o->replaced_by);
  op.file = fc_keep_dup(dst, o->file);
  fc_dep_value *dv = o->ndep_values ? pd_xcalloc(o->ndep_values, sizeof *dv) : NULL;
  for (size_t i = 0; i < o->ndep_values; i++)
    dv[i] = (fc_dep_value){fc_keep_dup(dst, o->dep_values[i].value), fc_keep_dup(dst, o->dep_values[i].message),
                           o->dep_values[i].error};
  op.dep_values = dv;
  *PD_PUSH(dst->opts, dst->nopts, dst->cap) = op;
}

static bool replaced(fc_parser which, fc_parser p) {
  return p == which || (which == FC_RELAX && p == FC_PRE);
}

fc_catalog *fc_merge(const fc_catalog *base, const fc_catalog *over, fc_parser which,
                     const char *over_origin) {
  fc_catalog *c = pd_xcalloc(1, sizeof *c);
  /* the checkout's options first: where both define a spelling, the checkout's wins */
  for (size_t i = 0; i < over->nopts; i++)
    if (replaced(which, over->opts[i].parser) && !over->opts[i].reset) copy_option(c, &over->opts[i]);
  for (size_t i = 0; i < base->nopts; i++)
    if (!replaced(which, base->opts[i].parser)) copy_option(c, &base->opts[i]);
  fc_index(c);
  /* the defaults the checkout changes in another parser's options (Relax's reset_arg) */
  for (size_t i = 0; i < over->nopts; i++) {
    const fc_option *r = &over->opts[i];
    fc_option *t = r->reset ? (fc_option *)fc_find(c, r->names[0]) : NULL;
    if (!t) continue;
    t->default_text = fc_keep_dup(c, r->default_text);
    t->default_computed = r->default_computed;
  }
  pd_map_clone(&c->dropped, &base->dropped);
  size_t cap = 0;
  for (size_t i = 0; i < base->nuncovered; i++)
    *PD_PUSH(c->uncovered, c->nuncovered, cap) = fc_keep_dup(c, base->uncovered[i]);
  cap = 0;
  for (size_t i = 0; i < base->nrejected; i++)
    *PD_PUSH(c->rejected, c->nrejected, cap) =
        (fc_rejected_flag){fc_keep_dup(c, base->rejected[i].name), fc_keep_dup(c, base->rejected[i].replacement),
                           base->rejected[i].in};
  for (int p = 0; p < FC_NPARSERS; p++)
    c->origin[p] = fc_keep_dup(c, replaced(which, (fc_parser)p) && over_origin ? over_origin : base->origin[p]);
  return c;
}

/* ---- look-ups ---- */

const fc_option *fc_find(const fc_catalog *c, const char *name) {
  size_t i;
  return c && name && pd_map_get(&c->by_name, name, &i) ? &c->opts[i] : NULL;
}

const fc_option *fc_variant(const fc_catalog *c, const fc_option *o) {
  if (!c || !o || o < c->opts || o >= c->opts + c->nopts) return NULL;
  size_t j = c->next[o - c->opts];
  return j == SIZE_MAX ? NULL : &c->opts[j];
}

const fc_option *fc_abbreviation(const fc_catalog *c, const char *name, size_t *n) {
  *n = 0;
  if (!c || !name || strncmp(name, "--", 2) || !name[2]) return NULL;
  size_t len = strlen(name);
  const fc_option *hit[FC_SG_TEACHER + 1] = {NULL};
  size_t count[FC_SG_TEACHER + 1] = {0};
  for (size_t i = 0; i < c->nopts; i++) {
    const fc_option *o = &c->opts[i];
    if (o->sglang == FC_SG_NONE || o->reset) continue;
    for (size_t k = 0; k < o->nnames; k++)
      if (!strncmp(o->names[k], name, len) && o->names[k][len]) {
        count[o->sglang]++; /* an option with several matching spellings counts once */
        hit[o->sglang] = o;
        break;
      }
  }
  /* each parser reads the whole command line: an ambiguous prefix in either stops the job */
  for (int p = FC_SG_ROLLOUT; p <= FC_SG_TEACHER; p++)
    if (count[p] > *n) *n = count[p];
  if (*n != 1) return NULL;
  return hit[FC_SG_ROLLOUT] ? hit[FC_SG_ROLLOUT] : hit[FC_SG_TEACHER];
}

bool fc_uncovered(const fc_catalog *c, const char *name) {
  for (size_t i = 0; c && name && i < c->nuncovered; i++)
    if (pd_str_starts(name, c->uncovered[i])) return true;
  return false;
}

const char *fc_rejected(const fc_catalog *c, const char *name, unsigned *in) {
  for (size_t i = 0; c && name && i < c->nrejected; i++)
    if (!strcmp(c->rejected[i].name, name)) {
      *in = c->rejected[i].in;
      return c->rejected[i].replacement ? c->rejected[i].replacement : "";
    }
  return NULL;
}

size_t fc_count(const fc_catalog *c) { return c ? c->nopts : 0; }
const fc_option *fc_at(const fc_catalog *c, size_t i) { return c && i < c->nopts ? &c->opts[i] : NULL; }

const char *fc_dropped(const fc_catalog *c, const char *name) {
  size_t i;
  return c && name && pd_map_get(&c->dropped, name, &i) ? pd_map_key(&c->dropped, name) : NULL;
}

const char *fc_origin(const fc_catalog *c, fc_parser p) {
  return c && p < FC_NPARSERS && c->origin[p] ? c->origin[p] : "no catalog";
}

/* name with '_' read as '-' and letters lowered equals known */
static bool same_loosely(const char *name, const char *known) {
  for (; *name && *known; name++, known++) {
    char a = *name == '_' ? '-' : (char)tolower((unsigned char)*name);
    if (a != *known) return false;
  }
  return !*name && !*known;
}

/* One says the opposite of the other ("--enable-x" / "--disable-x", "--x" / "--no-x"): a few
 * edits apart, yet not a misspelling of it, so never offered as the name meant. */
static bool antonyms(const char *a, const char *b) {
  static const char *const pairs[][2] = {{"--enable-", "--disable-"}, {"--", "--no-"}, {"--use-", "--no-"}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
    for (int flip = 0; flip < 2; flip++) {
      const char *x = flip ? b : a, *y = flip ? a : b;
      const char *p = pairs[i][0], *q = pairs[i][1];
      if (pd_str_starts(x, p) && pd_str_starts(y, q) && !strcmp(x + strlen(p), y + strlen(q)))
        return true;
    }
  return false;
}

/* Whether two hyphen-separated words differ in one word that names another thing rather than
 * misspells it: a two-letter word (`--vision-dp-when-cp` is no typo of `--vision-dp-when-tp`:
 * cp, tp, pp, ep, dp are each a parallelism) or one that differs only in its digits (fp8, fp4). */
static bool other_word(const char *a, const char *b) {
  size_t differ = 0;
  bool named = false;
  while (*a || *b) {
    size_t la = strcspn(a, "-"), lb = strcspn(b, "-");
    if (la != lb || memcmp(a, b, la)) {
      bool digits = la == lb && la > 0;
      for (size_t i = 0; digits && i < la; i++)
        digits = a[i] == b[i] || (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[i]));
      named = (la <= 2 && lb <= 2 && la && lb) || digits;
      differ++;
    }
    a += la + (a[la] == '-');
    b += lb + (b[lb] == '-');
    if (!*a != !*b) return false; /* another number of words */
  }
  return differ == 1 && named;
}

typedef struct {
  const char *name;
  size_t d;
} candidate;

static void offer(candidate *best, size_t *n, size_t max, const char *name, size_t d) {
  for (size_t i = 0; i < *n; i++)
    if (!strcmp(best[i].name, name)) return;
  size_t at = *n;
  while (at > 0 && (best[at - 1].d > d || (best[at - 1].d == d && strcmp(best[at - 1].name, name) > 0)))
    at--;
  if (at >= max) return;
  if (*n < max) (*n)++;
  memmove(&best[at + 1], &best[at], (*n - 1 - at) * sizeof *best);
  best[at] = (candidate){name, d};
}

/* Letter counts of a name, for a cheap lower bound on the edit distance: one edit changes the
 * counts by at most 2, so names whose counts differ by more than 2 * cap are not neighbours. */
static void letter_counts(const char *s, unsigned char h[64]) {
  memset(h, 0, 64);
  for (; *s; s++) h[(unsigned char)*s & 63]++;
}

static bool counts_near(const unsigned char a[64], const char *s, size_t cap) {
  unsigned char h[64];
  letter_counts(s, h);
  size_t diff = 0;
  for (size_t i = 0; i < 64; i++) diff += a[i] > h[i] ? (size_t)(a[i] - h[i]) : (size_t)(h[i] - a[i]);
  return diff <= 2 * cap;
}

size_t fc_suggest(const fc_catalog *c, const char *name, const char **out, size_t max) {
  if (!c || !name || !max || strlen(name) < 4) return 0;
  size_t len = strlen(name), cap = len >= 20 ? 3 : 2, n = 0;
  candidate *best = pd_xcalloc(max + 1, sizeof *best);
  bool sglang = pd_str_starts(name, "--sglang-");
  unsigned char mine[64];
  letter_counts(name, mine);
  for (size_t i = 0; i < c->nopts; i++)
    for (size_t k = 0; k < c->opts[i].nnames; k++) {
      const char *known = c->opts[i].names[k];
      /* a --sglang- typo means an SGLang option, and the other way round */
      if (pd_str_starts(known, "--sglang-") != sglang) continue;
      if (antonyms(name, known) || other_word(name, known)) continue;
      if (same_loosely(name, known)) {
        offer(best, &n, max, known, 0);
        continue;
      }
      size_t lk = strlen(known); /* more edits apart than the lengths differ: not a neighbour */
      if (lk > len + cap || len > lk + cap || !counts_near(mine, known, cap)) continue;
      size_t d = pd_edit_distance(name, known, cap);
      if (d <= cap) offer(best, &n, max, known, d);
    }
  for (size_t i = 0; i < n; i++) out[i] = best[i].name;
  free(best);
  return n;
}

void fc_arity(const fc_option *o, int *min, int *max) {
  switch (o->action) {
  case FC_STORE_TRUE: case FC_STORE_FALSE: case FC_STORE_CONST: case FC_APPEND_CONST:
  case FC_COUNT_ACTION: case FC_BOOLEAN_OPTIONAL: case FC_HELP: case FC_VERSION:
    *min = *max = 0;
    return;
  default: break;
  }
  switch (o->nargs) {
  case FC_NARGS_ONE: *min = *max = 1; return;
  case FC_NARGS_OPT: *min = 0, *max = 1; return;
  case FC_NARGS_ANY: *min = 0, *max = -1; return;
  case FC_NARGS_SOME: *min = 1, *max = -1; return;
  default: *min = *max = o->nargs < 0 ? 1 : o->nargs; return;
  }
}

const char *fc_type_name(const fc_option *o) {
  int min, max;
  fc_arity(o, &min, &max);
  if (max == 0) return "switch";
  switch (o->type) {
  case FC_T_INT: return "int";
  case FC_T_FLOAT: return "float";
  case FC_T_JSON: return "JSON";
  case FC_T_BOOL: return "bool (any non-empty value is True)";
  case FC_T_PATH: return "path";
  case FC_T_OTHER: return o->type_text ? o->type_text : "str";
  default: return "str";
  }
}

/* ---- as JSON ---- */

static const char *action_name(fc_action a) {
  for (size_t i = 0; i < sizeof actions / sizeof *actions; i++)
    if (actions[i].action == a) return actions[i].name;
  return "other";
}

json_t *fc_option_json(const fc_catalog *c, const fc_option *o) {
  json_t *j = json_object(), *names = json_array();
  for (size_t i = 0; i < o->nnames; i++) json_array_append_new(names, json_string(o->names[i]));
  json_object_set_new(j, "names", names);
  json_object_set_new(j, "parser", json_string(fc_parser_name(o->parser)));
  json_object_set_new(j, "source", json_string(fc_origin(c, o->parser)));
  if (o->in) {
    json_t *in = json_array();
    if (o->in & FC_IN_INFRA) json_array_append_new(in, json_string("relax-infra"));
    if (o->in & FC_IN_STUDIO) json_array_append_new(in, json_string("relax-studio"));
    if (o->in & FC_IN_CHECKOUT) json_array_append_new(in, json_string("checkout"));
    json_object_set_new(j, "in", in);
  }
  json_object_set_new(j, "dest", o->dest ? json_string(o->dest) : json_null());
  json_object_set_new(j, "action", json_string(action_name(o->action)));
  int min, max;
  fc_arity(o, &min, &max);
  json_object_set_new(j, "values", json_pack("{s:i,s:o}", "min", min, "max", max < 0 ? json_null() : json_integer(max)));
  json_object_set_new(j, "type", json_string(fc_type_name(o)));
  if (o->nchoices) {
    json_t *ch = json_array();
    for (size_t i = 0; i < o->nchoices; i++) json_array_append_new(ch, json_string(o->choices[i]));
    json_object_set_new(j, "choices", ch);
  }
  json_object_set_new(j, "default", json_string(o->default_text));
  json_object_set_new(j, "help", json_string(o->help));
  if (o->deprecated) json_object_set_new(j, "deprecated", json_string(o->deprecated));
  if (o->file) json_object_set_new(j, "file", json_string(o->file));
  if (o->line) json_object_set_new(j, "line", json_integer(o->line));
  return j;
}
