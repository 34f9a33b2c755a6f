/* commands: the bodies of workspace/executeCommand.
 *
 * perfDoctor.report answers {"markdown": <the full audit report>}.
 * perfDoctor.traceSummary answers {"markdown": <summary>} and, when asked to, writes the summary
 * next to the traces (with its SVG picture beside it, linked from the markdown) and adds
 * {"uri": <the file written>}. These are the only files the server ever writes.
 * perfDoctor.linkTrace [script, trace] ties a trace to an open script: its measures become
 * evidence on the findings ({"trace", "measures"}).
 * perfDoctor.compareTraces [before, after] answers {"markdown": <the comparison>}.
 * perfDoctor.memoryBudget [script] answers {"markdown": <the memory budget's breakdown>} (the
 * code lens' command, LENS_COMMAND, is answered the same way). */
#ifndef PD_LSP_COMMANDS_H
#define PD_LSP_COMMANDS_H

#include <jansson.h>
#include <stdbool.h>

#include "audit/audit.h"

#define CMD_REPORT "perfDoctor.report"
#define CMD_TRACE_SUMMARY "perfDoctor.traceSummary"
#define CMD_LINK_TRACE "perfDoctor.linkTrace"
#define CMD_COMPARE_TRACES "perfDoctor.compareTraces"
#define CMD_MEMORY_BUDGET "perfDoctor.memoryBudget"

/* The report of an analysis. New reference. */
json_t *cmd_report(const au_result *r, const char *lang);

/* The memory budget of an analysis (au_budget_markdown). New reference. */
json_t *cmd_memory_budget(const au_result *r, const char *lang);

/* Summary of a trace file or folder in lang (the `lang` setting: "en" or "zh"). write_file: also
 * write it beside the traces (the folder itself, or the file's folder) and add its URI. Returns a
 * new reference, or NULL with *err set. When only the writing failed, it returns the summary
 * without "uri" and sets *err to say why. gpu: the device the FLOPs and memory are set against,
 * as `trace --gpu` (the `gpu` setting; NULL: the trace's deviceProperties). Caller frees *err. */
json_t *cmd_trace_summary(const char *path, const char *gpu, bool write_file, const char *lang, char **err);

/* `trace --compare before after --gpu gpu --lang lang` as markdown: {"markdown"}; NULL with *err. */
json_t *cmd_compare_traces(const char *before, const char *after, const char *gpu, const char *lang, char **err);

#endif
