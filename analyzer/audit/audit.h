/* audit: script model -> facts -> findings (the rule engine's public face).
 *
 * This header is the whole contract the CLI (`check`) and the LSP server use. They know nothing
 * of individual rules: findings carry everything needed to render a diagnostic, a report entry
 * or a quick fix. */
#ifndef PD_AUDIT_H
#define PD_AUDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit/messages.h"
#include "script/script.h"

typedef enum { AU_INFO = 0, AU_WARN = 1, AU_CRITICAL = 2 } au_severity;

/* A text edit in one of the model's files (index into sm_model.files): replace range with text. */
typedef struct {
  int file;
  sm_range range;
  char *new_text;
} au_edit;

/* Another place the finding depends on (the model config's --num-experts, the NOTE comment). */
typedef struct {
  int file;
  sm_range range;
  char *message;
} au_related;

typedef struct {
  char *rule;           /* "R-P10" */
  char *category;       /* "config" | "memory" | "performance" */
  au_severity severity; /* after NOTE downgrade and user overrides */
  bool borderline;      /* within the estimate's error band (shown as info) */
  sm_cert certainty;    /* how surely its trigger's least certain input is known */
  char *title, *why, *setting, *cost, *fix, *skip_if; /* in the requested language */
  char *verified;       /* what the rule was checked against, or NULL */
  char *flag;           /* main flag involved, or NULL */
  int file;             /* where to point: the flag (and value) that causes it */
  sm_range range;
  au_related *related;
  size_t nrelated;
  au_edit *edits;       /* mechanical fix, may be empty */
  size_t nedits;
  bool preferred;       /* the one obvious fix (LSP isPreferred) */
  bool safe;            /* applying it cannot make the job fail to start (for "fix all safe") */
  bool suppressed;      /* a `# perf-doctor: disable=` comment silences it: reports count and list
                           it apart, editors do not show it, --fail-on ignores it */
  bool after_syntax;    /* it follows from the syntax error bash reports (it rests on text bash
                           never runs, read as this parser recovered it): suppressed too */
  char *fix_title;      /* code-action title, e.g. "Set --sequence-parallel" */
  /* What a linked trace measured about it (`check --trace`), set by the evidence layer: */
  char *evidence;       /* "exposed communication 18.2 % of the step (worst rank 3)", or NULL */
  const char *evidence_verdict; /* "confirms" | "contradicts" | "inconclusive" (static), or NULL */
  int severity_before;  /* the severity before the trace contradicted it, or -1 */
} au_finding;

typedef struct {
  char *rule;
  int severity; /* au_severity, or -1 = disabled */
} au_override;

/* The rule catalog (built-in rules plus an optional user rule file) and the baselines, loaded
 * and compiled once, then shared read-only by any number of analyses. Loading them costs far
 * more than analysing a launch script, so the CLI (many scripts) and the LSP server (every edit)
 * keep one. */
typedef struct au_rules au_rules;

/* Loads the built-in data (rules, baselines, messages) and, when extra_rules is non-NULL, the
 * user's rule file. Problems
 * (unreadable file, bad rule) are appended to *errors (caller frees each and the array) and do
 * not stop the load: the rules that are valid are kept. Never NULL; free with au_rules_free. */
au_rules *au_rules_load(const char *extra_rules, char ***errors, size_t *nerrors);
/* Drops one reference: the loader's, or one an au_result took. Freed when none is left. */
void au_rules_free(au_rules *rules);
/* The built-in flag catalog the rule set loaded (borrowed; NULL if its data is broken). */
const fc_catalog *au_rules_flags(const au_rules *rules);
/* The rules' ids in catalog order: the count, and the i-th (borrowed; NULL past the end). */
size_t au_rules_count(const au_rules *rules);
const char *au_rule_id(const au_rules *rules, size_t i);
/* The i-th rule as its catalog writes it (id, severity, category, modes, title, why, fix,
 * skip_if, verified, cases with their `when` and `cost` sources, example...), with "severity"
 * replaced by a severity-only override of a user file. New reference; NULL past the end. */
json_t *au_rule_json(const au_rules *rules, size_t i);
/* The "evidence" entry of rule `id` as the catalog writes it (borrowed: valid while rules live),
 * or NULL when it has none. */
const json_t *au_rule_evidence(const au_rules *rules, const char *id);
/* Rule `id` as a markdown page (why, when it fires, fix, skip-if, sources, example, how to turn it
 * off) in lang; NULL when no rule has that id. Caller frees. */
char *au_rule_page(const au_rules *rules, const char *id, const char *lang);
/* The table of every rule (markdown); link_fmt: printf format of a page link from the id
 * ("%s.md"). Caller frees. */
char *au_rules_index(const au_rules *rules, const char *lang, const char *link_fmt);
/* Whether rule `id` applies only where a rollout engine runs (its "needs" has "engine"). */
bool au_rule_needs_engine(const au_rules *rules, const char *id);

typedef struct {
  const au_rules *rules;        /* NULL = load the rules for this one run (slow; see above) */
  const char *gpu;              /* the GPU the user names; NULL = the script's comment, else
                                   H20 96GB (assumed) */
  const char *lang;             /* "en" | "zh"; NULL = en */
  const char *model_config_dir; /* NULL = discover */
  const char *extra_rules;      /* path of a user rule file, NULL = none (only when !rules) */
  const au_override *overrides;
  size_t noverrides;
  const sm_reader *reader;      /* NULL = disk */
  const char *workspace_root;
  sm_cache *cache;              /* sourced files parsed once (see sm_cache); NULL = none */
  sm_resume *resume;            /* resume the model's build (see sm_resume); NULL = none */
  const char *const *env;       /* "NAME=VALUE" the script is launched with (see sm_options) */
  size_t nenv;
  const char *const *args;      /* the script's own arguments */
  size_t nargs;
  const fc_catalog *catalog;    /* the parsers' options (a checkout's own, fc_merge); NULL = the
                                   rule set's built-in catalog. Borrowed: must outlive results. */
} au_config;

