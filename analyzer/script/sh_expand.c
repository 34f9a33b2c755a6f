/* sh_expand: word expansion over tree-sitter-bash nodes (see shell.h): quotes, parameter
 * expansions with their operators, spreads, arithmetic, and the command substitutions whose
 * output is known without running anything. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "base/str.h"
#include "script/bashsym.h"
#include "script/sh_printf.h"
#include "script/shell.h"

/* ---- ranges and node text --------------------------------------------------------------- */

sm_range sh_node_range(TSNode n) {
  TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
  return (sm_range){ts_node_start_byte(n), ts_node_end_byte(n), a.row, a.column, b.row, b.column};
}

const char *sh_node_src(const sh_file *f, TSNode n, size_t *len) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  if (b > f->len) b = (uint32_t)f->len;
  if (a > b) a = b;
  *len = b - a;
  return f->src + a;
}

/* ---- the word sh_word: accumulates parts of one word into fields ---------------------- */

typedef struct {
  sh_env *env;
  const sh_file *file;
  pd_buf cur;
  bool have;      /* current field exists (non-empty or quoted) */
  bool resolved;
  sm_cert cert;   /* the current field's certainty: the least of its parts' */
  const char *cert_var;
  const char *unset_var; /* the first unset variable the current field expanded (interned) */
  sh_fields *out;
  int depth;      /* nesting guard for pathological inputs */
} sh_word;

#define SH_WORD(e, f, o) {.env = (e), .file = (f), .resolved = true, .cert = SM_CERT_LITERAL, .out = (o)}

/* The field being built rests on something known only as well as cert (through variable var). */
static void lower(sh_word *b, sm_cert cert, const char *var) {
  if (cert >= b->cert) return;
  b->cert = cert;
  b->cert_var = var ? sh_intern(b->env, var, strlen(var)) : NULL;
}

/* The current field expanded a variable that is not set: remembered for the user's text.
 * NULL: none. */
static void note_unset(sh_word *b, const char *name) {
  if (name && !b->unset_var) b->unset_var = sh_intern(b->env, name, strlen(name));
}

/* The set scalar `name` was assigned from a word in which a variable not set then gave nothing:
 * that variable is carried on to this word. */
static void carry_unset(sh_word *b, const char *name) { note_unset(b, sh_var_unset_from(b->env, name)); }

#define MAX_DEPTH 64
#define MAX_SEQ 100000

static void emit(sh_word *b, TSNode word, const char *group, bool conditional) {
  sh_field *f = PD_PUSH(b->out->v, b->out->n, b->out->cap);
  memset(f, 0, sizeof *f);
  f->text = sh_intern(b->env, b->cur.data ? b->cur.data : "", b->cur.len);
  b->cur.len = 0; /* keep the buffer's capacity for the next field */
  if (b->cur.data) b->cur.data[0] = '\0';
  f->resolved = b->resolved;
  f->cert = b->cert;
  f->cert_var = b->cert_var;
  f->unset_var = b->unset_var;
  b->unset_var = NULL;
  if (conditional && f->cert > SM_CERT_BRANCH) f->cert = SM_CERT_BRANCH;
  f->file = b->file->file;
  f->range = sh_node_range(word);
  f->group = group;
  f->conditional = conditional;
  b->have = false;
  b->resolved = true;
  b->cert = SM_CERT_LITERAL;
  b->cert_var = NULL;
}

/* Appends an expansion result. Unquoted values are split on blanks (IFS default). Each field
 * boundary ends the current field; the caller's `emit_fn` context is the enclosing word. */
typedef struct {
  TSNode word;
  const char *group;
  bool conditional;
} word_ctx;

static void add_value(sh_word *b, const word_ctx *w, const char *s, bool quoted) {
  if (quoted) {
    pd_buf_puts(&b->cur, s);
    b->have = true;
    return;
  }
  const char *p = s;
  while (*p) {
    if (*p == ' ' || *p == '\t' || *p == '\n') {
      if (b->have || b->cur.len) emit(b, w->word, w->group, w->conditional);
      while (*p == ' ' || *p == '\t' || *p == '\n') p++;
      continue;
    }
    const char *q = p;
    while (*q && *q != ' ' && *q != '\t' && *q != '\n') q++;
    pd_buf_append(&b->cur, p, (size_t)(q - p));
    b->have = true;
    p = q;
  }
}

/* raw source text in place of a value that is not known; cert says why (an unevaluated command,
 * a variable set from one, or nothing that can be resolved). */
static void add_unknown(sh_word *b, const char *raw, size_t n, sm_cert cert, const char *via) {
  pd_buf_append(&b->cur, raw, n);
  b->have = true;
  b->resolved = false;
  lower(b, cert < SM_CERT_BRANCH ? cert : SM_CERT_UNRESOLVED, via);
}

