/* expr: the small expression language rule triggers and message templates are written in.
 *
 *   expr  := or ('?' expr ':' expr)?
 *   or    := and ('||' and)*        and := not ('&&' not)*       not := '!' not | cmp
 *   cmp   := add (('=='|'!='|'<'|'<='|'>'|'>=') add)?
 *   add   := mul (('+'|'-') mul)*   mul := unary (('*'|'/'|'%') unary)*
 *   unary := '-' unary | primary
 *   primary := NUMBER | 'STRING' | "STRING" | true | false | null | NAME | NAME '(' args ')' | '(' expr ')'
 *
 * Values are numbers, booleans, strings or null. Null means "not known" (a flag the script does
 * not give, a fact that cannot be computed) and propagates: arithmetic and comparisons with null
 * are null, `false && null` is false, `true || null` is true, anything else with null is null.
 * A trigger that evaluates to null is treated by the caller as "not applicable" — a rule never
 * fires on a guess. Names and functions are bound once (ax_bind: the catalog refuses an unknown
 * name at load time) and answered at evaluation through an ax_env supplied by the caller. */
#ifndef PD_AUDIT_EXPR_H_
#define PD_AUDIT_EXPR_H_

#include <stdbool.h>
#include <stddef.h>

typedef enum { AX_NULL, AX_NUM, AX_BOOL, AX_STR } ax_kind;

typedef struct {
  ax_kind kind;
  double num;
  bool b;
  const char *str; /* borrowed: from the expression, the facts or the script model */
} ax_value;

typedef struct ax_expr ax_expr;

typedef struct {
  /* Value of a name (id: what ax_bind's resolver gave, -1 when unbound); false when the name
   * is unknown (the value is then null). */
  bool (*lookup)(void *ctx, int id, const char *name, ax_value *out);
  /* Result of fn(args); false when fn is unknown or the arguments do not fit. */
  bool (*call)(void *ctx, int id, const char *fn, const ax_value *args, size_t nargs, ax_value *out);
  void *ctx;
} ax_env;

/* Resolves a name (is_call: a function called with nargs arguments) to an id >= 0, or returns
 * -1 and sets *why (malloc'd) to say what is wrong. */
typedef int (*ax_resolver)(void *ctx, const char *name, bool is_call, size_t nargs, char **why);

/* Parses src. Returns a compiled expression (caller frees with ax_free), or NULL and a malloc'd
 * message in *err (caller frees). */
ax_expr *ax_parse(const char *src, char **err);
void ax_free(ax_expr *e);

/* Binds every name and function of e through resolve; false at the first that does not
 * resolve, with *err (malloc'd) saying which and why. */
bool ax_bind(ax_expr *e, ax_resolver resolve, void *ctx, char **err);

/* Evaluates e. Never fails: unknown names and bad operands give null. */
ax_value ax_eval(const ax_expr *e, const ax_env *env);

/* Calls visit for every name and every function the expression refers to (for validation at
 * load time); is_call tells which. */
void ax_visit_names(const ax_expr *e, void (*visit)(void *ctx, const char *name, bool is_call),
                    void *ctx);

/* Truth of a value: true/false, or -1 for null (unknown). Numbers are true when non-zero,
 * strings when non-empty. */
int ax_truth(ax_value v);

static inline ax_value ax_null(void) { ax_value v = {AX_NULL, 0, false, NULL}; return v; }
static inline ax_value ax_num(double x) { ax_value v = {AX_NUM, x, false, NULL}; return v; }
static inline ax_value ax_bool(bool b) { ax_value v = {AX_BOOL, 0, b, NULL}; return v; }
static inline ax_value ax_str(const char *s) {
  ax_value v = {s ? AX_STR : AX_NULL, 0, false, s};
  return v;
}

#endif
