/* catalog: the rule catalog as data (analyzer/data/rules.json and user rule files).
 *
 * A rule file is JSON: {"rules": [rule, ...]}. A rule has id, category (config | memory |
 * performance), severity (critical | warn | info), title/why/fix/skip_if as {"en": .., "zh": ..},
 * optional "skip" (expression: the rule does not apply when true), "note" ("info" = a NOTE
 * comment on the flag downgrades to info, the default; "skip" = it silences the finding),
 * "at" (flags the finding points at, first present wins), "anchor" ("source": point at the
 * model-config `source` line when no flag is present), and "cases": the first case whose
 * "when" expression is true produces the finding ("each": true reports every case that holds).
 * A case may set "severity", "at", "at_env" (a variable whose assignment the finding points at
 * when no `at` flag is present), "ratio" + "band" (estimate / limit: applies above 1 + band,
 * borderline within ±band), "cost" and "fix_title" templates ({expression} is replaced by its
 * value), "edits" ([{op: set|add|remove, flag, value, near: [anchor flags], if: expression}])
 * and "safe".
 *
 * A rule may also say "related": "model-config": the finding then points, as related
 * information, at the model config's architecture flags it rests on. A rule with "condition"
 * (a code or a list of them) reports the script model's conditions of those codes, one finding
 * per condition at its place, with the cond_* facts describing it; its edits may "replace" the
 * condition's text.
 *
 * Expressions and {templates} are compiled and bound when the file loads: a rule that names an
 * unknown fact or function, or calls one with the wrong number of arguments, is refused with
 * the place ("rules.json: R-P04: cases[0].cost: ...").
 *
 * A later file's rule with the same id replaces the earlier one (user overrides); a rule with
 * "disabled": true removes it. */
#ifndef PD_AUDIT_CATALOG_H_
#define PD_AUDIT_CATALOG_H_

#include <stdbool.h>
#include <stddef.h>

#include "audit/audit.h"
#include "audit/expr.h"
#include "audit/template.h"

typedef struct {
  char *en, *zh; /* either may be NULL */
} ac_text;

/* A localized template: zh NULL falls back to en. */
typedef struct {
  at_tpl *en, *zh;
} ac_tpl;

typedef enum { AC_SET, AC_ADD, AC_REMOVE, AC_REPLACE } ac_op; /* replace: the finding's range */

typedef struct {
  ac_op op;
  char *flag;
  at_tpl *value; /* template, NULL for a switch */
  char **near;   /* anchors for add, in order of preference */
  size_t nnear;
  ax_expr *cond; /* NULL = always */
} ac_edit;

typedef struct {
  ax_expr *when;
  ax_expr *ratio; /* NULL = no error band */
  double band;
  int severity;   /* -1 = the rule's */
  char **at;
  size_t nat;
  char *at_env;   /* point at this shell variable's assignment when no `at` flag is present */
  ac_tpl cost, fix_title;
  ac_edit *edits;
  size_t nedits;
  bool safe;
} ac_case;

typedef struct {
  char *id, *category;
  au_severity severity;
  ac_text title, why, fix, skip_if;
  char *verified;  /* what the rule was checked against (Relax/Megatron source), or "doc only" */
  json_t *json;    /* the rule as written (a reference), for `rules` / `explain` */
  ax_expr *skip;
  bool note_skips;
  int forced_severity; /* a severity-only entry of a user rule file (-1: none): every finding of
                          the rule takes it, like an editor setting */
  bool anchor_source;
  bool related_config; /* "related": "model-config" */
  char **conditions;   /* "condition": the script-model condition codes it reports (one finding
                          each, at the condition), or none */
  size_t nconditions;
  char **modes;    /* "modes": the job kinds it applies to (rl, genrm, diffusion, sft, cpt, dpo,
                      reward-model); none = every job */
  size_t nmodes;
  bool needs_engine; /* "needs": ["engine"]: only where a rollout engine runs */
  bool needs_train;  /* "needs": ["train"]: only where the actor trains (not --debug-rollout-only) */
  bool needs_megatron; /* "needs": ["megatron"]: only with the Megatron train backend */
  char **intents;    /* "intent": stated intents (file name words such as no-sp, debug) that make
                        the finding expected: it is then shown as info, with that reason */
  size_t nintents;
  bool about_file; /* "about_file": true: the finding is about the file's own text (a syntax
                      error), true whether or not its arrays are passed: it keeps its severity
                      in a file without a train command */
  bool each;       /* report every case that holds, not only the first */
  bool file_local; /* "file_local": true: the finding is about the text of the line it is on
                      (a flag's spelling): an info in a sourced file is reported when that file
                      is checked, not with each script that sources it */
  bool group;      /* "group": true: its infos in one report share one cause (flags of another
                      Relax version): the first carries the others as related places */
  char **at;
  size_t nat;
  ac_case *cases;
  size_t ncases, capcases;
} ac_rule;

typedef struct {
  ac_rule *rules;
  size_t n, cap;
} ac_catalog;

/* An empty catalog; free with ac_free. */
ac_catalog *ac_new(void);
void ac_free(ac_catalog *c);

/* Adds the rules of one JSON document (text[0..len)); origin names it in messages. Rules with
 * errors are skipped; each problem is appended to *errs (malloc'd strings, caller frees).
 * Returns false when the document itself cannot be read. */
bool ac_load(ac_catalog *c, const char *text, size_t len, const char *origin, char ***errs,
             size_t *nerrs, size_t *caperrs);

/* The rule's text in lang ("zh" falls back to English when missing). */
const char *ac_tr(const ac_text *t, const char *lang);
/* The template in lang (the same fallback); NULL when there is none. */
const at_tpl *ac_tpl_in(const ac_tpl *t, const char *lang);

/* The resolver rule expressions and templates are bound with: the facts and the functions. */
int ac_resolve(void *ctx, const char *name, bool is_call, size_t nargs, char **why);

/* The rule with this id, or NULL. */
const ac_rule *ac_find(const ac_catalog *c, const char *id);

#endif