static void add_unresolved(sh_word *b, const char *raw, size_t n) {
  add_unknown(b, raw, n, SM_CERT_UNRESOLVED, NULL);
}

/* Unquoted literal word text: backslash escapes drop the backslash. */
static void add_word_literal(sh_word *b, const char *s, size_t n) {
  b->have = true;
  if (!memchr(s, '\\', n)) { /* the usual word: copied whole */
    pd_buf_append(&b->cur, s, n);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n) {
      i++;
      if (s[i] == '\n') continue;
    }
    pd_buf_putc(&b->cur, s[i]);
  }
}

/* Double-quoted literal text: only \" \\ \$ \` and \newline are escapes. */
static void add_dq_literal(sh_word *b, const char *s, size_t n) {
  if (!memchr(s, '\\', n)) {
    pd_buf_append(&b->cur, s, n);
    b->have = true;
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n && strchr("\"\\$`\n", s[i + 1])) {
      i++;
      if (s[i] == '\n') continue;
    }
    pd_buf_putc(&b->cur, s[i]);
  }
  b->have = true;
}

static void expand_node(sh_word *b, const word_ctx *w, TSNode n, bool quoted);

/* Expands the children of `n` in [from, to) as one string (no splitting). */
static char *expand_children_scalar(sh_word *outer, TSNode n, uint32_t from, uint32_t to,
                                    bool *known) {
  sh_fields tmp = {0};
  sh_word b = SH_WORD(outer->env, outer->file, &tmp);
  b.depth = outer->depth + 1;
  word_ctx w = {n, NULL, false};
  uint32_t prev_end = from < ts_node_child_count(n) && from > 0
                          ? ts_node_end_byte(ts_node_child(n, from - 1))
                          : ts_node_start_byte(n);
  for (uint32_t i = from; i < to; i++) {
    TSNode c = ts_node_child(n, i);
    /* The grammar drops blanks between operand words (`${X:-a b}`): keep them. */
    uint32_t cs = ts_node_start_byte(c);
    if (cs > prev_end && cs <= outer->file->len)
      pd_buf_append(&b.cur, outer->file->src + prev_end, cs - prev_end);
    expand_node(&b, &w, c, true);
    prev_end = ts_node_end_byte(c);
  }
  *known = b.resolved;
  lower(outer, b.cert, b.cert_var);
  note_unset(outer, b.unset_var); /* `${X:-${DIR}/x}` with DIR unset */
  char *s = pd_buf_take(&b.cur);
  for (size_t i = 0; i < tmp.n; i++) { /* spreads inside an operand: join with blanks */
    lower(outer, tmp.v[i].cert, tmp.v[i].cert_var);
    note_unset(outer, tmp.v[i].unset_var);
    char *j = pd_xasprintf("%s%s%s", tmp.v[i].text, *s ? " " : "", s);
    free(s);
    s = j;
  }
  sh_fields_free(&tmp);
  return s;
}

static void add_spread(sh_word *b, const word_ctx *w, const sh_fields *arr, bool quoted) {
  /* The spread array may be the one being filled (A+=(x"${A[@]}")): work on a copy. */
  sh_fields copy = {0};
  for (size_t i = 0; arr && i < arr->n; i++) sh_fields_push(&copy, &arr->v[i]);
  arr = &copy;
  for (size_t i = 0; i < arr->n; i++) {
    const sh_field *src = &arr->v[i];
    if (!quoted) {
      if (i > 0 && (b->have || b->cur.len)) emit(b, w->word, w->group, w->conditional);
      add_value(b, w, src->text, false);
      if (!src->resolved) b->resolved = false;
      lower(b, src->cert, src->cert_var);
      continue;
    }
    if (i > 0) emit(b, w->word, w->group, w->conditional);
    pd_buf_puts(&b->cur, src->text);
    b->have = true;
    if (!src->resolved) b->resolved = false;
    lower(b, src->cert, src->cert_var);
  }
  sh_fields_free(&copy);
}

/* "${A[*]}": the elements joined by the first character of IFS (a blank when IFS is unset). */
static void join_fields(sh_word *b, const sh_fields *arr) {
  const char *ifs = NULL, *via;
  sm_cert cert;
  bool set = sh_var_get(b->env, "IFS", &ifs, &cert, &via);
  if (set) lower(b, cert, via);
  char sep = !set ? ' ' : ifs[0];
  for (size_t i = 0; arr && i < arr->n; i++) {
    if (i && sep) pd_buf_putc(&b->cur, sep);
    pd_buf_puts(&b->cur, arr->v[i].text);
    if (!arr->v[i].resolved) b->resolved = false;
    lower(b, arr->v[i].cert, arr->v[i].cert_var);
  }
  b->have = true;
}

