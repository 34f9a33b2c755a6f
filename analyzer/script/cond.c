/* cond: the exit status of the tests a launch script branches on, as far as it is known without
 * running anything: `[ ... ]` and `test ...` (evaluated on their expanded words, as the builtin
 * does), `[[ ... ]]` (on its syntax tree: patterns, && and ||), `true`, `false` and `:`. File
 * tests, regular expressions and every other command are unknown. */
#include <fnmatch.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "script/bashsym.h"
#include "script/sm_int.h"

#define COND_MAX_DEPTH 32

typedef struct {
  sm_builder *b;
  int file;
  sm_cert cert;         /* the least certain word the status rests on */
  const char *cert_var;
  int depth;
} cond_ctx;

static void rests_on(cond_ctx *c, sm_cert cert, const char *var) {
  if (cert >= c->cert) return;
  c->cert = cert;
  c->cert_var = var;
}

static sm_tri tri_not(sm_tri t) { return t == SM_UNKNOWN ? t : t == SM_TRUE ? SM_FALSE : SM_TRUE; }
static sm_tri tri_of(bool v) { return v ? SM_TRUE : SM_FALSE; }

static bool is_unary_op(const char *s) {
  return s[0] == '-' && s[1] && !s[2] && strchr("abcdefghknprstuwxzGLNOSv", s[1]);
}

static bool is_binary_op(const char *s) {
  static const char *const ops[] = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le",
                                    "-gt", "-ge", "-nt", "-ot", "-ef", NULL};
  for (size_t i = 0; ops[i]; i++)
    if (!strcmp(s, ops[i])) return true;
  return false;
}

static sm_tri unary(cond_ctx *c, const char *op, const char *arg) {
  if (!strcmp(op, "-n")) return tri_of(*arg != '\0');
  if (!strcmp(op, "-z")) return tri_of(*arg == '\0');
  if (!strcmp(op, "-v")) { /* set in the script: known; otherwise the environment decides */
    const char *v;
    sm_cert cert;
    const char *via;
    if (!sh_var_get(c->b->w.env, arg, &v, &cert, &via)) return SM_UNKNOWN;
    rests_on(c, cert, via);
    return SM_TRUE;
  }
  return SM_UNKNOWN; /* file tests: the file system at launch */
}

static sm_tri binary(const char *a, const char *op, const char *z) {
  if (!strcmp(op, "=") || !strcmp(op, "==")) return tri_of(!strcmp(a, z));
  if (!strcmp(op, "!=")) return tri_of(strcmp(a, z) != 0);
  if (!strcmp(op, "<")) return tri_of(strcmp(a, z) < 0);
  if (!strcmp(op, ">")) return tri_of(strcmp(a, z) > 0);
  long x, y;
  if (op[0] != '-' || !pd_parse_long(a, &x) || !pd_parse_long(z, &y)) return SM_UNKNOWN;
  if (!strcmp(op, "-eq")) return tri_of(x == y);
  if (!strcmp(op, "-ne")) return tri_of(x != y);
  if (!strcmp(op, "-lt")) return tri_of(x < y);
  if (!strcmp(op, "-le")) return tri_of(x <= y);
  if (!strcmp(op, "-gt")) return tri_of(x > y);
  if (!strcmp(op, "-ge")) return tri_of(x >= y);
  return SM_UNKNOWN;
}

/* ---- `[ ... ]` and `test ...`: the builtin's grammar over its arguments ---- */

typedef struct {
  cond_ctx *c;
  const char *const *v;
  size_t n, i;
} argv_parser;

static sm_tri argv_or(argv_parser *p);

static sm_tri argv_primary(argv_parser *p) {
  if (p->i >= p->n || ++p->c->depth > COND_MAX_DEPTH) return SM_UNKNOWN;
  const char *a = p->v[p->i];
  if (!strcmp(a, "!")) {
    p->i++;
    return tri_not(argv_primary(p));
  }
  if (!strcmp(a, "(") && p->n - p->i >= 3) {
    p->i++;
    sm_tri t = argv_or(p);
    if (p->i >= p->n || strcmp(p->v[p->i], ")") != 0) return SM_UNKNOWN;
    p->i++;
    return t;
  }
  if (p->n - p->i >= 3 && is_binary_op(p->v[p->i + 1])) {
    sm_tri t = binary(a, p->v[p->i + 1], p->v[p->i + 2]);
    p->i += 3;
    return t;
  }
  if (p->n - p->i >= 2 && is_unary_op(a)) {
    sm_tri t = unary(p->c, a, p->v[p->i + 1]);
    p->i += 2;
    return t;
  }
  p->i++;
  return tri_of(*a != '\0');
}

