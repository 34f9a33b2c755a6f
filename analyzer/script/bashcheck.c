/* bashcheck: bash's view of a script's syntax (see bashcheck.h). One pass over the text: words
 * are read the way bash's lexer reads them (quotes, escapes, expansions, `$( )` as a nested
 * command list), and a stack of the compound commands open at each token tells a reserved word
 * or an operator that bash's grammar refuses there. */
#include "script/bashcheck.h"

#include <ctype.h>
#include <string.h>

#define MAX_FRAMES 128
#define MAX_NEST 32 /* `$( )` inside `$( )` ... */
#define MAX_HEREDOCS 16

typedef enum { F_IF, F_LOOP, F_CASE, F_BRACE, F_SUBSHELL } frame_kind;
typedef enum { P_COND, P_BODY, P_ELSE, P_HEAD, P_WORD, P_IN, P_PATTERN } frame_phase;

typedef struct {
  frame_kind kind;
  frame_phase phase;
  bool have;             /* a command (or a pattern word) since the phase began */
  uint32_t at, end;      /* its opening word */
} frame;

typedef struct {
  const char *s;
  uint32_t n, p;
  bc_error *e;
  bool failed;
  int nest;
  struct {
    char delim[64];
    bool strip_tabs;
  } hd[MAX_HEREDOCS];
  int nhd;
} lexer;

/* The parse of one command list (the script, or the inside of a `$( )`). */
typedef struct {
  frame f[MAX_FRAMES];
  int depth;
  bool cmd_start;  /* the next word starts a command (reserved words count) */
  bool have;       /* a command since the last separator */
  bool need;       /* after `&&`, `||`, `|`: a command must follow */
  uint32_t need_at, need_end;
  char need_op[4];
  bool first_word; /* the last token was a command's first word (`name ()` defines a function) */
  bool in_func_kw; /* after `function`: the next word is the name */
  bool assigned;   /* the command so far is assignments: a `(` now is refused */
  bool closed;     /* a compound command just ended: only redirections and operators follow */
} list;

static void copy(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = '\0';
}

static void fail_eof_quote(lexer *L, uint32_t open_at, uint32_t open_len, const char *closer, bool at_end) {
  if (L->failed) return;
  L->failed = true;
  bc_error *e = L->e;
  e->kind = BC_EOF_QUOTE;
  e->open_at = open_at;
  e->open_end = open_at + open_len;
  e->at = at_end ? L->n : open_at;
  e->end = at_end ? L->n : open_at + open_len;
  copy(e->token, sizeof e->token, closer, strlen(closer));
  copy(e->opener, sizeof e->opener, L->s + open_at, open_len);
}

static void fail_token(lexer *L, uint32_t at, uint32_t end) {
  if (L->failed) return;
  L->failed = true;
  bc_error *e = L->e;
  e->kind = BC_TOKEN;
  e->at = at;
  e->end = end;
  copy(e->token, sizeof e->token, L->s + at, end - at);
}

static void fail_eof(lexer *L, uint32_t open_at, uint32_t open_end, const char *closer) {
  if (L->failed) return;
  L->failed = true;
  bc_error *e = L->e;
  e->kind = BC_EOF;
  e->at = e->end = L->n;
  e->open_at = open_at;
  e->open_end = open_end;
  copy(e->opener, sizeof e->opener, L->s + open_at, open_end - open_at);
  copy(e->closer, sizeof e->closer, closer, strlen(closer));
}

static bool meta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
         c == '<' || c == '>';
}

static void parse_list(lexer *L, char terminator, uint32_t open_at);
static void scan_dq(lexer *L);

static void scan_sq(lexer *L, bool ansi) {
  uint32_t at = L->p - (ansi ? 1 : 0);
  L->p++;
  while (L->p < L->n && L->s[L->p] != '\'') L->p += (ansi && L->s[L->p] == '\\' && L->p + 1 < L->n) ? 2 : 1;
  if (L->p >= L->n) fail_eof_quote(L, at, ansi ? 2 : 1, "'", false);
  else L->p++;
}