const char *sh_var_name(const sh_file *f, TSNode n, char *buf, size_t cap) {
  size_t len;
  const char *s = sh_node_src(f, n, &len);
  if (len >= cap) len = cap - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  return buf;
}

static char *dirname_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return pd_xstrdup(".");
  if (slash == path) return pd_xstrdup("/");
  return pd_xstrndup(path, (size_t)(slash - path));
}

/* ---- command substitutions we can evaluate -------------------------------------------- */

/* A variable set for the duration of a command substitution (a subshell), and what it was. */
typedef struct {
  char *name, *old, *old_via;
  bool existed;
  sm_cert old_cert;
} subst_var;

/* Applies `NAME=value` (a known value) inside $( ... ); false when the value is not known. */
static bool subst_assign(sh_word *b, TSNode a, subst_var *sv) {
  TSNode name = bs_child(a, BSF_NAME), value = bs_child(a, BSF_VALUE);
  if (ts_node_is_null(name) || !bs_is(name, BS_VARIABLE_NAME)) return false;
  char buf[256];
  sv->name = pd_xstrdup(sh_var_name(b->file, name, buf, sizeof buf));
  const char *old, *via;
  sv->existed = sh_var_get(b->env, sv->name, &old, &sv->old_cert, &via);
  sv->old = sv->existed ? pd_xstrdup(old) : NULL;
  sv->old_via = sv->existed && via ? pd_xstrdup(via) : NULL;
  sm_cert cert = SM_CERT_LITERAL;
  char *v = ts_node_is_null(value) ? pd_xstrdup("") : sh_expand_scalar(b->env, b->file, value, &cert, &via);
  bool ok = sm_cert_known(cert);
  if (ok) sh_var_set(b->env, sv->name, v, cert, via);
  free(v);
  return ok;
}

static void subst_restore(sh_env *e, subst_var *sv) {
  if (sv->existed) sh_var_set(e, sv->name, sv->old, sv->old_cert, sv->old_via);
  else sh_var_unset(e, sv->name);
  free(sv->name);
  free(sv->old);
  free(sv->old_via);
}

/* Words of the command inside $( ... ), expanded: one simple command, after any number of known
 * assignments (IFS=', '; echo "${A[*]}"); false when it is anything else. */
static bool subst_words(sh_word *b, TSNode cs, sh_fields *words) {
  uint32_t nk = ts_node_named_child_count(cs);
  if (nk == 0 || nk > 8) return false;
  TSNode cmd = ts_node_named_child(cs, nk - 1);
  if (!bs_is(cmd, BS_COMMAND)) return false;
  subst_var sv[8] = {{0}};
  uint32_t nsv = 0;
  bool ok = true;
  for (uint32_t i = 0; ok && i + 1 < nk; i++) {
    TSNode a = ts_node_named_child(cs, i);
    ok = bs_is(a, BS_VARIABLE_ASSIGNMENT) && subst_assign(b, a, &sv[nsv]);
    if (bs_is(a, BS_VARIABLE_ASSIGNMENT) && sv[nsv].name) nsv++;
  }
  for (uint32_t i = 0; ok && i < ts_node_named_child_count(cmd); i++) {
    TSNode c = ts_node_named_child(cmd, i);
    if (bs_is(c, BS_COMMAND_NAME)) c = ts_node_named_child(c, 0);
    else if (bs_is(c, BS_VARIABLE_ASSIGNMENT) || bs_is(c, BS_FILE_REDIRECT)) ok = false;
    if (!ok || ts_node_is_null(c)) {
      ok = false;
      break;
    }
    sh_word sub = SH_WORD(b->env, b->file, words);
    sub.depth = b->depth + 1;
    word_ctx w = {c, NULL, false};
    expand_node(&sub, &w, c, false);
    if (sub.have || sub.cur.len) emit(&sub, c, NULL, false);
    pd_buf_free(&sub.cur);
  }
  while (nsv > 0) subst_restore(b->env, &sv[--nsv]);
  for (size_t i = 0; ok && i < words->n; i++)
    if (!words->v[i].resolved) ok = false;
  return ok && words->n > 0;
}

/* The output of `seq [first [step]] last`, or NULL. */
static char *eval_seq(const sh_fields *words) {
  long a = 1, step = 1, z;
  bool ok = pd_parse_long(words->v[words->n - 1].text, &z);
  if (words->n >= 3) ok = ok && pd_parse_long(words->v[1].text, &a);
  if (words->n == 4) ok = ok && pd_parse_long(words->v[2].text, &step);
  if (!ok || step == 0) return NULL;
  pd_buf o = {0};
  long count = 0;
  for (long v = a; (step > 0 ? v <= z : v >= z) && count < MAX_SEQ; v += step, count++)
    pd_buf_printf(&o, "%s%ld", o.len ? " " : "", v);
  return pd_buf_take(&o);
}

