/* commands: the bodies of workspace/executeCommand.
 *
 * perfDoctor.report answers {"markdown": <the full audit report>}.
 * perfDoctor.traceSummary answers {"markdown": <summary>} and, when asked to, writes the summary
 * next to the traces and adds {"uri": <the file written>}. It is the only thing the server ever
 * writes to disk. */
#ifndef PD_LSP_COMMANDS_H
#define PD_LSP_COMMANDS_H

#include <jansson.h>
#include <stdbool.h>

#include "audit/audit.h"

#define CMD_REPORT "perfDoctor.report"
#define CMD_TRACE_SUMMARY "perfDoctor.traceSummary"

/* The report of an analysis. New reference. */
json_t *cmd_report(const au_result *r, const char *lang);

/* Summary of a trace file or folder. write_file: also write it beside the traces (the folder
 * itself, or the file's folder) and add its URI. Returns a new reference, or NULL with *err set.
 * When only the writing failed, it returns the summary without "uri" and sets *err to say why.
 * Caller frees *err. */
json_t *cmd_trace_summary(const char *path, bool write_file, char **err);

#endif