static sm_tri argv_and(argv_parser *p) {
  sm_tri t = argv_primary(p);
  while (p->i < p->n && !strcmp(p->v[p->i], "-a")) {
    p->i++;
    sm_tri u = argv_primary(p);
    t = t == SM_FALSE || u == SM_FALSE ? SM_FALSE : t == SM_TRUE && u == SM_TRUE ? SM_TRUE : SM_UNKNOWN;
  }
  return t;
}

static sm_tri argv_or(argv_parser *p) {
  sm_tri t = argv_and(p);
  while (p->i < p->n && !strcmp(p->v[p->i], "-o")) {
    p->i++;
    sm_tri u = argv_and(p);
    t = t == SM_TRUE || u == SM_TRUE ? SM_TRUE : t == SM_FALSE && u == SM_FALSE ? SM_FALSE : SM_UNKNOWN;
  }
  return t;
}

/* The builtin on its arguments: false for none, the whole list must parse. */
static sm_tri eval_argv(cond_ctx *c, const sh_fields *args) {
  const char **v = pd_xmalloc((args->n + 1) * sizeof *v);
  size_t n = 0;
  for (size_t i = 0; i < args->n; i++) {
    const sh_field *f = &args->v[i];
    if (f->vanished) continue;
    if (!f->resolved) {
      free(v);
      return SM_UNKNOWN;
    }
    rests_on(c, f->cert, f->cert_var);
    v[n++] = f->text;
  }
  sm_tri t = SM_FALSE;
  if (n) {
    argv_parser p = {c, v, n, 0};
    t = argv_or(&p);
    if (p.i != n) t = SM_UNKNOWN; /* bash would report a syntax error */
  }
  free(v);
  return t;
}

/* An unquoted `$NAME` / `${NAME}` in `[ ]` of a variable nothing has set: unset, it is no word
 * at all, and `[ = async ]` is a usage error (status 2, the test is false). Noted for the walk. */
