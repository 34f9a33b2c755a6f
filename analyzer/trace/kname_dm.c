/* kname_dm: tr_kname_demangle (trace/kname.h), a demangler for the Itanium C++ ABI names of GPU
 * kernels (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling). It reads the <name> of
 * the encoding: nested and unscoped names, source names, the anonymous namespace, template
 * arguments (types, literals, packs), substitutions (S_, S<seq>_, St, Sa, Sb, Ss, ...) and template
 * parameters (T_), and builds the substitution table the way the ABI numbers it. It stops at the
 * function's parameter types, which a short name never shows. Anything else (expressions, local
 * names, function, array and member-pointer types, operator names) fails the whole name. */
#include "trace/kname.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DM_DEPTH 96        /* nesting of names and types */
#define DM_OUT (64 * 1024) /* a demangled name longer than this is not worth reading */

typedef struct {
  const char *p;
  char **subs; /* substitution candidates, in the ABI's order */
  size_t nsubs, capsubs;
  char **targs; /* the template arguments T_ refers to (the last top-level list) */
  size_t ntargs;
  int depth, tdepth; /* recursion; template-argument nesting */
  bool bad;
} dm;

static bool dm_type(dm *d, pd_buf *b);
static bool dm_name(dm *d, pd_buf *b, bool as_type);

static bool fail(dm *d) {
  d->bad = true;
  return false;
}

static void add_sub(dm *d, const pd_buf *b, size_t from) {
  *PD_PUSH(d->subs, d->nsubs, d->capsubs) = pd_xstrndup(b->data ? b->data + from : "", b->len - from);
}

static bool enter(dm *d) {
  if (++d->depth > DM_DEPTH) return fail(d);
  return true;
}

static bool source_name(dm *d, pd_buf *b) {
  if (!isdigit((unsigned char)*d->p)) return fail(d);
  size_t n = 0;
  while (isdigit((unsigned char)*d->p)) {
    n = n * 10 + (size_t)(*d->p++ - '0');
    if (n > DM_OUT) return fail(d);
  }
  if (strnlen(d->p, n) < n) return fail(d);
  if (n >= 10 && !strncmp(d->p, "_GLOBAL__N", 10)) pd_buf_puts(b, "(anonymous namespace)");
  else pd_buf_append(b, d->p, n);
  d->p += n;
  return true;
}

/* S_ S0_ ... SZ_ S10_ ...: index into the candidates; St / Sa / Sb / Ss / Si / So / Sd. */
static bool substitution(dm *d, pd_buf *b, bool *plain) {
  d->p++; /* 'S' */
  *plain = true;
  static const struct {
    char c;
    const char *text;
  } abbr[] = {{'a', "std::allocator"}, {'b', "std::basic_string"}, {'s', "std::string"},
              {'i', "std::istream"},   {'o', "std::ostream"},      {'d', "std::iostream"}};
  for (size_t i = 0; i < sizeof abbr / sizeof *abbr; i++)
    if (*d->p == abbr[i].c) {
      d->p++;
      pd_buf_puts(b, abbr[i].text);
      return true;
    }
  if (*d->p == 't') { /* std:: + an unqualified name, itself a candidate */
    d->p++;
    *plain = false;
    pd_buf_puts(b, "std::");
    return source_name(d, b);
  }
  size_t idx = 0;
  if (*d->p != '_') {
    size_t seq = 0;
    while (isdigit((unsigned char)*d->p) || isupper((unsigned char)*d->p)) {
      seq = seq * 36 + (size_t)(isdigit((unsigned char)*d->p) ? *d->p - '0' : *d->p - 'A' + 10);
      if (seq > 1u << 20) return fail(d);
      d->p++;
    }
    idx = seq + 1;
  }
  if (*d->p++ != '_' || idx >= d->nsubs) return fail(d);
  pd_buf_puts(b, d->subs[idx]);
  return true;
}

/* T_ T0_ ...: the template argument it names. */
static bool template_param(dm *d, pd_buf *b) {
  d->p++; /* 'T' */
  size_t idx = 0;
  if (*d->p != '_') {
    size_t n = 0;
    while (isdigit((unsigned char)*d->p)) n = n * 10 + (size_t)(*d->p++ - '0');
    idx = n + 1;
  }
  if (*d->p++ != '_' || idx >= d->ntargs) return fail(d);
  pd_buf_puts(b, d->targs[idx]);
  return true;
}

