/* template: message templates, compiled once: literal text with {expression} parts.
 *
 * "{n} engine(s) of {gpe} GPUs" is two expressions and their surrounding text; "{{" and "}}"
 * stand for literal braces. Expressions are parsed and bound (ax_bind) when the template is
 * compiled, so a template that names an unknown fact or function is refused then, with where
 * it is; rendering cannot fail. */
#ifndef PD_AUDIT_TEMPLATE_H
#define PD_AUDIT_TEMPLATE_H

#include <stdbool.h>

#include "audit/expr.h"
#include "base/alloc.h"

typedef struct at_tpl at_tpl;

/* Compiles src. Returns the template (caller frees with at_free), or NULL with *err (malloc'd)
 * naming the offending part. */
at_tpl *at_compile(const char *src, ax_resolver resolve, void *ctx, char **err);
void at_free(at_tpl *t);
/* The source text it was compiled from. */
const char *at_source(const at_tpl *t);
/* Appends the rendered text to b. *unknown (may be NULL) is set when a part was null. */
void at_render(pd_buf *b, const at_tpl *t, const ax_env *env, bool *unknown);
/* A value as templates print it: integers whole, others with three significant digits; null,
 * NaN and infinities as "unknown". */
void at_format_value(pd_buf *b, ax_value v);

#endif