static void note_unset(cond_ctx *c, TSNode n, const char *s, size_t len) {
  size_t a = s[1] == '{' ? 2 : 1, z = len - (s[1] == '{' ? 1 : 0);
  if (len < 2 || s[0] != '$' || z <= a || (a == 2 && s[len - 1] != '}')) return;
  if (!isalpha((unsigned char)s[a]) && s[a] != '_') return;
  for (size_t i = a; i < z; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_') return;
  char *name = pd_xstrndup(s + a, z - a);
  /* what bash or the login sets in every shell */
  static const char *const always[] = {"HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "PATH", "SHELL",
                                       "HOSTNAME", "HOSTTYPE", "RANDOM", "LINENO", "SECONDS", "UID",
                                       "EUID", "PPID", "SHLVL", "IFS", "OSTYPE", "MACHTYPE"};
  for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
    if (!strcmp(name, always[i]) || !strncmp(name, "BASH", 4)) {
      free(name);
      return;
    }
  const char *v;
  sm_cert cert;
  if (sh_var_get(c->b->w.env, name, &v, &cert, NULL)) {
    free(name);
    return;
  }
  c->b->test_unset = name;
  c->b->test_unset_range = sh_node_range(n);
}

/* The words of a `[ ... ]` node in order: operators as written, operands expanded. */
static void collect_words(cond_ctx *c, TSNode n, sh_fields *out) {
  if (++c->depth > COND_MAX_DEPTH) return;
  bs_kind k = bs_kind_of(n);
  if (k == BS_BINARY_EXPRESSION || k == BS_UNARY_EXPRESSION || k == BS_PARENTHESIZED_EXPRESSION ||
      k == BS_TEST_COMMAND) {
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
      do collect_words(c, ts_tree_cursor_current_node(&cur), out);
      while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    c->depth--;
    return;
  }
  size_t len;
  const char *s = sm_node_span(c->b, c->file, n, &len);
  if (!ts_node_is_named(n) || k == BS_TEST_OPERATOR) {
    if ((len == 1 && (*s == '[' || *s == ']')) || (len == 2 && !strncmp(s, "[[", 2)) ||
        (len == 2 && !strncmp(s, "]]", 2)))
      goto done;
    sh_field f = {0};
    f.text = sh_intern(c->b->w.env, s, len);
    f.resolved = true;
    f.cert = SM_CERT_LITERAL;
    sh_fields_push(out, &f);
  } else {
    if ((k == BS_SIMPLE_EXPANSION || k == BS_EXPANSION) && !c->b->test_unset) note_unset(c, n, s, len);
    sh_file sf = sm_shfile(c->b, c->file);
    sh_expand(c->b->w.env, &sf, n, NULL, false, out);
  }
done:
  c->depth--;
}

/* ---- `[[ ... ]]` on its syntax tree ---- */

/* One operand of [[ ]] as a string (no splitting); NULL when unknown. *quoted: written in
 * quotes (a pattern then matches literally). */
static char *operand(cond_ctx *c, TSNode n, bool *quoted) {
  sh_file sf = sm_shfile(c->b, c->file);
  sm_cert cert;
  const char *via;
  char *s = sh_expand_scalar(c->b->w.env, &sf, n, &cert, &via);
  if (!sm_cert_known(cert)) {
    free(s);
    return NULL;
  }
  rests_on(c, cert, via);
  if (quoted) *quoted = bs_is(n, BS_STRING) || bs_is(n, BS_RAW_STRING);
  return s;
}

static sm_tri eval_dbl(cond_ctx *c, TSNode n);

static sm_tri eval_dbl_binary(cond_ctx *c, TSNode n) {
  TSNode l = bs_child(n, BSF_LEFT), r = bs_child(n, BSF_RIGHT), o = bs_child(n, BSF_OPERATOR);
  if (ts_node_is_null(l) || ts_node_is_null(r) || ts_node_is_null(o)) return SM_UNKNOWN;
  size_t ol;
  const char *op = sm_node_span(c->b, c->file, o, &ol);
  if (ol == 2 && (!strncmp(op, "&&", 2) || !strncmp(op, "||", 2))) {
    sm_tri a = eval_dbl(c, l);
    bool and = op[0] == '&';
    if (a == (and ? SM_FALSE : SM_TRUE)) return a; /* decided: the right side is not run */
    sm_tri z = eval_dbl(c, r);
    if (a == SM_UNKNOWN) return z == (and ? SM_FALSE : SM_TRUE) ? z : SM_UNKNOWN;
    return z;
  }
  char opbuf[8];
  if (ol >= sizeof opbuf || (ol == 2 && !strncmp(op, "=~", 2))) return SM_UNKNOWN;
  memcpy(opbuf, op, ol);
  opbuf[ol] = '\0';
  bool rq = false;
  char *a = operand(c, l, NULL), *z = operand(c, r, &rq);
  sm_tri t = SM_UNKNOWN;
  if (a && z) {
    bool pattern = !rq && (!strcmp(opbuf, "==") || !strcmp(opbuf, "=") || !strcmp(opbuf, "!="));
    if (pattern) t = tri_of((fnmatch(z, a, 0) == 0) == (opbuf[0] != '!'));
    else t = binary(a, opbuf, z);
  }
  free(a);
  free(z);
  return t;
}

static sm_tri eval_dbl(cond_ctx *c, TSNode n) {
  if (++c->depth > COND_MAX_DEPTH) return SM_UNKNOWN;
  sm_tri t = SM_UNKNOWN;
  bs_kind k = bs_kind_of(n);
  if (k == BS_BINARY_EXPRESSION) {
    t = eval_dbl_binary(c, n);
  } else if (k == BS_PARENTHESIZED_EXPRESSION && ts_node_named_child_count(n) == 1) {
    t = eval_dbl(c, ts_node_named_child(n, 0));
  } else if (k == BS_UNARY_EXPRESSION && ts_node_named_child_count(n) >= 1) {
    TSNode o = bs_child(n, BSF_OPERATOR);
    TSNode arg = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
    size_t ol = 0;
    const char *op = ts_node_is_null(o) ? "" : sm_node_span(c->b, c->file, o, &ol);
    if (ol == 1 && *op == '!') {
      t = tri_not(eval_dbl(c, arg));
    } else if (ol == 2) {
      char opbuf[3] = {op[0], op[1], 0};
      char *a = operand(c, arg, NULL);
      if (a) t = unary(c, opbuf, a);
      free(a);
    }
  } else {
    char *a = operand(c, n, NULL);
    if (a) t = tri_of(*a != '\0');
    free(a);
  }
  c->depth--;
  return t;
}

/* ---- entry ---- */

/* The command's name, or NULL when it is not a simple command with a literal name. */
static char *command_name(sm_builder *b, int file, TSNode n) {
  if (!bs_is(n, BS_COMMAND)) return NULL;
  TSNode name = bs_child(n, BSF_NAME);
  return ts_node_is_null(name) ? NULL : sm_node_text(b, file, name);
}

/* An assignment (=, op=) or an increment in arithmetic text; comparisons are not. */
static bool has_side_effect(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if ((s[i] == '+' || s[i] == '-') && i + 1 < n && s[i + 1] == s[i]) return true;
    if (s[i] != '=') continue;
    bool cmp_before = i > 0 && strchr("=!<>", s[i - 1]);
    bool cmp_after = i + 1 < n && s[i + 1] == '=';
    if (!cmp_before && !cmp_after) return true;
    if (cmp_after) i++;
  }
  return false;
}

