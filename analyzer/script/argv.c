/* argv: the train command's flags as Relax's argparse parsers read them, with the catalog's
 * options (flagcat.h says how Relax chains the parsers).
 *
 * What argparse does, and so what each condition says:
 *   - a flag no parser has: Megatron's parse_args(ignore_unknown_args=True) and SGLang's
 *     parse_known_args put it, and the words after it, among the unknown arguments, which Relax
 *     drops without a message: the option it was meant to be keeps its default (warn);
 *   - a value-taking flag followed by another flag or by nothing: "expected one argument", and
 *     argparse exits (the job fails at start: critical);
 *   - a value its type cannot convert or its choices do not list: "invalid int value",
 *     "invalid choice", and argparse exits (critical);
 *   - `--switch=word`: "ignored explicit argument", argparse exits (critical);
 *   - `--switch word` (or a second word after a one-value flag): the word is left over as an
 *     unknown positional and dropped; the switch is on whatever the word says;
 *   - type=bool options take any non-empty word as True, "False" included;
 *   - `--lr -1e-6`: argparse reads `-1e-6` as an option (only `-1`, `-.5` look like negative
 *     numbers to it), so the flag has no value and argparse exits;
 *   - SGLang's two parsers accept unique abbreviations: a spelling no parser has that starts one
 *     of their options is taken as it, and one that starts several stops the job ("ambiguous
 *     option");
 *   - an option a validator refuses (Megatron's validate_args: --batch-size, ...) fails the job
 *     at start; one it warns about, or whose help calls it deprecated, still runs.
 * Flags the catalog leaves out on purpose (options whose source was not read) are not called
 * unknown.
 * A value that could not be resolved (the environment, a command's output) is not checked: its
 * occurrence stays SM_ARGP_UNCHECKED and hovers say so. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/str.h"
#include "script/sm_int.h"

const char *sm_argp_name(sm_argp a) {
  static const char *const names[] = {"unchecked", "ok",      "unknown",  "dropped",
                                      "leftover",  "missing", "bad-value", "explicit"};
  return (size_t)a < sizeof names / sizeof *names ? names[a] : "unchecked";
}

/* The condition about flag occurrence i; message consumed. */
static sm_condition *flag_cond(sm_builder *b, sm_model *m, size_t i, sm_level lvl, const char *code,
                               sm_range r, char *message, const char *subject, const char *suggest) {
  const sm_flag *fl = &m->flags[i];
  sm_add_cond(b, lvl, code, fl->file, r, message);
  sm_cond_about(b, subject, fl->name);
  sm_condition *c = &b->w.conds[b->w.nconds - 1];
  c->suggest = suggest ? pd_xstrdup(suggest) : NULL;
  c->cert = fl->cert;
  c->flag_index = (long)i;
  return c;
}

static const char *fork_repo(unsigned in) {
  return in & FC_IN_INFRA ? "redai-infra/Relax" : "redai-studio/Relax";
}

/* " (F refuses it; ...)": which fork refuses (in), and either the option that says the script
 * is written for that fork or that the other fork accepts it. Caller frees. */
static char *fork_note(const sm_builder *b, unsigned in) {
  if ((b->fork & in) && b->fork_remote)
    return pd_xasprintf(" (%s refuses it; this script's checkout is a clone of it: %s)", fork_repo(in),
                        b->fork_remote);
  if (b->fork & in)
    return pd_xasprintf(" (%s refuses it; this script uses %s, which only that fork defines, so it "
                        "is written for it)", fork_repo(in), b->fork_by);
  return pd_xasprintf(" (%s refuses it; %s accepts it)", fork_repo(in), fork_repo(~in));
}

/* Whether what only the forks `in` refuse is not this script's: it is written for another. */
static bool other_forks(const sm_builder *b, unsigned in) { return b->fork && !(b->fork & in); }

/* The fork the train command is written for, from the flags' catalog entries: a Relax option
 * only one fork defines is dropped unread by the other (an unknown argument), so an author who
 * uses it runs on that fork. */