/* The output of `printf FORMAT ARGS...` (bash strips trailing newlines of a substitution). */
static char *eval_printf(const sh_fields *words) {
  const char **args = pd_xmalloc(words->n * sizeof *args);
  for (size_t i = 1; i < words->n; i++) args[i - 1] = words->v[i].text;
  pd_buf o = {0};
  bool ok = sh_printf(args, words->n - 1, &o);
  free(args);
  if (!ok) {
    pd_buf_free(&o);
    return NULL;
  }
  while (o.len && o.data[o.len - 1] == '\n') o.data[--o.len] = '\0';
  return pd_buf_take(&o);
}

/* The output of a command whose words are all known, or NULL when it cannot be known. */
static char *eval_command(const sh_fields *words) {
  const char *cmd = words->v[0].text;
  if (!strcmp(cmd, "dirname") && words->n == 2) return dirname_of(words->v[1].text);
  if (!strcmp(cmd, "basename") && words->n == 2) {
    const char *sl = strrchr(words->v[1].text, '/');
    return pd_xstrdup(sl ? sl + 1 : words->v[1].text);
  }
  if (!strcmp(cmd, "echo") && words->n >= 2 && words->v[1].text[0] != '-') {
    pd_buf o = {0};
    for (size_t i = 1; i < words->n; i++) {
      if (i > 1) pd_buf_putc(&o, ' ');
      pd_buf_puts(&o, words->v[i].text);
    }
    return pd_buf_take(&o);
  }
  if (!strcmp(cmd, "seq") && words->n >= 2 && words->n <= 4) return eval_seq(words);
  if (!strcmp(cmd, "printf") && words->n >= 2 && strcmp(words->v[1].text, "-v") != 0)
    return eval_printf(words);
  return NULL;
}

/* The text of a command's name node, compared with want. */
static bool command_is(const sh_word *b, TSNode cmd, const char *want) {
  TSNode name = ts_node_child_by_field_name(cmd, "name", 4);
  size_t len;
  const char *s = ts_node_is_null(name) ? NULL : sh_node_src(b->file, name, &len);
  return s && len == strlen(want) && !memcmp(s, want, len);
}

/* `$(cd [--] DIR [>/dev/null] && pwd)`: DIR made absolute and normalised, the way a script finds
 * its checkout's root ("${SCRIPT_DIR}/../.."); NULL for anything else or a DIR not known. */
static char *cd_pwd(sh_word *b, TSNode cs) {
  TSNode l = ts_node_named_child(cs, 0);
  if (ts_node_named_child_count(cs) != 1 || !bs_is(l, BS_LIST) || ts_node_named_child_count(l) != 2 ||
      strcmp(ts_node_type(ts_node_child(l, 1)), "&&") != 0)
    return NULL;
  TSNode cd = ts_node_named_child(l, 0), pwd = ts_node_named_child(l, 1);
  if (!strcmp(ts_node_type(cd), "redirected_statement")) cd = ts_node_child_by_field_name(cd, "body", 4);
  if (!bs_is(cd, BS_COMMAND) || !bs_is(pwd, BS_COMMAND) || !command_is(b, cd, "cd") ||
      !command_is(b, pwd, "pwd") || ts_node_named_child_count(pwd) != 1)
    return NULL;
  sh_fields words = {0};
  for (uint32_t i = 1; i < ts_node_named_child_count(cd); i++) {
    TSNode c = ts_node_named_child(cd, i);
    sh_word sub = SH_WORD(b->env, b->file, &words);
    sub.depth = b->depth + 1;
    word_ctx w = {c, NULL, false};
    expand_node(&sub, &w, c, false);
    if (sub.have || sub.cur.len) emit(&sub, c, NULL, false);
    pd_buf_free(&sub.cur);
  }
  size_t k = 0; /* cd's options: -- ends them; -P and -L change nothing here */
  while (k < words.n && (!strcmp(words.v[k].text, "--") || !strcmp(words.v[k].text, "-P") ||
                         !strcmp(words.v[k].text, "-L")))
    k++;
  char *out = NULL;
  if (k + 1 == words.n && words.v[k].resolved && words.v[k].text[0] == '/') {
    out = pd_path_normalize(words.v[k].text);
    lower(b, words.v[k].cert, words.v[k].cert_var);
  }
  sh_fields_free(&words);
  return out;
}

/* Returns the substitution's output (caller frees) or NULL when it cannot be known; the word
 * being built then rests on the command's words. */