static void scan_backtick(lexer *L) {
  uint32_t at = L->p++;
  while (L->p < L->n && L->s[L->p] != '`') L->p += (L->s[L->p] == '\\' && L->p + 1 < L->n) ? 2 : 1;
  if (L->p >= L->n) fail_eof_quote(L, at, 1, "`", false);
  else L->p++;
}

/* $(( ... )) and (( ... )): to the matching "))". */
static void scan_arith(lexer *L, uint32_t at, uint32_t open_len) {
  int depth = 0;
  while (L->p < L->n && !L->failed) {
    char c = L->s[L->p];
    if (c == '(') depth++;
    else if (c == ')') {
      if (depth == 0 && L->p + 1 < L->n && L->s[L->p + 1] == ')') {
        L->p += 2;
        return;
      }
      depth--;
    } else if (c == '"') {
      scan_dq(L);
      continue;
    } else if (c == '\'') {
      scan_sq(L, false);
      continue;
    }
    L->p++;
  }
  if (!L->failed) fail_eof_quote(L, at, open_len, ")", false);
}

static void scan_dollar(lexer *L);

/* ${ ... }: to the matching brace, with quotes and expansions inside. */
static void scan_param(lexer *L) {
  uint32_t at = L->p;
  L->p += 2;
  while (L->p < L->n && !L->failed) {
    char c = L->s[L->p];
    if (c == '}') {
      L->p++;
      return;
    }
    if (c == '\\') L->p += 2;
    else if (c == '"') scan_dq(L);
    else if (c == '\'') scan_sq(L, false);
    else if (c == '`') scan_backtick(L);
    else if (c == '$') scan_dollar(L);
    else L->p++;
  }
  if (!L->failed) fail_eof_quote(L, at, 2, "}", false);
}

static void scan_cmdsub(lexer *L, uint32_t at) {
  if (++L->nest > MAX_NEST) { /* too deep to follow: take the rest as read */
    L->p = L->n;
    return;
  }
  parse_list(L, ')', at);
  L->nest--;
}

/* At a `$`: the expansion it starts, if any. */
static void scan_dollar(lexer *L) {
  uint32_t at = L->p;
  char c = L->p + 1 < L->n ? L->s[L->p + 1] : '\0';
  if (c == '(') {
    if (L->p + 2 < L->n && L->s[L->p + 2] == '(') {
      L->p += 3;
      scan_arith(L, at, 3);
    } else {
      L->p += 2;
      scan_cmdsub(L, at);
    }
  } else if (c == '{') {
    scan_param(L);
  } else if (c == '\'') {
    L->p++;
    scan_sq(L, true);
  } else if (c == '"') {
    L->p++;
    scan_dq(L);
  } else {
    L->p++;
  }
}

static void scan_dq(lexer *L) {
  uint32_t at = L->p++;
  while (L->p < L->n && !L->failed) {
    char c = L->s[L->p];
    if (c == '"') {
      L->p++;
      return;
    }
    if (c == '\\') L->p += 2;
    else if (c == '$') scan_dollar(L);
    else if (c == '`') scan_backtick(L);
    else L->p++;
  }
  if (!L->failed) fail_eof_quote(L, at, 1, "\"", false);
}

/* One word; *literal: it holds no quote, escape or expansion (so it can be a reserved word). */
static void scan_word(lexer *L, bool *literal) {
  *literal = true;
  while (L->p < L->n && !L->failed) {
    char c = L->s[L->p];
    if (meta(c)) return;
    if (c == '\\') {
      L->p += L->p + 1 < L->n ? 2 : 1;
      *literal = false;
    } else if (c == '\'') {
      scan_sq(L, false);
      *literal = false;
    } else if (c == '"') {
      scan_dq(L);
      *literal = false;
    } else if (c == '`') {
      scan_backtick(L);
      *literal = false;
    } else if (c == '$') {
      scan_dollar(L);
      *literal = false;
    } else if (c == '=' && L->p + 1 < L->n && L->s[L->p + 1] == '(') {
      L->p++; /* NAME=( : the caller reads the array */
      return;
    } else {
      L->p++;
    }
  }
}