static void find_fork(sm_builder *b, const sm_model *m, const fc_catalog *cat) {
  b->fork = 0;
  b->fork_by = NULL;
  for (size_t i = 0; i < m->nflags; i++) {
    const fc_option *o = m->flags[i].opt;
    if (!o || (o->parser != FC_RELAX && o->parser != FC_PRE) || (o->in & FC_IN_CHECKOUT)) continue;
    unsigned in = 0;
    for (const fc_option *d = o; d; d = fc_variant(cat, d)) in |= d->in;
    in &= FC_IN_INFRA | FC_IN_STUDIO;
    if (in != FC_IN_INFRA && in != FC_IN_STUDIO) continue;
    if (!b->fork_by) b->fork_by = m->flags[i].name;
    b->fork |= in;
  }
  if (b->fork == (FC_IN_INFRA | FC_IN_STUDIO)) b->fork = 0, b->fork_by = NULL;
  free(b->fork_remote);
  b->fork_remote = NULL;
  if (!b->fork) b->fork = sm_git_fork(b, &b->fork_remote); /* no flag says: the clone's remote */
}

static void mark_broken(sm_model *m, const char *name, size_t i) {
  bool added;
  pd_map_slot *s = pd_map_put(&m->broken, name, &added);
  if (added) s->value = i;
}

/* `--no-x` where --x is a plain switch that is off unless given (`--no-use-wandb`): argparse
 * ignores the word, and the job runs as the author meant, so there is nothing to report. */
static bool negates_off_switch(const fc_catalog *cat, const char *name) {
  if (strncmp(name, "--no-", 5) != 0 || strlen(name) > 200) return false;
  char pos[208];
  snprintf(pos, sizeof pos, "--%s", name + 5);
  const fc_option *o = fc_find(cat, pos);
  return o && o->action == FC_STORE_TRUE && o->default_text && !strcmp(o->default_text, "False");
}

/* A spelling no parser has: refused before parsing, ambiguous or abbreviating in SGLang's
 * parsers, removed by Relax from SGLang's, left out of the catalog, or unknown. Returns the
 * option an abbreviation stands for (the occurrence is then read as that option), else NULL. */
static const fc_option *unknown_flag(sm_builder *b, sm_model *m, size_t i, const fc_catalog *cat) {
  sm_flag *fl = &m->flags[i];
  unsigned in = 0;
  const char *instead = fc_rejected(cat, fl->name, &in);
  if (instead) {
    bool every = (in & (FC_IN_INFRA | FC_IN_STUDIO)) == (FC_IN_INFRA | FC_IN_STUDIO);
    fl->argp = every ? SM_ARGP_EXPLICIT : SM_ARGP_UNKNOWN;
    if (!every && other_forks(b, in)) return NULL; /* written for the fork that takes it */
    char *why = every ? pd_xstrdup("") : fork_note(b, in);
    flag_cond(b, m, i, every ? SM_ERROR : SM_WARN, every ? "flag-rejected" : "flag-rejected-fork", fl->range,
              pd_xasprintf("%s is refused by Relax before it parses anything%s%s%s", fl->name, why,
                           *instead ? "; use " : "", instead),
              fl->name, *instead ? instead : NULL);
    free(why);
    return NULL;
  }
  size_t n;
  const fc_option *abbr = fc_abbreviation(cat, fl->name, &n);
  if (n >= 2) {
    fl->argp = SM_ARGP_EXPLICIT;
    flag_cond(b, m, i, SM_ERROR, "flag-ambiguous", fl->range,
              pd_xasprintf("%s starts %zu options of SGLang's parser, which accepts abbreviations "
                           "(\"ambiguous option\")", fl->name, n),
              fl->name, NULL);
    return NULL;
  }
  if (abbr) {
    flag_cond(b, m, i, SM_INFO, "flag-abbreviated", fl->range,
              pd_xasprintf("%s is not an option, but SGLang's parser takes it as an abbreviation of %s; "
                           "a later SGLang option with the same start would make it ambiguous",
                           fl->name, abbr->names[0]),
              fl->name, abbr->names[0]);
    /* argparse sets that option: what rests on it is not its default */
    for (size_t k = 0; k < abbr->nnames; k++)
      if (!sm_flag_get(m, abbr->names[k])) mark_broken(m, abbr->names[k], i);
    return abbr;
  }
  if (fc_dropped(cat, fl->name)) {
    fl->argp = SM_ARGP_DROPPED;
    flag_cond(b, m, i, SM_WARN, "flag-dropped", fl->range,
              pd_xasprintf("%s is an SGLang option that Relax removes (the framework sets it "
                           "itself): it is ignored", fl->name),
              fl->name, NULL);
    return NULL;
  }
  if (fc_uncovered(cat, fl->name)) return NULL; /* not read: say nothing, check nothing */
  fl->argp = SM_ARGP_UNKNOWN;
  if (negates_off_switch(cat, fl->name)) return NULL;
  const char *near[3];
  n = fc_suggest(cat, fl->name, near, 3);
  fl->intended = n ? near[0] : NULL;
  pd_buf alts = {0};
  for (size_t k = 1; k < n; k++) pd_buf_printf(&alts, "%s%s", k > 1 ? ", " : "", near[k]);
  char *msg = pd_xasprintf("%s is not an option of Relax's parsers: Relax ignores it (and its "
                           "value) without a message%s%s%s%s%s%s",
                           fl->name, n ? "; the nearest option is " : "", n ? near[0] : "", "",
                           alts.len ? " (or " : "", alts.len ? alts.data : "", alts.len ? ")" : "");
  pd_buf_free(&alts);
  flag_cond(b, m, i, SM_WARN, "flag-unknown", fl->range, msg, fl->name, fl->intended);
  /* the option it was meant to be keeps its default: what rests on it is not what the script
     says */
  if (fl->intended && !sm_flag_get(m, fl->intended)) {
    const fc_option *o = fc_find(cat, fl->intended);
    for (size_t k = 0; o && k < o->nnames; k++) mark_broken(m, o->names[k], i);
  }
  return NULL;
}

