/* sh_printf: bash's printf builtin on known arguments, for `$(printf ...)` and `printf -v` (a
 * common way to build JSON in launch scripts: RESOURCE=$(printf '{"actor": [1, %d]}' "$N")).
 * Private to the shell layer. */
#ifndef PD_SCRIPT_SH_PRINTF_H
#define PD_SCRIPT_SH_PRINTF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/alloc.h"

/* Formats args[1..n) with the format args[0] as bash does (the format is reused until the
 * arguments run out; %s, %b, %c, %d, %i, %u, %o, %x, %X, %e, %f, %g with flags, width and
 * precision, %%, and backslash escapes) and appends the output to out. Returns false, leaving
 * out as it was, when bash would fail or the output is not certain (a numeric conversion of an
 * argument that is not a number, an unknown conversion, %q, %(...)T). */
bool sh_printf(const char *const *args, size_t n, pd_buf *out);

#endif