static void skip_blanks(lexer *L) {
  while (L->p < L->n) {
    char c = L->s[L->p];
    if (c == ' ' || c == '\t' || c == '\r') L->p++;
    else if (c == '\\' && L->p + 1 < L->n && L->s[L->p + 1] == '\n') L->p += 2;
    else break;
  }
}

static void skip_comment(lexer *L) {
  while (L->p < L->n && L->s[L->p] != '\n') L->p++;
}

/* After a newline: the bodies of the here-documents whose operators were on that line. */
static void heredoc_bodies(lexer *L) {
  for (int i = 0; i < L->nhd; i++) {
    size_t dl = strlen(L->hd[i].delim);
    while (L->p < L->n) {
      uint32_t b = L->p, e = b;
      while (e < L->n && L->s[e] != '\n') e++;
      uint32_t t = b;
      if (L->hd[i].strip_tabs)
        while (t < e && L->s[t] == '\t') t++;
      L->p = e < L->n ? e + 1 : e;
      if (e - t == dl && !memcmp(L->s + t, L->hd[i].delim, dl)) break;
    }
  }
  L->nhd = 0;
}

/* <<WORD / <<-WORD: the delimiter with its quotes removed. */
static void heredoc_operator(lexer *L, bool strip_tabs) {
  skip_blanks(L);
  uint32_t b = L->p;
  bool literal;
  scan_word(L, &literal);
  if (L->nhd >= MAX_HEREDOCS) return;
  char *d = L->hd[L->nhd].delim;
  size_t k = 0;
  for (uint32_t i = b; i < L->p && k + 1 < sizeof L->hd[0].delim; i++)
    if (L->s[i] != '\'' && L->s[i] != '"' && L->s[i] != '\\') d[k++] = L->s[i];
  d[k] = '\0';
  L->hd[L->nhd++].strip_tabs = strip_tabs;
}

/* NAME=( ... ): words, comments and newlines up to the `)`. */
static void scan_array(lexer *L, uint32_t open) {
  L->p++; /* the ( */
  while (L->p < L->n && !L->failed) {
    skip_blanks(L);
    if (L->p >= L->n) break;
    char c = L->s[L->p];
    if (c == '\n') {
      L->p++;
      heredoc_bodies(L);
    } else if (c == '#') {
      skip_comment(L);
    } else if (c == ')') {
      L->p++;
      return;
    } else if (c == '(' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>') {
      fail_token(L, L->p, L->p + 1);
    } else {
      bool literal;
      scan_word(L, &literal);
    }
  }
  if (!L->failed) fail_eof_quote(L, open, 1, ")", false);
}

static frame *top(list *t) { return t->depth ? &t->f[t->depth - 1] : NULL; }

static void push(lexer *L, list *t, frame_kind k, frame_phase ph, uint32_t at, uint32_t end) {
  if (t->depth >= MAX_FRAMES) {
    L->p = L->n; /* too deep to follow */
    return;
  }
  t->f[t->depth++] = (frame){k, ph, false, at, end};
}

static bool word_is(const lexer *L, uint32_t b, uint32_t e, const char *w) {
  size_t n = strlen(w);
  return e - b == n && !memcmp(L->s + b, w, n);
}

static void command_done(list *t) {
  t->cmd_start = false;
  t->have = true;
  t->need = false;
  frame *f = top(t);
  if (f) f->have = true;
}

static void separator(list *t) {
  t->cmd_start = true;
  t->first_word = false;
  t->assigned = false;
  t->closed = false;
}

/* fi, done, esac, }, ), (( )), [[ ]]: a compound command ended. */
static void compound_done(list *t) {
  command_done(t);
  t->closed = true;
}