/* L <type> <number> E: an integer, bool or enum literal, as c++filt writes it. */
static bool literal(dm *d, pd_buf *b) {
  d->p++; /* 'L' */
  if (*d->p == '_' && d->p[1] == 'Z') return fail(d); /* an external name: not read */
  static const struct {
    char c;
    const char *suffix;
  } ints[] = {{'i', ""}, {'j', "u"}, {'l', "l"}, {'m', "ul"}, {'x', "ll"}, {'y', "ull"}};
  const char *suffix = NULL;
  bool is_bool = *d->p == 'b';
  for (size_t i = 0; i < sizeof ints / sizeof *ints && !is_bool; i++)
    if (*d->p == ints[i].c) suffix = ints[i].suffix;
  pd_buf ty = {0};
  if (is_bool || suffix) d->p++;
  else if (!dm_type(d, &ty)) {
    pd_buf_free(&ty);
    return false;
  }
  bool neg = *d->p == 'n';
  if (neg) d->p++;
  const char *num = d->p;
  while (isdigit((unsigned char)*d->p)) d->p++;
  size_t len = (size_t)(d->p - num);
  if (*d->p++ != 'E' || !len) {
    pd_buf_free(&ty);
    return fail(d);
  }
  if (is_bool && len == 1 && (*num == '0' || *num == '1')) pd_buf_puts(b, *num == '1' ? "true" : "false");
  else {
    if (!suffix) pd_buf_printf(b, "(%s)", is_bool ? "bool" : ty.data ? ty.data : "");
    if (neg) pd_buf_putc(b, '-');
    pd_buf_append(b, num, len);
    if (suffix) pd_buf_puts(b, suffix);
  }
  pd_buf_free(&ty);
  return true;
}

typedef struct {
  char **v;
  size_t n, cap;
} strs;

/* One template argument (a pack gives zero or more). */
static bool template_arg(dm *d, strs *out) {
  if (*d->p == 'J') {
    d->p++;
    while (*d->p != 'E')
      if (!*d->p || !template_arg(d, out)) return fail(d);
    d->p++;
    return true;
  }
  if (*d->p == 'X') return fail(d); /* expressions: not read */
  pd_buf a = {0};
  bool ok = *d->p == 'L' ? literal(d, &a) : dm_type(d, &a);
  if (!ok) {
    pd_buf_free(&a);
    return false;
  }
  *PD_PUSH(out->v, out->n, out->cap) = a.data ? pd_buf_take(&a) : pd_xstrdup("");
  return true;
}

static void strs_free(strs *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
}

/* I <arg>+ E, appended as "<a, b>". A list at the top level becomes what T_ refers to. */
static bool template_args(dm *d, pd_buf *b) {
  d->p++; /* 'I' */
  d->tdepth++;
  strs args = {0};
  while (*d->p != 'E')
    if (!*d->p || !template_arg(d, &args)) {
      strs_free(&args);
      return fail(d);
    }
  d->p++;
  d->tdepth--;
  pd_buf_putc(b, '<');
  for (size_t i = 0; i < args.n; i++) pd_buf_printf(b, "%s%s", i ? ", " : "", args.v[i]);
  pd_buf_putc(b, '>');
  if (d->tdepth == 0) {
    for (size_t i = 0; i < d->ntargs; i++) free(d->targs[i]);
    free(d->targs);
    d->targs = args.v;
    d->ntargs = args.n;
  } else {
    strs_free(&args);
  }
  return true;
}

/* N [CV] [ref] <prefix>... <unqualified> E. Each prefix (and template prefix, template id) that
 * more components follow is a candidate; the whole name is one only as a type (the caller's). */
static bool nested(dm *d, pd_buf *b) {
  d->p++; /* 'N' */
  while (*d->p && strchr("rVK", *d->p)) d->p++;
  if (*d->p == 'R' || *d->p == 'O') d->p++;
  size_t from = b->len;
  bool first = true;
  while (*d->p != 'E') {
    char c = *d->p;
    bool plain = false;
    if (c == 'I') {
      if (first || !template_args(d, b)) return fail(d);
    } else if (c == 'S' && first) {
      if (!substitution(d, b, &plain)) return false;
    } else if (c == 'T' && first) {
      if (!template_param(d, b)) return false;
    } else if (isdigit((unsigned char)c) || c == 'L') {
      if (c == 'L') d->p++; /* internal linkage */
      if (!first) pd_buf_puts(b, "::");
      if (!source_name(d, b)) return false;
    } else {
      return fail(d); /* ctor/dtor, operator names, local names, decltype: not read */
    }
    first = false;
    if (*d->p != 'E' && !plain) add_sub(d, b, from);
  }
  d->p++;
  return !first || fail(d);
}

