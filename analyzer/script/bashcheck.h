/* bashcheck: whether bash would refuse a script, and where it says so.
 *
 * tree-sitter recovers from a syntax error where its grammar can, which is rarely where bash
 * gives up: an unclosed `"` at line 43 may show as an error at line 10. This is bash's own view,
 * from a small reading of its lexer and its compound commands (quotes, `$( )`, `${ }`, `$(( ))`,
 * backquotes, here-documents, comments, arrays, `if` / `for` / `while` / `until` / `case` /
 * `{ }` / `( )`, functions, `[[ ]]`, the list operators), and reports what `bash -n` reports:
 *   - BC_EOF_QUOTE: "unexpected EOF while looking for matching `X'": the innermost construct
 *     left open at the end of the file; bash names the line it opened on, except for `$(`,
 *     which it reads as commands and names the end of the file for;
 *   - BC_EOF: "syntax error: unexpected end of file": a compound command (or a list after `&&`,
 *     `||`, `|`) left open; bash names the end of the file;
 *   - BC_TOKEN: "syntax error near unexpected token `X'": a reserved word, operator or
 *     parenthesis where bash's grammar allows none (a stray `fi`, `then` before a condition, a
 *     `(` inside an array, a second word in a `case` pattern).
 * tests/script/test_bash_syntax.py checks the line against `bash -n` on a set of broken
 * scripts. */
#ifndef PD_SCRIPT_BASHCHECK_H
#define PD_SCRIPT_BASHCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { BC_OK = 0, BC_EOF_QUOTE, BC_EOF, BC_TOKEN } bc_kind;

typedef struct {
  bc_kind kind;
  uint32_t at, end;           /* where bash reports: the opener (EOF_QUOTE; the end of the text for
                                 `$(`), the end of the text (EOF), the token (TOKEN) */
  uint32_t open_at, open_end; /* the construct left open (EOF_QUOTE, EOF): its opening token */
  char token[24];             /* TOKEN: the token; EOF_QUOTE: what would close it (`"`, `)`, `}`) */
  char opener[16];            /* EOF_QUOTE, EOF: the opening token (`"`, `$(`, `if`, `&&`) */
  char closer[8];             /* EOF: what would close it (`fi`, `done`, `}`; "" after an operator) */
} bc_error;

/* True when bash would refuse text[0..len); *e says where and why. */
bool bc_check(const char *text, size_t len, bc_error *e);

#endif