/* A reserved word at the start of a command; false when w is not one. */
static bool reserved(lexer *L, list *t, uint32_t b, uint32_t e) {
  frame *f = top(t);
  if (word_is(L, b, e, "if") || word_is(L, b, e, "while") || word_is(L, b, e, "until")) {
    push(L, t, word_is(L, b, e, "if") ? F_IF : F_LOOP, P_COND, b, e);
    separator(t);
  } else if (word_is(L, b, e, "for") || word_is(L, b, e, "select")) {
    push(L, t, F_LOOP, P_HEAD, b, e);
    t->cmd_start = false;
  } else if (word_is(L, b, e, "case")) {
    push(L, t, F_CASE, P_WORD, b, e);
    t->cmd_start = false;
  } else if (word_is(L, b, e, "{")) {
    push(L, t, F_BRACE, P_BODY, b, e);
    separator(t);
  } else if (word_is(L, b, e, "then") || word_is(L, b, e, "elif") || word_is(L, b, e, "else")) {
    bool then = word_is(L, b, e, "then");
    if (!f || f->kind != F_IF || f->phase != (then ? P_COND : P_BODY) || !f->have) fail_token(L, b, e);
    else f->phase = then ? P_BODY : word_is(L, b, e, "elif") ? P_COND : P_ELSE;
    if (f) f->have = false;
    separator(t);
  } else if (word_is(L, b, e, "fi") || word_is(L, b, e, "done") || word_is(L, b, e, "}") || word_is(L, b, e, "esac")) {
    frame_kind k = word_is(L, b, e, "fi") ? F_IF : word_is(L, b, e, "done") ? F_LOOP : word_is(L, b, e, "}") ? F_BRACE : F_CASE;
    bool ok = f && f->kind == k &&
              (k == F_CASE ? (f->phase == P_BODY || f->phase == P_PATTERN)
                           : (f->phase == P_BODY || f->phase == P_ELSE) && f->have);
    if (!ok) {
      fail_token(L, b, e);
      return true;
    }
    t->depth--;
    compound_done(t);
  } else if (word_is(L, b, e, "do")) {
    if (!f || f->kind != F_LOOP || (f->phase == P_COND && !f->have) || (f->phase != P_COND && f->phase != P_HEAD))
      fail_token(L, b, e);
    else f->phase = P_BODY;
    if (f) f->have = false;
    separator(t);
  } else if (word_is(L, b, e, "!") || word_is(L, b, e, "time")) {
    t->cmd_start = true;
  } else if (word_is(L, b, e, "function")) {
    t->in_func_kw = true;
    t->cmd_start = false;
  } else {
    return false;
  }
  return true;
}

/* A word inside a `case` before its body: the subject, `in`, a pattern. */
static bool case_word(lexer *L, list *t, uint32_t b, uint32_t e, bool literal) {
  frame *f = top(t);
  if (!f || f->kind != F_CASE || f->phase == P_BODY) return false;
  if (f->phase == P_WORD) {
    f->phase = P_IN;
  } else if (f->phase == P_IN) {
    if (!(literal && word_is(L, b, e, "in"))) fail_token(L, b, e);
    f->phase = P_PATTERN;
    f->have = false;
  } else if (literal && word_is(L, b, e, "esac") && !f->have) {
    t->depth--;
    compound_done(t);
  } else if (f->have) {
    fail_token(L, b, e); /* a second word where `|` or `)` must come */
  } else {
    f->have = true;
  }
  return true;
}

/* [[ ... ]]: words and operators to the closing ]]. */
static void cond_command(lexer *L) {
  while (L->p < L->n && !L->failed) {
    skip_blanks(L);
    if (L->p >= L->n) break;
    char c = L->s[L->p];
    if (c == '\n') {
      L->p++;
      continue;
    }
    if (meta(c)) {
      L->p++;
      continue;
    }
    uint32_t b = L->p;
    bool literal;
    scan_word(L, &literal);
    if (literal && word_is(L, b, L->p, "]]")) return;
  }
}