typedef struct au_facts au_facts; /* opaque: named facts computed once per analysis */

typedef struct {
  sm_model *model;
  au_facts *facts;
  au_finding *findings;  /* sorted: severity desc, then file/line */
  size_t nfindings;
  char **errors;         /* problems with rule files etc. (not findings); may be empty */
  size_t nerrors;
  au_rules *rules;       /* the rules used: a reference the result holds (for hovers) */
} au_result;

/* Runs the whole audit on text[0..len) of `path`. `tree` as in sm_build. Never NULL; caller frees
 * with au_result_free. */
au_result *au_run(const char *path, const char *text, size_t len, const TSTree *tree,
                  const au_config *cfg);
void au_result_free(au_result *r);

/* Whether some rule of r's catalog reports the script model's conditions with this code (they
 * then reach the user as findings, with that rule's severity and fix; a front end shows the
 * other conditions itself). */
bool au_reports_condition(const au_result *r, const char *code);

/* Renderers. Each returns a fresh string / new JSON reference. */
char *au_report_markdown(const au_result *r, const char *lang);
/* The markdown note that lists files a directory run skipped as not launch scripts (files: a
 * comma-separated list). Caller frees. */
char *au_skipped_note(const au_rules *rules, const char *files, const char *lang);
json_t *au_report_json(const au_result *r);
/* SARIF 2.1.0 of several results (paths relative to base_dir, NULL = the current directory). */
json_t *au_report_sarif(au_result *const *rs, size_t n, const char *base_dir);
/* The `check --format json` document: {"version", "reports": [au_report_json...], "summary"}
 * whatever the number of files; skipped: the files a directory run skipped (array of paths,
 * reference stolen); exit_status: what check exits with. */
json_t *au_report_json_all(au_result *const *rs, size_t n, json_t *skipped, int exit_status);

/* The model and its derived context (mode, layout, GPU totals, from the facts) as the
 * `perf-doctor context` JSON object; new reference. au_context_text is its text form; caller
 * frees. */
json_t *au_context_json(const sm_model *m, const au_facts *facts);
char *au_context_text(const sm_model *m, const au_facts *facts);

/* The documentation of flag `name` in lang, as markdown: the catalog's entry (its parser's help,
 * type, default, choices, spellings, deprecation, the parser and the commit it was read at; cat
 * NULL = the rule set's built-in catalog), what argparse made of occurrence occ (may be NULL), and
 * the curated note on it. For a name no parser has: that, and the nearest known spellings.
 * Caller frees; NULL when there is nothing to say. */
char *au_flag_markdown(const au_rules *rules, const fc_catalog *cat, const char *name,
                       const sm_flag *occ, const char *lang);
/* The curated note on a flag (data/flag_notes.json) in lang (English when it has no zh), or
 * NULL. Caller frees. */
char *au_flag_note(const au_rules *rules, const char *flag, const char *lang);
/* A short text of facts for hovers: the GPU plan of --resource, the model's size and shape, the
 * baseline's value of `flag` for this model/GPU count. Caller frees; NULL when nothing to say. */
char *au_hover_facts(const au_result *r, const char *topic, const char *lang);
/* A sentence of the message catalog (data/messages.json) for the faces that show what the
 * audit found — hover frames, code action titles, command messages — in lang ("zh", else
 * English). args: the message's arguments as text, as many as its AU_MESSAGES entry names
 * (au_msg_arity), NULL where it takes none; a NULL argument is unknown. au_text_append appends
 * to b; au_text returns a fresh string the caller frees. */
void au_text_append(pd_buf *b, const au_rules *rules, au_msg_id id, const char *lang,
                    const char *const *args);
char *au_text(const au_rules *rules, au_msg_id id, const char *lang, const char *const *args);

/* The memory budget at a glance: the estimated peak per GPU against the device with its parts
 * (static: weights, gradients, optimizer; activations; logits; runtime), the rollout engine's
 * weights and KV cache, and the smallest actor GPU count that fits the layout, with the
 * findings' certainty words. au_budget_line: one line (the editor's code lens; when the estimate
 * is not made, why); au_budget_markdown: the breakdown; au_budget_json: the numbers
 * ({"skipped": reason} without an estimate). NULL / JSON null when r is not a launch script.
 * Caller frees; new reference. */
char *au_budget_line(const au_result *r, const char *lang);
char *au_budget_markdown(const au_result *r, const char *lang);
json_t *au_budget_json(const au_result *r);
/* What the derived layout makes of the flag `flag` where it is set (the editor's inlay hints):
 * the data-parallel size for --tensor / --pipeline / --context-parallel-size, the world size for
 * --resource and --actor-num-gpus-per-node, the engines for --rollout-num-gpus-per-engine; NULL
 * for other flags or when it is not known. Caller frees. */
char *au_layout_hint(const au_result *r, const char *flag, const char *lang);

/* Message `id` of the catalog (audit/messages.h, data/messages.json) in lang, for the faces'
 * own sentences: args are its arguments in the order its entry names them (NULL when it takes
 * none); its template may read r's facts. Caller frees. */
char *au_say(const au_result *r, au_msg_id id, const char *lang, const ax_value *args);
/* The same without an analysis (no facts to read). */
char *au_rules_say(const au_rules *rules, au_msg_id id, const char *lang, const ax_value *args);

#endif
