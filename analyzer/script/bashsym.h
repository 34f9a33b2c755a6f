/* bashsym: the tree-sitter-bash node kinds and fields the analyzer looks at, as small integers.
 *
 * Comparing ts_node_type() strings was the largest single cost of building a script model (a
 * strcmp chain per node: 40M instructions per edit of a 30,000-line script). The grammar's symbol
 * ids are not stable across grammar versions, so they are looked up by name once, into a table
 * indexed by symbol, and compared as integers after that. bs_kind_of(n) == BS_X holds exactly
 * when strcmp(ts_node_type(n), "x") == 0. */
#ifndef PD_SCRIPT_BASHSYM_H
#define PD_SCRIPT_BASHSYM_H

#include <stdbool.h>
#include <tree_sitter/api.h>

/* X(enum suffix, node type as the grammar names it) */
#define BS_KINDS(X)                                                                          \
  X(ERROR, "ERROR") X(WORD, "word") X(NUMBER, "number") X(COMMAND_NAME, "command_name")       \
  X(VARIABLE_NAME, "variable_name") X(SPECIAL_VARIABLE_NAME, "special_variable_name")         \
  X(REGEX, "regex") X(EXTGLOB_PATTERN, "extglob_pattern") X(RAW_STRING, "raw_string")          \
  X(ANSI_C_STRING, "ansi_c_string") X(STRING, "string") X(TRANSLATED_STRING, "translated_string") \
  X(STRING_CONTENT, "string_content") X(CONCATENATION, "concatenation")                       \
  X(SIMPLE_EXPANSION, "simple_expansion") X(EXPANSION, "expansion")                           \
  X(ARITHMETIC_EXPANSION, "arithmetic_expansion") X(COMMAND_SUBSTITUTION, "command_substitution") \
  X(SUBSCRIPT, "subscript") X(COMMENT, "comment") X(ARRAY, "array")                           \
  X(VARIABLE_ASSIGNMENT, "variable_assignment") X(COMMAND, "command")                         \
  X(DECLARATION_COMMAND, "declaration_command") X(UNSET_COMMAND, "unset_command")             \
  X(FUNCTION_DEFINITION, "function_definition") X(FOR_STATEMENT, "for_statement")             \
  X(CASE_STATEMENT, "case_statement") X(CASE_ITEM, "case_item") X(IF_STATEMENT, "if_statement") \
  X(ELIF_CLAUSE, "elif_clause") X(ELSE_CLAUSE, "else_clause") X(WHILE_STATEMENT, "while_statement") \
  X(C_STYLE_FOR_STATEMENT, "c_style_for_statement") X(HEREDOC_BODY, "heredoc_body")           \
  X(HEREDOC_REDIRECT, "heredoc_redirect") X(TEST_COMMAND, "test_command")                     \
  X(FILE_REDIRECT, "file_redirect") X(HERESTRING_REDIRECT, "herestring_redirect")             \
  X(REDIRECTED_STATEMENT, "redirected_statement")                                             \
  X(UNARY_EXPRESSION, "unary_expression") X(BINARY_EXPRESSION, "binary_expression")           \
  X(TERNARY_EXPRESSION, "ternary_expression")                                                 \
  X(PARENTHESIZED_EXPRESSION, "parenthesized_expression")                                     \
  X(NEGATED_COMMAND, "negated_command") X(TEST_OPERATOR, "test_operator") X(LIST, "list")     \
  X(POSTFIX_EXPRESSION, "postfix_expression") X(DO_GROUP, "do_group")                         \
  X(LPAREN, "(") X(RPAREN, ")") X(RBRACE, "}") X(HASH, "#") X(BANG, "!") X(EQ, "=")           \
  X(PLUS_EQ, "+=") X(AND_AND, "&&") X(OR_OR, "||") X(THEN, "then")

typedef enum {
  BS_OTHER = 0, /* any kind not listed */
#define BS_ENUM_(id, name) BS_##id,
  BS_KINDS(BS_ENUM_)
#undef BS_ENUM_
  BS_KIND_COUNT
} bs_kind;

#define BS_FIELDS(X)                                                                          \
  X(NAME, "name") X(VALUE, "value") X(BODY, "body") X(VARIABLE, "variable") X(INDEX, "index") \
  X(LEFT, "left") X(RIGHT, "right") X(OPERATOR, "operator") X(CONDITION, "condition")         \
  X(CONSEQUENCE, "consequence") X(ALTERNATIVE, "alternative") X(INITIALIZER, "initializer")  \
  X(UPDATE, "update")

typedef enum {
#define BS_ENUM_(id, name) BSF_##id,
  BS_FIELDS(BS_ENUM_)
#undef BS_ENUM_
  BSF_COUNT
} bs_field;

/* The kind of a node of a tree parsed with tree_sitter_bash(). */
bs_kind bs_kind_of(TSNode n);
static inline bool bs_is(TSNode n, bs_kind k) { return bs_kind_of(n) == k; }

/* The grammar's id of a field (0 when the grammar has no such field). */
TSFieldId bs_field_id(bs_field f);
/* ts_node_child_by_field_name without the name lookup; a null node when absent. */
TSNode bs_child(TSNode n, bs_field f);
/* True when child i of n (counting anonymous children) is in field f. */
bool bs_child_in(TSNode n, uint32_t i, bs_field f);

#endif