static void on_word(lexer *L, list *t) {
  uint32_t b = L->p;
  bool literal;
  scan_word(L, &literal);
  if (L->failed) return;
  uint32_t e = L->p;
  if (t->closed) { /* only a reserved word may follow a compound command: `fi }` */
    static const char *const closers[] = {"}", "fi", "done", "esac", "then", "do", "else", "elif"};
    bool ok = false;
    for (size_t i = 0; literal && !ok && i < sizeof closers / sizeof *closers; i++) ok = word_is(L, b, e, closers[i]);
    if (!ok) {
      fail_token(L, b, e);
      return;
    }
    t->cmd_start = true;
  }
  bool array = e < L->n && L->s[e] == '(' && e > b && L->s[e - 1] == '=';
  if (array) {
    uint32_t i = b;
    while (i < e && (isalnum((unsigned char)L->s[i]) || L->s[i] == '_')) i++;
    if (i < e && L->s[i] == '+') i++;
    bool name = i > b && !isdigit((unsigned char)L->s[b]) && i + 1 == e;
    if (!t->cmd_start || !name) { /* `x NAME=(`, `A}B=(`: bash refuses the ( */
      fail_token(L, e, e + 1);
      return;
    }
    scan_array(L, e);
    t->assigned = true;
    t->have = true;
    t->need = false;
    if (top(t)) top(t)->have = true;
    t->first_word = false;
    return; /* an assignment: a command may still follow */
  }
  if (case_word(L, t, b, e, literal)) return;
  frame *f = top(t);
  if (f && f->kind == F_LOOP && f->phase == P_HEAD && !(t->cmd_start && literal && word_is(L, b, e, "do"))) {
    if (t->cmd_start && !(literal && word_is(L, b, e, "in"))) { /* after `for x in a b;` only `do` */
      fail_token(L, b, e);
      return;
    }
    f->have = true;
    t->have = true;
    return;
  }
  if (t->cmd_start && literal && reserved(L, t, b, e)) {
    t->first_word = false;
    return;
  }
  if (t->in_func_kw) {
    t->in_func_kw = false;
    t->first_word = true;
    t->cmd_start = false;
    return;
  }
  if (t->cmd_start && literal && word_is(L, b, e, "[[")) {
    cond_command(L);
    compound_done(t);
    t->first_word = false;
    return;
  }
  bool assignment = false;
  if (t->cmd_start) {
    uint32_t i = b;
    while (i < e && (isalnum((unsigned char)L->s[i]) || L->s[i] == '_')) i++;
    assignment = i > b && i < e && !isdigit((unsigned char)L->s[b]) &&
                 (L->s[i] == '=' || (L->s[i] == '+' && i + 1 < e && L->s[i + 1] == '='));
  }
  bool first = t->cmd_start && !assignment;
  command_done(t);
  if (assignment) t->cmd_start = t->assigned = true;
  t->first_word = first;
}

/* ( : a subshell, (( arithmetic, `name ()` a function, or a token bash refuses. */
static void on_lparen(lexer *L, list *t) {
  uint32_t at = L->p;
  frame *f = top(t);
  if (f && f->kind == F_CASE && f->phase == P_PATTERN && !f->have) {
    L->p++; /* the optional ( before a pattern */
    return;
  }
  bool head = f && f->kind == F_LOOP && f->phase == P_HEAD;
  if (((t->cmd_start && !t->assigned && !t->closed) || head) && at + 1 < L->n && L->s[at + 1] == '(') {
    L->p += 2;
    scan_arith(L, at, 2);
    if (head) {
      f->have = t->have = true;
      t->cmd_start = true; /* `for (( ... )) do` needs no `;` */
    } else {
      compound_done(t);
    }
    return;
  }
  if (t->cmd_start && !t->assigned && !t->closed) {
    L->p++;
    push(L, t, F_SUBSHELL, P_BODY, at, at + 1);
    separator(t);
    return;
  }
  if (t->first_word) {
    L->p++;
    skip_blanks(L);
    if (L->p < L->n && L->s[L->p] == ')') {
      L->p++;
      t->first_word = false;
      separator(t); /* the body follows, newlines allowed */
      return;
    }
  }
  fail_token(L, at, at + 1);
}

/* ) : a pattern's end, a subshell's end, the end of a `$( )`; true when it ends the list. */
static bool on_rparen(lexer *L, list *t, char terminator) {
  uint32_t at = L->p;
  frame *f = top(t);
  if (f && f->kind == F_CASE && f->phase == P_PATTERN && f->have) {
    L->p++;
    f->phase = P_BODY;
    f->have = false;
    separator(t);
    return false;
  }
  if (f && f->kind == F_SUBSHELL && f->have && !t->need) {
    L->p++;
    t->depth--;
    compound_done(t);
    return false;
  }
  if (!f && terminator == ')' && !t->need) {
    L->p++;
    return true;
  }
  fail_token(L, at, at + 1);
  return false;
}