static bool falsy(const char *s) {
  return !strcasecmp(s, "false") || !strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off");
}

/* Words after a switch, or after the values of a flag that takes a fixed number. */
static void leftover(sm_builder *b, sm_model *m, size_t i, int max) {
  sm_flag *fl = &m->flags[i];
  const sm_value *v = &fl->values[max];
  fl->argp = SM_ARGP_LEFTOVER;
  if (max == 0 && v->resolved && falsy(v->text)) {
    flag_cond(b, m, i, SM_WARN, "switch-value-false", v->range,
              pd_xasprintf("%s is a switch and takes no value: `%s` is left over and ignored, "
                           "so the switch is ON", fl->name, v->text),
              v->text, NULL);
    return;
  }
  if (max == 0) {
    flag_cond(b, m, i, SM_INFO, "switch-value", v->range,
              pd_xasprintf("%s is a switch and takes no value: `%s` is left over and ignored",
                           fl->name, v->text),
              v->text, NULL);
    return;
  }
  flag_cond(b, m, i, SM_WARN, "value-leftover", v->range,
            pd_xasprintf("%s takes %d value%s: `%s` is left over and ignored (only the first %s "
                         "counts)", fl->name, max, max == 1 ? "" : "s", v->text,
                         max == 1 ? "one" : "ones"),
            v->text, NULL);
}

/* argparse's test for a word that looks like a negative number (-1, -0.5, -.5; not -1e-6). */
static bool negative_number(const char *s) {
  if (*s++ != '-') return false;
  bool dot = false, digits = false;
  for (; *s; s++) {
    if (*s == '.' && !dot) dot = true;
    else if (isdigit((unsigned char)*s)) digits = true;
    else return false;
  }
  return digits && (!dot || s[-1] != '.');
}

static void missing_value(sm_builder *b, sm_model *m, size_t i, int min) {
  sm_flag *fl = &m->flags[i];
  fl->argp = SM_ARGP_MISSING;
  if (fl->value_vanished) return; /* value-vanished already says so, with the variable */
  char *expect = min == 1 ? pd_xstrdup("expected one argument")
                          : pd_xasprintf("expected at least %d arguments", min);
  const char *next = i + 1 < m->nflags ? m->flags[i + 1].name : "the end of the command";
  if (fl->nvalues && fl->values[0].resolved && fl->values[0].text[0] == '-') next = fl->values[0].text;
  char *why = fl->nvalues && next == fl->values[0].text
                  ? pd_xasprintf("%s takes a value but argparse reads `%s` as an option (it takes only "
                                 "-1 or -.5 for a negative number; write %s=%s) (\"%s\")",
                                 fl->name, next, fl->name, next, expect)
                  : pd_xasprintf("%s takes a value but is followed by %s (\"%s\")", fl->name, next, expect);
  flag_cond(b, m, i, SM_ERROR, "value-missing", fl->range, why, fl->name, NULL);
  free(expect);
}