static char *eval_subst(sh_word *b, TSNode n) {
  size_t len;
  const char *s = sh_node_src(b->file, n, &len);
  /* SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)" */
  char *text = pd_xstrndup(s, len);
  bool idiom = strstr(text, "dirname") && strstr(text, "BASH_SOURCE") && strstr(text, "pwd");
  free(text);
  if (idiom && b->file->path) return dirname_of(b->file->path);
  char *dir = cd_pwd(b, n);
  if (dir) return dir;

  sh_fields words = {0};
  char *out = subst_words(b, n, &words) ? eval_command(&words) : NULL;
  for (size_t i = 0; out && i < words.n; i++) lower(b, words.v[i].cert, words.v[i].cert_var);
  sh_fields_free(&words);
  return out;
}

/* ---- ${...} ------------------------------------------------------------------------------ */

/* ${#X} / ${#A[@]}: false when X is set but its value unknown. */
static bool length_of(sh_word *b, const word_ctx *w, const char *vname, const sh_fields *arr,
                      bool spread, bool quoted) {
  char num[32];
  if (spread) {
    snprintf(num, sizeof num, "%zu", arr ? arr->n : 0);
  } else {
    const char *v, *via;
    sm_cert cert;
    bool set = sh_var_get(b->env, vname, &v, &cert, &via);
    if (set && !sm_cert_known(cert)) return false;
    if (set) lower(b, cert, via);
    snprintf(num, sizeof num, "%zu", set ? strlen(v) : 0);
  }
  add_value(b, w, num, quoted);
  return true;
}

/* The operand of ${X:-d} / ${X:=d} (children [from, to) of n): the script's default, which
 * whoever launches the script may replace by setting X. assign: ${X:=d} also sets X. */
static char *default_operand(sh_word *b, TSNode n, uint32_t from, uint32_t to, const char *vname,
                             bool assign, bool *known) {
  sm_cert before = b->cert;
  const char *before_var = b->cert_var;
  b->cert = SM_CERT_LITERAL;
  b->cert_var = NULL;
  char *operand = expand_children_scalar(b, n, from, to, known);
  lower(b, SM_CERT_DEFAULT, vname);
  if (assign) sh_var_set(b->env, vname, operand, *known ? b->cert : SM_CERT_UNRESOLVED, b->cert_var);
  sm_cert mine = b->cert;
  const char *mine_var = b->cert_var;
  b->cert = before;
  b->cert_var = before_var;
  lower(b, mine, mine_var);
  return operand;
}

static void expand_braced(sh_word *b, const word_ctx *w, TSNode n, bool quoted) {
  sm_cert why = SM_CERT_UNRESOLVED; /* what an unresolved result rests on */
  const char *why_var = NULL;
  uint32_t nc = ts_node_child_count(n);
  TSNode name = {0};
  bool have_name = false, length = false;
  uint32_t op_index = 0;
  const char *op = NULL;
  size_t oplen = 0;
  for (uint32_t i = 0; i < nc; i++) {
    TSNode c = ts_node_child(n, i);
    bs_kind t = bs_kind_of(c);
    if (!have_name && (t == BS_VARIABLE_NAME || t == BS_SUBSCRIPT ||
                       t == BS_SPECIAL_VARIABLE_NAME)) {
      name = c;
      have_name = true;
    } else if (!ts_node_is_named(c) && t == BS_HASH && !have_name) {
      length = true;
    } else if (!ts_node_is_named(c) && t == BS_BANG && !have_name) {
      goto unresolved; /* indirection */
    } else if (have_name && !op && t != BS_RBRACE) {
      op = sh_node_src(b->file, c, &oplen);
      op_index = i;
    }
  }
  if (!have_name) goto unresolved;

  char vname[256];
  const sh_fields *arr = NULL;
  bool want_spread = false, star = false;
  long index = -1;
  if (bs_is(name, BS_SUBSCRIPT)) {
    TSNode nm = bs_child(name, BSF_NAME);
    TSNode ix = bs_child(name, BSF_INDEX);
    if (ts_node_is_null(nm) || ts_node_is_null(ix)) goto unresolved;
    sh_var_name(b->file, nm, vname, sizeof vname);
    char ixs[64];
    sh_var_name(b->file, ix, ixs, sizeof ixs);
    arr = sh_array_get(b->env, vname);
    if (!strcmp(ixs, "@") || !strcmp(ixs, "*")) {
      want_spread = true;
      star = ixs[0] == '*';
    } else if (!pd_parse_long(ixs, &index) || index < 0) {
      goto unresolved;
    }
    if (!strcmp(vname, "BASH_SOURCE") && index == 0 && b->file->path) {
      if (op) goto unresolved;
      add_value(b, w, b->file->path, quoted);
      return;
    }
  } else {
    sh_var_name(b->file, name, vname, sizeof vname);
  }

  if (length) {
    if (!length_of(b, w, vname, want_spread ? arr : NULL, want_spread, quoted)) goto unresolved;
    return;
  }

  if (want_spread) {
    if (op) goto unresolved; /* ${A[@]:-x}, ${A[@]/x/y}: rare in launch scripts */
    if (star && quoted) join_fields(b, arr);
    else add_spread(b, w, arr, quoted);
    return;
  }

  /* Current scalar value. */
  const char *val = NULL, *via = NULL;
  bool known = true, set;
  sm_cert cert = SM_CERT_LITERAL;
  if (index >= 0) {
    set = arr && (size_t)index < arr->n;
    if (set) {
      val = arr->v[index].text;
      known = arr->v[index].resolved;
      cert = arr->v[index].cert;
      via = arr->v[index].cert_var;
    }
  } else {
    set = sh_var_get(b->env, vname, &val, &cert, &via);
    known = sm_cert_known(cert);
    if (set) carry_unset(b, vname);
  }
  if (set) lower(b, cert, via);
  if (set && !known) {
    why = cert;
    why_var = via;
  }

  if (!op) {
    if (!set) { /* unset: expands to nothing */
      if (index < 0) note_unset(b, vname);
      return;
    }
    if (!known) goto unresolved;
    add_value(b, w, val, quoted);
    return;
  }

  char o[4] = {0};
  if (oplen > 2) goto unresolved;
  memcpy(o, op, oplen);
  bool colon = o[0] == ':';
  char kind = colon ? o[1] : o[0];
  bool present = set && (!colon || (val && *val) || !known);
  if (strchr("-=+?", kind) && (colon ? o[2] == 0 && o[1] : o[1] == 0)) {
    bool opknown = true;
    char *operand = NULL;
    if (kind == '-' || kind == '=') {
      if (present) {
        if (!known) goto unresolved;
        add_value(b, w, val, quoted);
        return;
      }
      operand = default_operand(b, n, op_index + 1, nc - 1, vname, kind == '=' && index < 0, &opknown);
    } else if (kind == '+') {
      if (!present) return;
      operand = expand_children_scalar(b, n, op_index + 1, nc - 1, &opknown);
    } else { /* '?': an error when unset; the value is unknown to us */
      if (!present || !known) goto unresolved;
      add_value(b, w, val, quoted);
      return;
    }
    if (!opknown) {
      size_t len;
      const char *raw = sh_node_src(b->file, n, &len);
      add_unresolved(b, raw, len);
    } else {
      add_value(b, w, operand, quoted);
    }
    free(operand);
    return;
  }

unresolved : {
  size_t len;
  const char *raw = sh_node_src(b->file, n, &len);
  add_unknown(b, raw, len, why, why_var);
}
}

