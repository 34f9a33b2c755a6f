/* limits: the size limits every face of perf-doctor applies, in one place.
 *
 * A launch script, a model config it sources, a rule file or an open editor buffer larger than
 * PD_MAX_FILE_BYTES is refused with a message rather than read: real ones are a few kilobytes,
 * and analysing a huge file on every keystroke would stall the editor. */
#ifndef PD_BASE_LIMITS_H
#define PD_BASE_LIMITS_H

#include <stddef.h>

#define PD_MAX_FILE_BYTES ((size_t)16 << 20)    /* 16 MiB: scripts, configs, rule files */
#define PD_MAX_FILE_TEXT "16 MiB"               /* the same, as users read it */
#define PD_MAX_MESSAGE_BYTES ((size_t)64 << 20) /* one LSP message body */
#define PD_MAX_TRACE_VALUE_BYTES ((size_t)64 << 20) /* one top-level value of a trace file */

#endif