/* A deprecated value of any definition of the flag (the forks may differ). */
static const fc_dep_value *deprecated_value(const fc_catalog *cat, const fc_option *o, const char *v,
                                            bool *everywhere, unsigned *in) {
  const fc_dep_value *hit = NULL;
  size_t defs = 0, with = 0;
  *in = 0;
  for (; o; o = fc_variant(cat, o), defs++)
    for (size_t k = 0; k < o->ndep_values; k++)
      if (!strcmp(o->dep_values[k].value, v)) hit = &o->dep_values[k], with++, *in |= o->in;
  *everywhere = with == defs;
  return hit;
}

/* Whether some definition of the flag accepts the value; *why says why the first refuses it. */
static fc_value_check check_any(const fc_catalog *cat, const fc_option *o, const char *v, char **why,
                                const fc_option **which) {
  *why = NULL;
  fc_value_check first = FC_VALUE_OK;
  *which = o;
  for (const fc_option *d = o; d; d = fc_variant(cat, d)) {
    char *w = NULL;
    fc_value_check r = fc_check_value(d, v, &w);
    if (r == FC_VALUE_OK) {
      free(w);
      free(*why);
      *why = NULL;
      return FC_VALUE_OK;
    }
    if (!*why) *why = w, first = r, *which = d;
    else free(w);
  }
  return first;
}

static void value_ok(sm_builder *b, sm_model *m, size_t i, const fc_catalog *cat, const sm_value *v) {
  sm_flag *fl = &m->flags[i];
  bool everywhere;
  unsigned in;
  const fc_dep_value *dv = deprecated_value(cat, fl->opt, v->text, &everywhere, &in);
  if (dv && dv->error && !everywhere && other_forks(b, in)) {
    return; /* written for the fork that accepts it */
  } else if (dv && dv->error) {
    if (everywhere) fl->argp = SM_ARGP_BAD_VALUE;
    char *why = everywhere ? pd_xstrdup("") : fork_note(b, in);
    flag_cond(b, m, i, everywhere ? SM_ERROR : SM_WARN, everywhere ? "value-refused" : "value-refused-fork",
              v->range, pd_xasprintf("%s %s: %s%s", fl->name, v->text, dv->message, why),
              v->text, NULL);
    free(why);
  } else if (dv) {
    flag_cond(b, m, i, SM_INFO, "value-deprecated", v->range,
              pd_xasprintf("%s %s: %s", fl->name, v->text, dv->message), v->text, NULL);
  } else if (fl->opt->type == FC_T_BOOL && falsy(v->text)) {
    flag_cond(b, m, i, SM_WARN, "value-bool", v->range,
              pd_xasprintf("%s is read with Python's bool(): `%s` is a non-empty word, so the "
                           "option is True", fl->name, v->text),
              v->text, NULL);
  }
}

/* Whether the option's definition may lag the user's: one of Relax's own, from the built-in
 * catalog (a checkout's own options are exact; Megatron and SGLang are pinned by Relax). */
static bool maybe_newer(const fc_option *o) {
  return (o->parser == FC_RELAX || o->parser == FC_PRE) && !(o->in & FC_IN_CHECKOUT);
}

/* The values argparse gives the flag: converted and checked against the choices. */
static void check_values(sm_builder *b, sm_model *m, size_t i, const fc_catalog *cat) {
  sm_flag *fl = &m->flags[i];
  for (size_t k = 0; k < fl->nused; k++) {
    const sm_value *v = &fl->values[k];
    if (!v->resolved || !sm_cert_known(v->cert)) {
      if (fl->argp == SM_ARGP_OK) fl->argp = SM_ARGP_UNCHECKED;
      continue;
    }
    const char *t = v->text;
    while (isspace((unsigned char)*t)) t++;
    /* a JSON object or list that does not parse is json-invalid's (R-S05) */
    if (fl->opt->type == FC_T_JSON && (*t == '{' || *t == '[')) continue;
    char *why = NULL;
    const fc_option *which;
    fc_value_check r = check_any(cat, fl->opt, v->text, &why, &which);
    const char *near = r == FC_VALUE_BAD_CHOICE ? fc_nearest_choice(which, v->text) : NULL;
    if (r == FC_VALUE_BAD_CHOICE && !near && maybe_newer(fl->opt)) {
      /* a word far from every choice of Relax's own options may be a newer Relax's choice:
         the built-in catalog cannot tell, so it says what it knows */
      flag_cond(b, m, i, SM_WARN, "value-choice-unlisted", v->range,
                pd_xasprintf("argument %s: %s at %s", fl->name, why, fc_origin(cat, fl->opt->parser)),
                v->text, NULL);
    } else if (r != FC_VALUE_OK) {
      fl->argp = SM_ARGP_BAD_VALUE;
      flag_cond(b, m, i, SM_ERROR, r == FC_VALUE_BAD_CHOICE ? "value-choice" : "value-type", v->range,
                pd_xasprintf("argument %s: %s", fl->name, why),
                v->text, near);
    } else {
      value_ok(b, m, i, cat, v);
    }
    free(why);
  }
}