/* "$@" (each argument a word), "$*" (joined by a blank), "$#": the script's arguments. */
static void positional(sh_word *b, const word_ctx *w, const sh_fields *pos, char which, bool quoted) {
  size_t n = pos ? pos->n : 0;
  if (which == '#') {
    char num[32];
    snprintf(num, sizeof num, "%zu", n);
    add_value(b, w, num, quoted);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (i && which == '@') emit(b, w->word, w->group, w->conditional);
    else if (i) pd_buf_putc(&b->cur, ' ');
    add_value(b, w, pos->v[i].text, quoted || which == '@');
  }
}

/* ---- the dispatcher ----------------------------------------------------------------------- */

static void expand_string(sh_word *b, const word_ctx *w, TSNode n) {
  uint32_t nc = ts_node_child_count(n);
  uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
  bs_kind t = bs_kind_of(n);
  uint32_t pos = start + (bs_is(n, BS_TRANSLATED_STRING) ? 2 : 1); /* past $" or " */
  uint32_t stop = end > pos ? end - 1 : pos;                        /* before the closing " */
  if (end - start < 2 || b->file->src[end - 1] != '"') stop = end;   /* unterminated */
  (void)t;
  b->have = true; /* "" is an empty field, not nothing */
  for (uint32_t i = 0; i < nc; i++) {
    TSNode c = ts_node_child(n, i);
    uint32_t cs = ts_node_start_byte(c), ce = ts_node_end_byte(c);
    if (!ts_node_is_named(c)) continue; /* the quotes themselves */
    if (cs > pos && cs <= stop) add_dq_literal(b, b->file->src + pos, cs - pos);
    if (bs_is(c, BS_STRING_CONTENT)) {
      size_t len;
      const char *s = sh_node_src(b->file, c, &len);
      add_dq_literal(b, s, len);
    } else {
      expand_node(b, w, c, true);
    }
    if (ce > pos) pos = ce;
  }
  if (stop > pos) add_dq_literal(b, b->file->src + pos, stop - pos);
}

