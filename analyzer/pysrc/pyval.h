/* pyval: Python literals and argparse calls from tree-sitter-python nodes, as JSON (private to
 * pysrc). */
#ifndef PD_PYSRC_PYVAL_H
#define PD_PYSRC_PYVAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

/* The source text of n (clamped to text[0..len)); caller frees. */
char *py_node_text(const char *text, size_t len, TSNode n);

/* The value of a literal expression as Python evaluates it: str (implicit concatenation, escapes,
 * raw strings), int, float, True/False/None, list/tuple/set of literals, unary +/-, and
 * arithmetic on numbers. NULL when n is not such a literal (a name, a call, an f-string with
 * fields). New reference. */
json_t *py_literal(const char *text, size_t len, TSNode n);

typedef enum { PY_CALL_NONE, PY_CALL_ADD, PY_CALL_RESET } py_call_kind;

/* The option an add_argument(...) call's argument list defines, or the change a
 * reset_arg(parser, "--x", ...) makes, as a flag-catalog option object (names, dest, parser,
 * in, action, nargs, type, choices, default, help, and "reset": true for reset_arg); NULL for a
 * positional argument or a call whose names are not literals. pre: the call is in a pre-parse
 * function (parser "pre"). New reference. */
json_t *py_option(const char *text, size_t len, TSNode args, py_call_kind kind, bool pre);

#endif