static void deprecation(sm_builder *b, sm_model *m, size_t i) {
  sm_flag *fl = &m->flags[i];
  const fc_option *o = fl->opt;
  if (o->dep == FC_DEP_ERROR) {
    fl->argp = SM_ARGP_EXPLICIT;
    /* Megatron's validate_args prints and calls exit() for this one: status 0, no training */
    bool quiet_exit = o->dest && !strcmp(o->dest, "checkpoint_activations");
    flag_cond(b, m, i, SM_ERROR, "flag-removed", fl->range,
              pd_xasprintf("%s: %s%s", fl->name, o->deprecated,
                           quiet_exit ? " (Megatron prints it and exits with status 0: the job ends without training)" : ""),
              fl->name, NULL);
  } else if (o->dep == FC_DEP_WARNING) { /* a help's "Deprecated" still runs: the hover says it */
    flag_cond(b, m, i, SM_INFO, "flag-deprecated", fl->range,
              pd_xasprintf("%s: %s", fl->name, o->deprecated), fl->name, o->replaced_by);
  }
}

static void known_flag(sm_builder *b, sm_model *m, size_t i, const fc_catalog *cat) {
  sm_flag *fl = &m->flags[i];
  int min, max;
  fc_arity(fl->opt, &min, &max);
  fl->argp = SM_ARGP_OK;
  if (max == 0 && fl->inline_value) {
    fl->argp = SM_ARGP_EXPLICIT;
    flag_cond(b, m, i, SM_ERROR, "switch-explicit", fl->full,
              pd_xasprintf("argument %s: ignored explicit argument '%s' (a switch takes no value)", fl->name,
                           fl->nvalues ? fl->values[0].text : ""),
              fl->name, NULL);
    return;
  }
  /* argparse takes a word that starts with '-' for an option unless it looks like -1 or -.5 */
  size_t n = fl->nvalues;
  for (size_t k = 0; k < n && !fl->inline_value; k++)
    if (fl->values[k].resolved && fl->values[k].text[0] == '-' && fl->values[k].text[1] &&
        !negative_number(fl->values[k].text))
      n = k;
  if ((int)n < min) {
    missing_value(b, m, i, min);
    return;
  }
  fl->nused = max >= 0 && n > (size_t)max ? (size_t)max : n;
  check_values(b, m, i, cat);
  if (max >= 0 && fl->nvalues > (size_t)max && fl->argp != SM_ARGP_BAD_VALUE) leftover(b, m, i, max);
  deprecation(b, m, i);
}

/* A deprecated alias stores into its replacement's dest: a look-up by the replacement's name
 * (what the rules ask for) finds whichever of the two argparse read last. */
static void alias_lookups(sm_model *m) {
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    if (!fl->opt || !fl->opt->replaced_by || fl->overridden) continue;
    bool added;
    pd_map_slot *slot = pd_map_put(&m->flag_index, fl->opt->replaced_by, &added);
    if (added || slot->value < i) slot->value = i;
  }
}

void sm_check_argv(sm_builder *b, sm_model *m, const fc_catalog *cat) {
  m->catalog = cat;
  for (size_t i = 0; i < m->nflags; i++) m->flags[i].opt = fc_find(cat, m->flags[i].name);
  find_fork(b, m, cat); /* before the checks: what a fork refuses depends on it */
  for (size_t i = 0; i < m->nflags; i++) {
    sm_flag *fl = &m->flags[i];
    if (!fl->opt) fl->opt = unknown_flag(b, m, i, cat);
    if (fl->opt) known_flag(b, m, i, cat);
    if (sm_argp_fails(fl->argp)) mark_broken(m, fl->name, i);
  }
  alias_lookups(m);
}