/* ; ;; & && | || |& and redirections. */
static void on_operator(lexer *L, list *t) {
  uint32_t at = L->p;
  const char *s = L->s + at;
  size_t left = L->n - at;
  char c = s[0];
  frame *f = top(t);
  if (c == '|' && f && f->kind == F_CASE && f->phase == P_PATTERN) { /* a|b) */
    L->p++;
    f->have = false;
    return;
  }
  if (c == '<' || c == '>' || (c == '&' && left > 1 && s[1] == '>')) {
    size_t k = 1;
    while (k < left && k < 3 && (s[k] == '<' || s[k] == '>' || s[k] == '&' || s[k] == '|' || s[k] == '-')) k++;
    bool heredoc = k >= 2 && s[0] == '<' && s[1] == '<' && !(k >= 3 && s[2] == '<');
    if ((c == '<' || c == '>') && left > 1 && s[1] == '(') { /* process substitution */
      L->p += 2;
      scan_cmdsub(L, at);
      command_done(t);
      return;
    }
    L->p += (uint32_t)k;
    if (heredoc) {
      heredoc_operator(L, k >= 3 && s[2] == '-');
    } else {
      skip_blanks(L);
      bool literal;
      if (L->p < L->n && !meta(L->s[L->p])) scan_word(L, &literal);
    }
    command_done(t);
    return;
  }
  size_t k = 1;
  if (left > 1 && (s[1] == c || (c == '|' && s[1] == '&') || (c == ';' && s[1] == '&'))) k = 2;
  if (c == ';' && k == 2 && left > 2 && s[2] == '&') k = 3;
  bool case_end = c == ';' && k >= 2;
  if (case_end) {
    if (!f || f->kind != F_CASE || f->phase != P_BODY) fail_token(L, at, at + (uint32_t)k);
    else {
      f->phase = P_PATTERN;
      f->have = false;
    }
    L->p += (uint32_t)k;
    separator(t);
    t->have = false;
    return;
  }
  if (!t->have || t->need) {
    fail_token(L, at, at + (uint32_t)k);
    return;
  }
  L->p += (uint32_t)k;
  separator(t);
  t->have = false;
  if (!(c == ';' || (c == '&' && k == 1))) { /* && || | |&: a command must follow */
    t->need = true;
    t->need_at = at;
    t->need_end = at + (uint32_t)k;
  }
}

static void on_newline(lexer *L, list *t) {
  L->p++;
  heredoc_bodies(L);
  frame *f = top(t);
  if (f && f->kind == F_CASE && f->phase != P_BODY) return; /* newlines between patterns */
  if (f && f->kind == F_LOOP && f->phase == P_HEAD) f->have = true;
  if (!t->need) t->have = false;
  separator(t);
}

static void parse_list(lexer *L, char terminator, uint32_t open_at) {
  list t = {.cmd_start = true};
  while (!L->failed) {
    skip_blanks(L);
    if (L->p >= L->n) {
      if (terminator) {
        fail_eof_quote(L, open_at, 2, ")", true);
      } else if (t.depth) {
        static const char *const closers[] = {"fi", "done", "esac", "}", ")"};
        fail_eof(L, t.f[0].at, t.f[0].end, closers[t.f[0].kind]);
      } else if (t.need) {
        fail_eof(L, t.need_at, t.need_end, "");
      }
      return;
    }
    char c = L->s[L->p];
    if (c == '#') skip_comment(L);
    else if (c == '\n') on_newline(L, &t);
    else if (c == '(') on_lparen(L, &t);
    else if (c == ')') {
      if (on_rparen(L, &t, terminator)) return;
    } else if (c == ';' || c == '&' || c == '|' || c == '<' || c == '>') on_operator(L, &t);
    else on_word(L, &t);
  }
}

bool bc_check(const char *text, size_t len, bc_error *e) {
  memset(e, 0, sizeof *e);
  lexer L = {.s = text, .n = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, .e = e};
  parse_list(&L, 0, 0);
  if (!L.failed) e->kind = BC_OK;
  return L.failed;
}