/* (( expr )): true when the value is not zero. Its side effects happened when it was walked,
 * so it is not evaluated again here unless it has none to repeat. */
static sm_tri arith_status(cond_ctx *c, TSNode arith) {
  if (ts_node_named_child_count(arith) != 1) return SM_UNKNOWN;
  size_t len;
  const char *s = sm_node_span(c->b, c->file, arith, &len);
  if (has_side_effect(s, len)) return SM_UNKNOWN; /* evaluating it again would repeat it */
  sh_file sf = sm_shfile(c->b, c->file);
  long long v;
  sm_cert cert;
  const char *via;
  if (!sh_arith_eval(c->b->w.env, &sf, ts_node_named_child(arith, 0), &v, &cert, &via)) return SM_UNKNOWN;
  rests_on(c, cert, via);
  return tri_of(v != 0);
}

static sm_tri command_status(cond_ctx *c, TSNode n) {
  TSNode nm = bs_is(n, BS_COMMAND) ? bs_child(n, BSF_NAME) : (TSNode){{0}, NULL, NULL};
  TSNode first = ts_node_is_null(nm) ? nm : ts_node_named_child(nm, 0);
  if (!ts_node_is_null(first) && bs_is(first, BS_ARITHMETIC_EXPANSION)) return arith_status(c, first);
  char *name = command_name(c->b, c->file, n);
  if (!name) return SM_UNKNOWN;
  sm_tri t = SM_UNKNOWN;
  if (!strcmp(name, "true") || !strcmp(name, ":")) t = SM_TRUE;
  else if (!strcmp(name, "false")) t = SM_FALSE;
  else if (!strcmp(name, "test") || !strcmp(name, "[")) {
    sh_fields args = {0};
    sh_file sf = sm_shfile(c->b, c->file);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode a = ts_node_named_child(n, i);
      if (bs_is(a, BS_COMMAND_NAME) || bs_is(a, BS_VARIABLE_ASSIGNMENT) || bs_is(a, BS_FILE_REDIRECT))
        continue;
      sh_expand(c->b->w.env, &sf, a, NULL, false, &args);
    }
    if (name[0] == '[') { /* `[` wants its closing `]` */
      if (!args.n || strcmp(args.v[args.n - 1].text, "]") != 0) {
        sh_fields_free(&args);
        free(name);
        return SM_UNKNOWN;
      }
      args.n--;
    }
    t = eval_argv(c, &args);
    sh_fields_free(&args);
  }
  free(name);
  return t;
}

sm_tri sm_test_status(sm_builder *b, int file, TSNode n, sm_cert *cert, const char **cert_var) {
  cond_ctx c = {b, file, SM_CERT_LITERAL, NULL, 0};
  sm_tri t = SM_UNKNOWN;
  if (bs_is(n, BS_TEST_COMMAND)) {
    size_t len;
    const char *s = sm_node_span(b, file, n, &len);
    if (len >= 2 && !strncmp(s, "[[", 2)) {
      for (uint32_t i = 0; i < ts_node_named_child_count(n) && i < 1; i++)
        t = eval_dbl(&c, ts_node_named_child(n, i));
      if (ts_node_named_child_count(n) != 1) t = SM_UNKNOWN;
    } else {
      sh_fields words = {0};
      collect_words(&c, n, &words);
      t = eval_argv(&c, &words);
      sh_fields_free(&words);
    }
  } else if (bs_is(n, BS_NEGATED_COMMAND) && ts_node_named_child_count(n) == 1) {
    t = tri_not(sm_test_status(b, file, ts_node_named_child(n, 0), &c.cert, &c.cert_var));
  } else {
    t = command_status(&c, n);
  }
  if (ts_node_has_error(n)) t = SM_UNKNOWN;
  *cert = c.cert;
  *cert_var = c.cert_var;
  return t;
}