static bool dm_name(dm *d, pd_buf *b, bool as_type) {
  if (!enter(d)) return false;
  size_t from = b->len;
  bool ok;
  if (*d->p == 'N') {
    ok = nested(d, b);
  } else {
    bool plain = false;
    if (*d->p == 'S') ok = substitution(d, b, &plain);
    else {
      if (*d->p == 'L') d->p++;
      ok = source_name(d, b);
    }
    if (ok && *d->p == 'I') { /* an unscoped template name is a candidate, a plain substitution already is */
      if (!plain) add_sub(d, b, from);
      ok = template_args(d, b);
    } else if (ok && plain) {
      as_type = false; /* already a candidate */
    }
  }
  if (ok && as_type) add_sub(d, b, from);
  d->depth--;
  return ok;
}

static const struct {
  char c;
  const char *name;
} builtins[] = {{'v', "void"},          {'w', "wchar_t"},        {'b', "bool"},         {'c', "char"},
                {'a', "signed char"},   {'h', "unsigned char"},  {'s', "short"},        {'t', "unsigned short"},
                {'i', "int"},           {'j', "unsigned int"},   {'l', "long"},         {'m', "unsigned long"},
                {'x', "long long"},     {'y', "unsigned long long"}, {'n', "__int128"}, {'o', "unsigned __int128"},
                {'f', "float"},         {'d', "double"},         {'e', "long double"},  {'g', "__float128"},
                {'z', "..."}};

/* A type, appended to b; candidates added as the ABI says (qualified and pointer types, class
 * names, template ids; not builtins). */
static bool dm_type(dm *d, pd_buf *b) {
  if (!enter(d)) return false;
  size_t from = b->len;
  char c = *d->p;
  bool ok = true;
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
    if (c == builtins[i].c) {
      d->p++;
      pd_buf_puts(b, builtins[i].name);
      d->depth--;
      return true;
    }
  if (c == 'D' && (d->p[1] == 'h' || d->p[1] == 'n' || d->p[1] == 'a' || d->p[1] == 'c')) {
    pd_buf_puts(b, d->p[1] == 'h' ? "half" : d->p[1] == 'n' ? "decltype(nullptr)" : d->p[1] == 'a' ? "auto" : "decltype(auto)");
    d->p += 2;
  } else if (c == 'D' && d->p[1] == 'F' && isdigit((unsigned char)d->p[2])) {
    d->p += 2;
    pd_buf_puts(b, "_Float");
    while (isdigit((unsigned char)*d->p)) pd_buf_putc(b, *d->p++);
    ok = *d->p++ == '_' || fail(d);
  } else if (c == 'D' && d->p[1] == 'p') { /* pack expansion */
    d->p += 2;
    ok = dm_type(d, b);
    if (ok) pd_buf_puts(b, "...");
    if (ok) add_sub(d, b, from);
  } else if (c && strchr("PROKVr", c)) {
    d->p++;
    ok = dm_type(d, b);
    static const char *const suffix[] = {"*", "&", "&&", " const", " volatile", " restrict"};
    if (ok) pd_buf_puts(b, suffix[strchr("PROKVr", c) - "PROKVr"]);
    if (ok) add_sub(d, b, from);
  } else if (c == 'u') {
    d->p++;
    ok = source_name(d, b);
    if (ok) add_sub(d, b, from);
  } else if (c == 'T') {
    ok = template_param(d, b);
    if (ok) add_sub(d, b, from);
    if (ok && *d->p == 'I') {
      ok = template_args(d, b);
      if (ok) add_sub(d, b, from);
    }
  } else if (c == 'N' || c == 'S' || c == 'L' || isdigit((unsigned char)c)) {
    ok = dm_name(d, b, true);
  } else {
    ok = fail(d); /* function, array, member-pointer, vector, decltype types: not read */
  }
  d->depth--;
  return ok;
}

char *tr_kname_demangle(const char *name) {
  if (!name || strncmp(name, "_Z", 2) != 0) return NULL;
  dm d = {.p = name + 2};
  pd_buf b = {0};
  bool ok = (*d.p == 'N' || *d.p == 'S' || isdigit((unsigned char)*d.p)) && dm_name(&d, &b, false) && !d.bad &&
            b.len <= DM_OUT;
  for (size_t i = 0; i < d.nsubs; i++) free(d.subs[i]);
  free(d.subs);
  for (size_t i = 0; i < d.ntargs; i++) free(d.targs[i]);
  free(d.targs);
  if (!ok || !b.len) {
    pd_buf_free(&b);
    return NULL;
  }
  return pd_buf_take(&b);
}