static void expand_node(sh_word *b, const word_ctx *w, TSNode n, bool quoted) {
  if (b->depth > MAX_DEPTH) {
    size_t len;
    const char *raw = sh_node_src(b->file, n, &len);
    add_unresolved(b, raw, len);
    return;
  }
  b->depth++;
  bs_kind t = bs_kind_of(n);
  size_t len;
  const char *s = sh_node_src(b->file, n, &len);
  if (t == BS_WORD || t == BS_NUMBER || t == BS_COMMAND_NAME ||
      t == BS_VARIABLE_NAME || t == BS_REGEX || t == BS_EXTGLOB_PATTERN) {
    if (quoted) pd_buf_append(&b->cur, s, len), b->have = true;
    else add_word_literal(b, s, len);
  } else if (t == BS_RAW_STRING) {
    if (len >= 2 && s[len - 1] == '\'') pd_buf_append(&b->cur, s + 1, len - 2);
    else if (len >= 1) pd_buf_append(&b->cur, s + 1, len - 1); /* unterminated */
    b->have = true;
  } else if (t == BS_ANSI_C_STRING) {
    size_t a = len >= 2 ? 2 : len, z = (len > 2 && s[len - 1] == '\'') ? len - 1 : len;
    for (size_t i = a; i < z; i++) {
      char c = s[i];
      if (c == '\\' && i + 1 < z) {
        char e = s[++i];
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      }
      pd_buf_putc(&b->cur, c);
    }
    b->have = true;
  } else if (t == BS_STRING || t == BS_TRANSLATED_STRING) {
    expand_string(b, w, n);
  } else if (t == BS_CONCATENATION) {
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) expand_node(b, w, ts_node_child(n, i), quoted);
  } else if (t == BS_SIMPLE_EXPANSION) {
    TSNode v = ts_node_named_child(n, 0);
    char name[256];
    if (ts_node_is_null(v)) {
      add_unresolved(b, s, len);
    } else {
      sh_var_name(b->file, v, name, sizeof name);
      const char *val;
      const char *via;
      sm_cert cert;
      const sh_fields *pos = sh_array_get(b->env, SH_POSITIONAL);
      if (!strcmp(name, "@") || !strcmp(name, "*") || !strcmp(name, "#")) {
        positional(b, w, pos, name[0], quoted);
      } else if (isdigit((unsigned char)name[0]) && name[1] == '\0' && name[0] != '0') {
        size_t k = (size_t)(name[0] - '1');
        if (pos && k < pos->n) add_value(b, w, pos->v[k].text, quoted);
      } else if (sh_var_get(b->env, name, &val, &cert, &via)) {
        if (sm_cert_known(cert)) add_value(b, w, val, quoted);
        else add_unknown(b, s, len, cert, via);
        lower(b, cert, via);
        carry_unset(b, name);
      } else if (isdigit((unsigned char)name[0]) || strchr("?$!-", name[0])) {
        add_unresolved(b, s, len);
      } else {
        note_unset(b, name);
      }
    }
  } else if (t == BS_EXPANSION) {
    expand_braced(b, w, n, quoted);
  } else if (t == BS_ARITHMETIC_EXPANSION) {
    long long v = 0;
    sm_cert cert;
    const char *via = NULL;
    bool ok = ts_node_named_child_count(n) == 1 &&
              sh_arith_eval(b->env, b->file, ts_node_named_child(n, 0), &v, &cert, &via);
    if (ok) {
      lower(b, cert, via);
      char num[32];
      snprintf(num, sizeof num, "%lld", v);
      add_value(b, w, num, quoted);
    } else {
      add_unresolved(b, s, len);
    }
  } else if (t == BS_COMMAND_SUBSTITUTION) {
    char *out = eval_subst(b, n);
    if (out) {
      add_value(b, w, out, quoted);
    } else { /* a command we do not run: its output is unknown */
      add_unknown(b, s, len, SM_CERT_COMMAND, NULL);
    }
    free(out);
  } else if (!ts_node_is_named(n)) {
    /* punctuation inside a concatenation, e.g. a lone `$` */
    if (quoted) pd_buf_append(&b->cur, s, len), b->have = true;
    else add_word_literal(b, s, len);
  } else {
    add_unresolved(b, s, len);
  }
  b->depth--;
}

/* True when the word is exactly "${A[@]}", ${A[@]} or "$@" (nothing else); *arr is the array
 * (NULL when never defined; "$@" counts as an empty, defined one). */
