/* messages: every sentence the audit writes that is not a rule's own text (report headings,
 * the Setting line, downgrade reasons, hover facts), as data: analyzer/data/messages.json holds
 * the English and Chinese templates, this list holds their ids and the arguments each takes.
 *
 * Templates may use, besides their own arguments, any fact and function a rule can: "{g_a} GPUs",
 * "{fixed(static_gb, 1)} GB". A message the data file lacks, or lacks in one language, is
 * refused at load with the message's key; a template that names an unknown argument, fact or
 * function is found by au_messages_check (run by the tests; templates compile on first use). */
#ifndef PD_AUDIT_MESSAGES_H
#define PD_AUDIT_MESSAGES_H

#include <stddef.h>

#include "audit/expr.h"
#include "base/alloc.h"

/* X(enum suffix, key in messages.json, argument names separated by commas) */
#define AU_MESSAGES(X)                                                                           \
  X(SETTING_WHOLE, "setting.whole_script", "")                                                   \
  X(SETTING_NOT_SET, "setting.not_set", "flag")                                                  \
  X(SETTING_WHERE, "setting.where", "value,place")                                               \
  X(SETTING_LINE, "setting.line", "line")                                                        \
  X(SETTING_FILE_LINE, "setting.file_line", "file,line")                                         \
  X(SETTING_GROUP, "setting.group", "group")                                                     \
  X(SETTING_CONDITIONAL, "setting.conditional", "")                                              \
  X(SETTING_UNSET, "setting.unset", "name")                                                      \
  X(SETTING_VARIABLE, "setting.variable", "name,value,line")                                     \
  X(COST_NOTED, "cost.noted", "cost,note")                                                       \
  X(COST_CONDITIONAL, "cost.conditional", "cost")                                                \
  X(COST_INTENT, "cost.intent", "cost,intent")                                                   \
  X(COST_GROUP, "cost.group", "cost,count,names")                                                \
  X(COST_NO_TRAIN, "cost.no_train_line", "cost")                                                 \
  X(COST_BORDERLINE, "cost.borderline", "cost")                                                  \
  X(COST_BASELINE, "cost.baseline", "cost,baseline")                                             \
  X(COST_CERT, "cost.certainty", "cost,why")                                                     \
  X(CERT_BRANCH, "cert.branch", "flag,line")                                                     \
  X(CERT_BRANCH_VAR, "cert.branch_var", "flag,var,line")                                         \
  X(CERT_COMMAND, "cert.command", "flag,var,line")                                               \
  X(CERT_UNRESOLVED, "cert.unresolved", "flag,line")                                             \
  X(CERT_DEFAULT, "cert.default", "flag,var,line")                                               \
  X(CERT_OTHER, "cert.other", "")                                                                \
  X(CERT_ARGP_UNKNOWN, "cert.argparse_unknown", "flag,intended,line")                            \
  X(CERT_ARGP_REFUSED, "cert.argparse_refused", "flag,intended,line")                            \
  X(RELATED_NOTE, "related.note", "note")                                                        \
  X(RELATED_GROUP, "related.group", "name")                                                      \
  X(RELATED_ARCH, "related.architecture", "flag")                                                \
  X(FIX_REMOVE, "fix.remove", "edit")                                                            \
  X(FIX_SET, "fix.set", "edit")                                                                  \
  X(FIX_ADD, "fix.add", "edit")                                                                  \
  X(FIX_REPLACE, "fix.replace", "edit")                                                          \
  X(SETTING_CONDITION, "setting.condition", "text,line")                                        \
  X(FIX_SEP, "fix.separator", "")                                                                \
  X(FIX_TITLE, "fix.title", "rule,title")                                                        \
  X(MD_TITLE, "md.title", "script")                                                              \
  X(PAGE_TITLE, "page.title", "id,title")                                                  \
  X(PAGE_ROW, "page.row", "label,value")                                                    \
  X(PAGE_SEVERITY, "page.severity", "")                                               \
  X(PAGE_CATEGORY, "page.category", "")                                               \
  X(PAGE_APPLIES, "page.applies", "")                                                \
  X(PAGE_ALL_JOBS, "page.all_jobs", "")                                               \
  X(PAGE_JOBS, "page.jobs", "jobs")                                                   \
  X(PAGE_NEEDS_ENGINE, "page.needs_engine", "")                                           \
  X(PAGE_NEEDS_TRAIN, "page.needs_train", "")                                            \
  X(PAGE_NEEDS_MEGATRON, "page.needs_megatron", "")                                         \
  X(PAGE_INTENTS, "page.intents", "")                                                \
  X(PAGE_SKIP, "page.skip", "")                                                   \
  X(PAGE_VERIFIED, "page.verified", "")                                               \
  X(PAGE_SECTION, "page.section", "name,text")                                                \
  X(PAGE_WHY, "page.why", "")                                                    \
  X(PAGE_WHEN, "page.when", "")                                                   \
  X(PAGE_FIX, "page.fix", "")                                                    \
  X(PAGE_SKIP_IF, "page.skip_if", "")                                                \
  X(PAGE_EXAMPLE, "page.example", "")                                                \
  X(PAGE_EXAMPLE_TEXT, "page.example_text", "base")                                           \
  X(PAGE_CONTROL, "page.control", "")                                                \
  X(PAGE_CONTROL_TEXT, "page.control_text", "id")                                           \
  X(PAGE_CASE, "page.case", "when,severity,cost")                                                   \
  X(PAGE_INDEX_TITLE, "page.index_title", "")                                            \
  X(PAGE_INDEX_HEAD, "page.index_head", "")                                             \
  X(PAGE_INDEX_ROW, "page.index_row", "id,link,severity,category,applies,title")                                              \
  X(NOT_LAUNCH, "not_launch_script", "")                                                         \
  X(MD_MEM_SKIPPED, "md.memory_skipped", "reason")                                              \
  X(MEM_SKIP_NO_TRAINING, "memory_skipped.no-training", "")                                      \
  X(MEM_SKIP_BACKEND, "memory_skipped.backend", "")                                              \
  X(MEM_SKIP_ARCH, "memory_skipped.architecture", "")                                            \
  X(MEM_SKIP_DEVICE, "memory_skipped.device", "")                                                \
  X(MEM_SKIP_LAYOUT, "memory_skipped.layout", "")                                                \
  X(MEM_SKIP_INPUTS, "memory_skipped.inputs", "")                                                \
  X(MD_SKIPPED, "md.skipped", "files")                                                           \
  X(MD_CONTEXT, "md.context", "")                                                                \
  X(MD_CONTEXT_GPUS, "md.context.gpus", "")                                                      \
  X(MD_CONTEXT_NO_GPUS, "md.context.no_gpus", "")                                                \
  X(MD_CONTEXT_REST, "md.context.rest", "")                                                      \
  X(MD_PERFORMANCE, "md.performance", "")                                                        \
  X(MD_MEMORY, "md.memory", "")                                                                  \
  X(MD_NONE, "md.none", "")                                                                      \
  X(MD_FINDING, "md.finding", "tag,rule,title,setting,cost,fix,skip_if,evidence,evidence_verdict")                         \
  X(MD_SUMMARY, "md.summary", "critical,warn,info,suppressed")                                              \
  X(MD_TOP, "md.top_action", "rule,title,fix")                                                   \
  X(MD_TOP_NONE, "md.top_action_none", "")                                                       \
  X(HOVER_RES_ACTOR, "hover.resource.actor", "")                                                 \
  X(HOVER_RES_ROLLOUT, "hover.resource.rollout", "")                                             \
  X(HOVER_RES_TOTAL, "hover.resource.total", "")                                                 \
  X(HOVER_RES_DP, "hover.resource.dp", "")                                                       \
  X(HOVER_RES_ENGINES, "hover.resource.engines", "")                                             \
  X(HOVER_RES_FIT, "hover.resource.fit", "")                                                     \
  X(HOVER_MODEL, "hover.model", "")                                                              \
  X(HOVER_MODEL_PARAMS, "hover.model.params", "")                                                \
  X(HOVER_MODEL_ACTIVE, "hover.model.active", "")                                                \
  X(HOVER_MODEL_LAYERS, "hover.model.layers", "")                                                \
  X(HOVER_MODEL_EXPERTS, "hover.model.experts", "")                                              \
  X(HOVER_MODEL_STATIC, "hover.model.static", "")                                                \
  X(HOVER_LAYOUT, "hover.layout", "")                                                            \
  X(HOVER_LAYOUT_DP, "hover.layout.dp", "")                                                      \
  X(HOVER_LAYOUT_EXPERTS, "hover.layout.experts", "")                                            \
  X(HOVER_LAYOUT_STATIC, "hover.layout.static", "")                                              \
  X(HOVER_PEAK, "hover.peak", "")                                                                \
  X(HOVER_ENGINES, "hover.engines", "")                                                          \
  X(HOVER_ENGINES_KV, "hover.engines.kv", "")                                                    \
  X(HOVER_HOST, "hover.host", "")                                                                \
  X(UI_RESOLVED, "ui.hover.resolved", "value")                                                    \
  X(UI_SWITCH_ON, "ui.hover.switch_on", "")                                                      \
  X(UI_UNRESOLVED, "ui.hover.unresolved", "")                                                    \
  X(UI_SET_IN, "ui.hover.set_in", "")                                                            \
  X(UI_LINE, "ui.hover.line", "line")                                                            \
  X(UI_FILE_LINE, "ui.hover.file_line", "file,line")                                             \
  X(UI_GROUP, "ui.hover.group", "group")                                                         \
  X(UI_LAUNCH_LINE, "ui.hover.launch_line", "")                                                  \
  X(UI_CONDITIONAL, "ui.hover.conditional", "")                                                  \
  X(UI_WINS, "ui.hover.wins", "")                                                                \
  X(UI_OVERRIDDEN, "ui.hover.overridden", "")                                                    \
  X(UI_BRANCH_ONLY, "ui.hover.branch_only", "")                                                  \
  X(UI_NOTE, "ui.hover.note", "note")                                                            \
  X(UI_FINDINGS, "ui.hover.findings", "")                                                        \
  X(UI_FINDING, "ui.hover.finding", "tag,rule,title")                                            \
  X(UI_MEASURED, "ui.hover.measured", "verdict,evidence")                                        \
  X(UI_MODEL_CONFIG, "ui.hover.model_config", "model")                                           \
  X(UI_DIAGNOSTIC, "ui.diagnostic", "title,borderline,cost,evidence,verdict,fix")                 \
  X(UI_ACTION_APPLY, "ui.action.apply_fix", "rule")                                              \
  X(UI_ACTION_NOTE, "ui.action.note", "rule")                                                    \
  X(UI_ACTION_NOTE_TEXT, "ui.action.note_text", "rule")                                          \
  X(UI_ACTION_FIX_ALL, "ui.action.fix_all", "n")                                                 \
  X(UI_COMPLETION_FLAG, "ui.completion.flag", "type,default,parser")                              \
  X(UI_COMPLETION_DEFAULT_CHOICE, "ui.completion.default_choice", "flag")                        \
  X(BASELINE_ROW, "baseline.row", "model,gpus,recipe,fork,other")                                \
  X(BASELINE_SUMMARY, "baseline.summary", "tp,pp,cp,ep,etp,mode,T,gpe,frac,recompute")           \
  X(BASELINE_VALUE, "baseline.value", "label,value")                                             \
  X(FLAG_HEAD, "flag.head", "flag,type,default")                                                 \
  X(FLAG_HEAD_SWITCH, "flag.head_switch", "flag,type,default")                                   \
  X(FLAG_CHOICES, "flag.choices", "choices")                                                     \
  X(FLAG_NARGS_ANY, "flag.nargs.any", "n")                                                       \
  X(FLAG_NARGS_SOME, "flag.nargs.some", "n")                                                     \
  X(FLAG_NARGS_OPT, "flag.nargs.optional", "n")                                                  \
  X(FLAG_NARGS_N, "flag.nargs.n", "n")                                                           \
  X(FLAG_SPELLINGS, "flag.spellings", "names")                                                   \
  X(FLAG_DEPRECATED, "flag.deprecated", "text")                                                  \
  X(FLAG_ONE_FORK, "flag.one_fork", "fork")                                                      \
  X(FLAG_PARSER_RELAX, "flag.parser.relax", "")                                                  \
  X(FLAG_PARSER_MEGATRON, "flag.parser.megatron", "")                                            \
  X(FLAG_PARSER_SGLANG, "flag.parser.sglang", "")                                                \
  X(FLAG_PARSER_PRE, "flag.parser.pre", "")                                                      \
  X(FLAG_SOURCE, "flag.source", "parser,origin,where")                                           \
  X(FLAG_SOURCE_AT, "flag.source_at", "parser,origin,where")                                     \
  X(FLAG_UNCHECKED, "flag.unchecked", "var")                                                     \
  X(FLAG_REFUSED, "flag.refused", "status")                                                      \
  X(FLAG_UNKNOWN, "flag.unknown", "flag,origin")                                                 \
  X(FLAG_DROPPED, "flag.dropped", "flag,origin")                                                 \
  X(FLAG_SUGGEST, "flag.suggest", "names")                                                       \
  X(FLAG_NOTE, "flag.note", "note")                                             \
  X(PROF_TITLE, "profile.title", "script")                                      \
  X(PROF_ALREADY, "profile.already", "start,end,overall,memory")                \
  X(PROF_FLAGS_HEAD, "profile.flags_head", "")                                  \
  X(PROF_EXPERIMENT_COMMENT, "profile.experiment_comment", "")                  \
  X(PROF_WINDOW, "profile.window", "start,end,run")                             \
  X(PROF_RUN_KNOWN, "profile.run_known", "steps")                               \
  X(PROF_RUN_UNKNOWN, "profile.run_unknown", "why,need")                        \
  X(PROF_WHY_EPOCHS, "profile.run_why.epochs", "")                              \
  X(PROF_WHY_UNSET, "profile.run_why.unset", "")                                \
  X(PROF_NOTES, "profile.notes", "")                                            \
  X(PROF_WHERE, "profile.where", "dir,files")                                   \
  X(PROF_WHERE_FILES, "profile.where_files", "dir,files")                       \
  X(PROF_NO_EXPERIMENT, "profile.no_experiment", "")                            \
  X(PROF_THEN, "profile.then", "dir,script")                                    \
  X(PROF_ACTION, "profile.action", "start,end,dir")                             \
  X(PROF_ACTION_NO_EXPERIMENT, "profile.action_no_experiment", "start,end,dir") \
  X(PROF_ERR_ONE_SCRIPT, "profile.error.one_script", "arg")                     \
  X(PROF_ERR_OPTION, "profile.error.unknown_option", "arg")                     \
  X(PROF_ERR_FORMAT, "profile.error.format", "format")                          \
  X(PROF_ERR_LANG, "profile.error.lang", "lang")                                \
  X(PROF_ERR_NO_TRAIN, "profile.error.no_train", "script")                      \
  X(HOVER_VAR_VALUE, "hover.var.value", "name,value")                           \
  X(HOVER_VAR_UNKNOWN, "hover.var.unknown", "name")                             \
  X(HOVER_VAR_ENV, "hover.var.environment", "name")                             \
  X(HOVER_VAR_DEFAULT, "hover.var.default", "")                                 \
  X(HOVER_VAR_BRANCH, "hover.var.branch", "")                                   \
  X(HOVER_ARRAY, "hover.array", "name,flags")                                   \
  X(HOVER_FUNCTION, "hover.function", "name")                                   \
  X(HOVER_SET_AT, "hover.set_at", "places")                                     \
  X(HOVER_SOURCED, "hover.sourced", "file,lines")                               \
  X(EVD_MISMATCH_WORLD, "evidence.mismatch.world", "world")                     \
  X(EVD_MISMATCH_RANK, "evidence.mismatch.rank", "rank,source")                 \
  X(EVD_MISMATCH_MD, "evidence.mismatch.markdown", "why")                       \
  X(CMD_NEEDS_SCRIPT, "command.needs_script", "command")                        \
  X(CLI_UNKNOWN_OPTION, "cli.unknown_option", "option") \
  X(CLI_NO_SCRIPT, "cli.no_script", "") \
  X(CLI_ONE_SCRIPT, "cli.one_script", "") \
  X(CLI_NEEDS_VALUE, "cli.needs_value", "option") \
  X(CLI_ENV_FORM, "cli.env_form", "value") \
  X(CLI_SEVERITY_FORM, "cli.severity_form", "value") \
  X(CLI_UNKNOWN_FORMAT, "cli.unknown_format", "value,allowed") \
  X(CLI_UNKNOWN_LANG, "cli.unknown_language", "value,allowed") \
  X(CLI_UNKNOWN_LEVEL, "cli.unknown_level", "value,allowed") \
  X(CLI_UNKNOWN_PARSER, "cli.unknown_parser", "value,allowed") \
  X(CLI_UNKNOWN_GPU, "cli.unknown_gpu", "value,allowed") \
  X(CLI_NOT_DIR, "cli.not_directory", "path") \
  X(CLI_NOT_FILE, "cli.not_file", "path") \
  X(CLI_NO_SH, "cli.no_sh_scripts", "path") \
  X(CLI_NO_LAUNCH, "cli.no_launch_scripts", "path") \
  X(CLI_UNKNOWN_RULE, "cli.unknown_rule", "rule") \
  X(CLI_TRACE_UNREAD, "cli.trace_unread", "path,n") \
  X(CLI_NO_CATALOG, "cli.no_flag_catalog", "") \
  X(CLI_UNEXPECTED_ARG, "cli.unexpected_argument", "arg") \
  X(CLI_WHICH_RULE, "cli.which_rule", "") \
  X(CMD_NEEDS_ARGS, "command.needs_arguments", "")                              \
  X(CMD_UNKNOWN, "command.unknown", "command")                                  \
  X(CMD_CANNOT_READ, "command.cannot_read", "command,path,why")                 \
  X(CMD_NEEDS_TRACE, "command.needs_trace", "command")                          \
  X(CMD_NEEDS_TWO_TRACES, "command.needs_two_traces", "command")                \
  X(CMD_NEEDS_SCRIPT_TRACE, "command.needs_script_and_trace", "command")        \
  X(INLAY_VALUE, "inlay.value", "value")                                        \
  X(INLAY_DP, "inlay.dp", "")                                                   \
  X(INLAY_WORLD, "inlay.world", "")                                             \
  X(INLAY_ENGINES, "inlay.engines", "")                                         \
  X(BUDGET_CERT_ESTIMATE, "budget.cert.estimate", "")                           \
  X(BUDGET_CERT_VERIFY, "budget.cert.verify", "")                               \
  X(BUDGET_LINE, "budget.line", "cert")                                         \
  X(BUDGET_ROLLOUT, "budget.rollout", "")                                       \
  X(BUDGET_FIT, "budget.fit", "")                                               \
  X(BUDGET_NO_FIT, "budget.no_fit", "")                                         \
  X(BUDGET_SKIPPED, "budget.skipped", "reason")                                 \
  X(BUDGET_MD_TITLE, "budget.md.title", "cert")                                 \
  X(BUDGET_MD_HEAD, "budget.md.head", "")                                       \
  X(BUDGET_MD_STATIC, "budget.md.static", "")                                   \
  X(BUDGET_MD_ACT, "budget.md.act", "")                                         \
  X(BUDGET_MD_LOGITS, "budget.md.logits", "")                                   \
  X(BUDGET_MD_RUNTIME, "budget.md.runtime", "")                                 \
  X(BUDGET_MD_PEAK, "budget.md.peak", "")                                       \
  X(BUDGET_MD_ROLLOUT, "budget.md.rollout", "")                                 \
  X(BUDGET_MD_FIT, "budget.md.fit", "")                                         \
  X(BUDGET_MD_NO_FIT, "budget.md.no_fit", "")                                   \
  X(BUDGET_MD_CERT, "budget.md.cert", "why")                                    \
  X(BUDGET_MD_SKIPPED, "budget.md.skipped", "reason")                           \
  X(RENAME_READ_ENV, "rename.reads_environment", "name,place")                  \
  X(NAV_TRAIN, "nav.symbol.train", "")                                          \
  X(NAV_APPEND, "nav.symbol.append", "")                                        \
  X(RENAME_NOTHING, "rename.nothing", "")                                       \
  X(RENAME_BAD_NAME, "rename.bad_name", "name")                                 \
  X(RENAME_RESERVED, "rename.reserved", "name")                                 \
  X(RENAME_OUTSIDE, "rename.outside", "name")                                   \
  X(RENAME_EXPORTED, "rename.exported", "name")                                 \
  X(RENAME_UNSEEN, "rename.unseen", "name,place")                               \
  X(RENAME_TAKEN, "rename.taken", "name,place")                                 \
  X(RENAME_SYNTAX, "rename.syntax", "place")                                    \
  X(RENAME_BREAKS, "rename.breaks", "place")