static bool lone_spread(sh_env *e, const sh_file *f, TSNode node, const sh_fields **arr,
                        bool *defined) {
  TSNode x = node;
  if (bs_is(x, BS_STRING)) {
    if (ts_node_named_child_count(x) != 1 || ts_node_child_count(x) != 3) return false;
    x = ts_node_named_child(x, 0);
  }
  bool in_quotes = bs_is(node, BS_STRING);
  char name[256], idx[8];
  if (bs_is(x, BS_SIMPLE_EXPANSION)) {
    TSNode v = ts_node_named_child(x, 0);
    if (ts_node_is_null(v)) return false;
    sh_var_name(f, v, name, sizeof name);
    if (strcmp(name, "@") != 0 && strcmp(name, "*") != 0) return false;
    const sh_fields *pos = sh_array_get(e, SH_POSITIONAL);
    if (pos && pos->n) return false; /* expanded word by word, at this word's place */
    *arr = NULL;
    *defined = true;
    return true;
  }
  if (!bs_is(x, BS_EXPANSION) || ts_node_child_count(x) != 3) return false;
  TSNode sub = ts_node_child(x, 1);
  if (!bs_is(sub, BS_SUBSCRIPT)) return false;
  TSNode nm = bs_child(sub, BSF_NAME);
  TSNode ix = bs_child(sub, BSF_INDEX);
  if (ts_node_is_null(nm) || ts_node_is_null(ix)) return false;
  sh_var_name(f, nm, name, sizeof name);
  sh_var_name(f, ix, idx, sizeof idx);
  if (strcmp(idx, "@") != 0 && (strcmp(idx, "*") != 0 || in_quotes)) return false;
  *arr = sh_array_get(e, name);
  *defined = *arr != NULL;
  return true;
}

static sh_field *push_marker(sh_env *e, sh_fields *out, const sh_file *f, TSNode node, const char *group,
                             bool conditional) {
  sh_field *v = PD_PUSH(out->v, out->n, out->cap);
  memset(v, 0, sizeof *v);
  size_t len = 0;
  const char *raw = sh_node_src(f, node, &len);
  v->text = sh_intern(e, raw, len);
  v->vanished = true;
  v->file = f->file;
  v->range = sh_node_range(node);
  v->group = group;
  v->conditional = conditional;
  return v;
}

void sh_expand(sh_env *e, const sh_file *f, TSNode node, const char *group, bool conditional,
               sh_fields *out) {
  /* A lone spread keeps each element's own origin (file, line, group, NOTE). */
  bool defined = false;
  const sh_fields *arr = NULL;
  if (lone_spread(e, f, node, &arr, &defined)) {
    /* A+=("${A[@]}"): the source may be the array being filled, which pushing reallocates. */
    size_t n = arr ? arr->n : 0;
    for (size_t i = 0; i < n; i++) {
      sh_field tmp = arr->v[i];
      sh_fields_push(out, &tmp);
    }
    if (!defined) push_marker(e, out, f, node, group, conditional)->undefined_array = true;
    return;
  }

  sh_word b = SH_WORD(e, f, out);
  word_ctx w = {node, group, conditional};
  size_t before = out->n;
  expand_node(&b, &w, node, false);
  if (b.have || b.cur.len) emit(&b, node, group, conditional);
  pd_buf_free(&b.cur);

  /* An unquoted plain $VAR / ${VAR} that vanished: record it so a flag that swallowed the next
   * token can be reported. */
  if (out->n == before && (bs_is(node, BS_SIMPLE_EXPANSION) ||
                           (bs_is(node, BS_EXPANSION) &&
                            ts_node_child_count(node) == 3 &&
                            bs_is(ts_node_child(node, 1), BS_VARIABLE_NAME))))
    push_marker(e, out, f, node, group, conditional);
}

char *sh_expand_scalar(sh_env *e, const sh_file *f, TSNode node, sm_cert *cert,
                       const char **cert_var) {
  return sh_expand_scalar_unset(e, f, node, cert, cert_var, NULL);
}

char *sh_expand_scalar_unset(sh_env *e, const sh_file *f, TSNode node, sm_cert *cert,
                             const char **cert_var, const char **unset_var) {
  sh_fields tmp = {0};
  sh_word b = SH_WORD(e, f, &tmp);
  word_ctx w = {node, NULL, false};
  expand_node(&b, &w, node, true);
  pd_buf joined = {0};
  for (size_t i = 0; i < tmp.n; i++) {
    pd_buf_puts(&joined, tmp.v[i].text);
    pd_buf_putc(&joined, ' ');
    if (!tmp.v[i].resolved) lower(&b, SM_CERT_UNRESOLVED, NULL);
    lower(&b, tmp.v[i].cert, tmp.v[i].cert_var);
  }
  if (!b.resolved) lower(&b, SM_CERT_UNRESOLVED, NULL);
  pd_buf_append(&joined, b.cur.data ? b.cur.data : "", b.cur.len);
  if (unset_var) {
    *unset_var = b.unset_var;
    for (size_t i = 0; i < tmp.n && !*unset_var; i++) *unset_var = tmp.v[i].unset_var;
  }
  pd_buf_free(&b.cur);
  sh_fields_free(&tmp);
  *cert = b.cert;
  if (cert_var) *cert_var = b.cert_var;
  return pd_buf_take(&joined);
}