typedef enum {
#define AU_MSG_ENUM_(id, key, args) AU_MSG_##id,
  AU_MESSAGES(AU_MSG_ENUM_)
#undef AU_MSG_ENUM_
  AU_MSG_COUNT
} au_msg_id;

typedef struct au_messages au_messages;

/* Reads the messages of a JSON document {"messages": {key: {"en": .., "zh": ..}}}: every key of
 * AU_MESSAGES with both texts, or a problem appended to *errs ("messages.json: md.title is
 * missing"). Templates are compiled when first rendered; one that fails is rendered as its key.
 * Never NULL; free with au_messages_free. */
au_messages *au_messages_load(const char *text, size_t len, char ***errs, size_t *nerrs,
                              size_t *caperrs);
/* Compiles every message in both languages now and appends each that fails (an unknown
 * argument, fact or function; a syntax error) to *errs. The test suite runs it on the built-in
 * messages, so a run never meets a message it cannot render. */
void au_messages_check(const au_messages *ms, char ***errs, size_t *nerrs, size_t *caperrs);
void au_messages_free(au_messages *ms);

/* Appends message id in lang ("zh", else English) to b; args are the message's arguments in
 * the order its X-macro entry names them; facts (may be NULL) answers fact names. */
void au_msg_append(pd_buf *b, const au_messages *ms, au_msg_id id, const char *lang,
                   const ax_env *facts, const ax_value *args);
/* The same as a fresh string; caller frees. */
char *au_msg(const au_messages *ms, au_msg_id id, const char *lang, const ax_env *facts,
             const ax_value *args);
/* How many arguments message id takes (its AU_MESSAGES entry's names). */
size_t au_msg_arity(au_msg_id id);

/* The messages a loaded rule set (audit.h) compiled, for the faces' own sentences (borrowed from
 * rules; NULL for NULL). */
typedef struct au_rules au_rules;
const au_messages *au_rules_messages(const au_rules *rules);

#endif
