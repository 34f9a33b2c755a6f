/* trace_kname: kernel names shortened for people (see kname.h). The demangler is kname_dm.c. */
#include "trace/kname.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COMPACT_MAX 110 /* characters of a compact form: room is left for a distinguishing part */
#define PLAIN_KEEP 100  /* a vendor name (one identifier) up to this long is kept whole */
#define ARGS_WHOLE 48   /* template arguments this short are shown whole ... */
#define W_ARGS 36       /* ... and a functor's own */
#define FRAG 36         /* the part of a full name that tells it from its look-alikes */
#define MAX_DEPTH 64    /* brackets followed; deeper text is copied as it is */

static const char ELL[] = "\xe2\x80\xa6"; /* … */

static bool idch(char c) { return isalnum((unsigned char)c) || c == '_'; }
static bool opener(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
static char closer_of(char c) { return c == '<' ? '>' : c == '(' ? ')' : c == '{' ? '}' : ']'; }
static bool closer(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }
/* '>' of "->" is text, not a bracket */
static bool arrow(const char *s, size_t i) { return s[i] == '>' && i > 0 && s[i - 1] == '-'; }

static bool starts(const char *s, size_t n, const char *lit) {
  size_t k = strlen(lit);
  return n >= k && !memcmp(s, lit, k);
}

size_t tr_kname_chars(const char *s) {
  size_t k = 0;
  for (; *s; s++) k += ((unsigned char)*s & 0xC0) != 0x80;
  return k;
}

/* The index of the bracket closing s[i], or n when it is not closed (or crosses another kind). */
static size_t match(const char *s, size_t n, size_t i) {
  char want[MAX_DEPTH];
  int d = 0;
  for (size_t j = i; j < n; j++) {
    char c = s[j];
    if (opener(c)) {
      if (d == MAX_DEPTH) return n;
      want[d++] = closer_of(c);
    } else if (closer(c) && !arrow(s, j)) {
      if (!d || want[d - 1] != c) return n;
      if (--d == 0) return j;
    }
  }
  return n;
}

static bool balanced(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (closer(s[i]) && !arrow(s, i)) return false;
    if (opener(s[i])) {
      size_t j = match(s, n, i);
      if (j >= n) return false;
      i = j;
    }
  }
  return true;
}

/* The name with the anonymous namespaces gone, white space single, "> >" as ">>". */
static char *normalize(const char *name) {
  pd_buf b = {0};
  for (const char *p = name; *p;) {
    if (!strncmp(p, "(anonymous namespace)::", 23)) p += 23;
    else if (!strncmp(p, "`anonymous namespace'::", 23)) p += 23;
    else if (isspace((unsigned char)*p)) {
      while (isspace((unsigned char)*p)) p++;
      if (b.len && *p && *p != '>') pd_buf_putc(&b, ' ');
    } else pd_buf_putc(&b, *p++);
  }
  return b.data ? pd_buf_take(&b) : pd_xstrdup("");
}

/* Appends s[0..n) without namespace qualifiers ("at::native::MulFunctor" -> "MulFunctor"), with
 * each lambda as its owner and parameter types ("f(at::TensorIteratorBase&)::{lambda()#2}::
 * operator()() const::{lambda(float)#1}" -> "f{lambda(float)}") and no space before '>'. */
static void simp(const char *s, size_t n, pd_buf *o) {
  for (size_t i = 0; i < n;) {
    char c = s[i];
    if (idch(c) && (i == 0 || !idch(s[i - 1]))) {
      size_t j = i;
      while (j < n && idch(s[j])) j++;
      if (j + 2 < n && s[j] == ':' && s[j + 1] == ':' && (idch(s[j + 2]) || s[j + 2] == '~') &&
          !starts(s + j + 2, n - j - 2, "operator")) {
        i = j + 2; /* a qualifier */
        continue;
      }
      pd_buf_append(o, s + i, j - i);
      i = j;
    } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      if (starts(s + i + 2, n - i - 2, "operator()")) { /* a call operator's scope: nothing a reader needs */
        size_t j = i + 12;
        if (j < n && s[j] == '<') j = match(s, n, j) + 1;
        if (j < n && s[j] == '(') j = match(s, n, j) + 1;
        if (j < n && starts(s + j, n - j, " const")) j += 6;
        i = j < n ? j : n;
      } else if (i + 2 < n && s[i + 2] == '{') {
        i += 2;
      } else {
        pd_buf_append(o, "::", 2);
        i += 2;
      }
    } else if (c == '{' && starts(s + i, n - i, "{lambda(")) {
      size_t pe = match(s, n, i + 7), ce = match(s, n, i);
      if (pe < ce && ce < n) {
        if (pe > i + 8) {
          pd_buf_puts(o, "{lambda(");
          simp(s + i + 8, pe - i - 8, o);
          pd_buf_puts(o, ")}");
        }
        i = ce + 1;
      } else {
        pd_buf_putc(o, c);
        i++;
      }
    } else if (c == '(' && match(s, n, i) < n &&
               (starts(s + match(s, n, i) + 1, n - match(s, n, i) - 1, "::{") ||
                starts(s + match(s, n, i) + 1, n - match(s, n, i) - 1, "::operator"))) {
      i = match(s, n, i) + 1; /* the parameters of the function a lambda is defined in */
    } else if (c == ' ' && i + 1 < n && s[i + 1] == '>') {
      i++;
    } else {
      pd_buf_putc(o, c);
      i++;
    }
  }
}

static char *simp_str(const char *s, size_t n) {
  pd_buf o = {0};
  simp(s, n, &o);
  return o.data ? pd_buf_take(&o) : pd_xstrdup("");
}

/* ---- cutting ---- */

char *tr_kname_cap(const char *text, size_t max) {
  if (tr_kname_chars(text) <= max) return pd_xstrdup(text);
  char stack[MAX_DEPTH], best_stack[MAX_DEPTH];
  int depth = 0, best_depth = 0;
  size_t chars = 0, best = 0, fallback = 0;
  for (size_t i = 0; text[i]; i++) {
    char c = text[i];
    bool lead = ((unsigned char)c & 0xC0) != 0x80;
    if (lead) {
      if (chars + 1 > max) break;
      if (chars + 1 <= max - 1) fallback = i; /* a character boundary that leaves room for "…" */
    }
    if (opener(c) && depth < MAX_DEPTH) stack[depth++] = closer_of(c);
    else if (closer(c) && !arrow(text, i) && depth > 0) depth--;
    chars += lead;
    bool boundary = opener(c) || c == '_' || c == ':' || c == ' ';
    if (boundary && chars + 1 + (size_t)depth <= max) {
      best = i + 1;
      best_depth = depth;
      memcpy(best_stack, stack, (size_t)depth);
    }
  }
  pd_buf b = {0};
  if (best) {
    pd_buf_append(&b, text, best);
    pd_buf_puts(&b, ELL);
    for (int d = best_depth - 1; d >= 0; d--) pd_buf_putc(&b, best_stack[d]);
  } else {
    pd_buf_append(&b, text, fallback);
    pd_buf_puts(&b, ELL);
  }
  return pd_buf_take(&b);
}

static bool has_shape(const char *s, size_t n) {
  for (size_t i = 1; i + 1 < n; i++)
    if (s[i] == 'x' && isdigit((unsigned char)s[i - 1]) && isdigit((unsigned char)s[i + 1])) return true;
  return false;
}

/* A vendor name: whole up to PLAIN_KEEP characters, else cut after its last tile-shape part
 * ("MT128x128x32", "tilesize64x64x64") that ends by then, else at an underscore. */
static char *plain_short(const char *s, size_t n) {
  if (n <= PLAIN_KEEP) return pd_xstrndup(s, n);
  size_t cut = 0, last_us = 0;
  for (size_t i = 0, tb = 0; i <= n && i <= PLAIN_KEEP; i++)
    if (i == n || s[i] == '_') {
      if (has_shape(s + tb, i - tb)) cut = i;
      if (i > 0) last_us = i;
      tb = i + 1;
    }
  if (!cut) cut = last_us ? last_us : PLAIN_KEEP;
  char *head = pd_xstrndup(s, cut), *out = pd_xasprintf("%s%s", head, ELL);
  free(head);
  return out;
}

static bool is_identifier(const char *s, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (!idch(s[i])) return false;
  return true;
}

/* ---- the parts of a signature ---- */

typedef struct {
  const char *s;
  size_t n;
  size_t pb, pe;       /* the parameter list, when pe > pb (or has_params) */
  bool has_params;
  size_t ib, ie;       /* the kernel's own identifier */
  size_t tb, te;       /* its template arguments, when has_targs */
  bool has_targs;
  size_t qb, qe;       /* the qualifier before it ("gemvx" of "internal::gemvx::kernel") */
} sig;

/* Whether what follows a parameter list can end a signature: nothing, or qualifiers. */
static bool tail_ok(const char *s, size_t n) {
  while (n && (s[0] == ' ' || s[0] == '&')) s++, n--;
  return !n || starts(s, n, "const") || starts(s, n, "volatile") || starts(s, n, "noexcept");
}

/* The segment [b, e) without a trailing "(…)" (the function a lambda is defined in). */
static size_t seg_end(const char *s, size_t b, size_t e) {
  for (size_t i = b; i < e; i++) {
    if (s[i] == '(') return i;
    if (opener(s[i])) {
      size_t j = match(s, e, i);
      if (j >= e) return e;
      i = j;
    }
  }
  return e;
}

static bool parse_sig(const char *s, size_t n, sig *g) {
  memset(g, 0, sizeof *g);
  g->s = s;
  g->n = n;
  size_t ne = n, nb = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == ' ') nb = i + 1;
    if (!opener(s[i])) continue;
    size_t j = match(s, n, i);
    if (j >= n) return false;
    if (s[i] == '(' && i > nb && tail_ok(s + j + 1, n - j - 1)) {
      ne = i;
      g->has_params = true;
      g->pb = i + 1;
      g->pe = j;
      break;
    }
    i = j;
  }
  /* segments at depth 0, split at "::"; the last that is not a lambda or an operator */
  size_t segs[2][2] = {{0, 0}, {0, 0}}; /* [0] the chosen segment, [1] the one before it */
  bool have = false;
  for (size_t b = nb, i = nb; i <= ne; i++) {
    if (i < ne && opener(s[i])) {
      size_t j = match(s, ne, i);
      if (j >= ne) return false;
      i = j;
      continue;
    }
    if (i == ne || (s[i] == ':' && i + 1 < ne && s[i + 1] == ':')) {
      if (i > b && s[b] != '{' && !starts(s + b, i - b, "operator")) {
        if (have) memcpy(segs[1], segs[0], sizeof segs[0]);
        segs[0][0] = b;
        segs[0][1] = seg_end(s, b, i);
        have = true;
      }
      b = i + 2;
      i++;
    }
  }
  if (!have) return false;
  size_t b = segs[0][0], e = segs[0][1];
  g->ib = b;
  g->ie = e;
  for (size_t i = b; i < e; i++)
    if (s[i] == '<') {
      size_t j = match(s, e, i);
      if (j >= e) return false;
      g->ie = i;
      g->has_targs = true;
      g->tb = i + 1;
      g->te = j;
      break;
    }
  g->qb = segs[1][0];
  g->qe = segs[1][1];
  for (size_t i = g->qb; i < g->qe; i++)
    if (s[i] == '<') g->qe = i;
  return g->ie > g->ib;
}

/* ---- what the template arguments say ---- */

static const char *const PLUMBING[] = {
    "gpu_kernel_impl", "gpu_kernel_impl_nocast", "gpu_index_kernel", "AUnaryFunctor", "BUnaryFunctor", "BinaryFunctor",
    "UnaryFunctor", "func_wrapper_t", "ReduceOp", "OpaqueType", "TensorListMetadata", "TrivialOffsetCalculator",
    "OffsetCalculator", "LoadWithCast", "StoreWithCast", "LoadWithoutCast", "StoreWithoutCast", "Array", "array",
    "GenericPackedTensorAccessor", "TensorInfo", "RestrictPtrTraits", "DefaultPtrTraits", "integral_constant",
    "Sequence", "Tuple", "TensorDescriptor"};
static const char *const STD_OPS[] = {"multiplies", "plus", "minus", "divides", "maximum", "minimum", "TensorAssign",
                                      "ReduceAdd", "ReduceMultiply", "ReduceMean", "ReduceMaximum", "ReduceMinimum"};

static bool in_list(const char *s, size_t n, const char *const *list, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (strlen(list[i]) == n && !memcmp(s, list[i], n)) return true;
  return false;
}

static bool contains(const char *s, size_t n, const char *lit) {
  size_t k = strlen(lit);
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(s + i, lit, k)) return true;
  return false;
}

static bool ends(const char *s, size_t n, const char *lit) {
  size_t k = strlen(lit);
  return n >= k && !memcmp(s + n - k, lit, k);
}

enum { W_NONE, W_OP, W_SHAPE };

/* Whether an identifier in the template arguments says what the kernel does (W_OP: a functor,
 * a reduction's ops, an op a lambda belongs to, a GEMM or convolution) or its tile (W_SHAPE). */
static int classify(const char *id, size_t n, bool owner, bool numeric_args) {
  if (in_list(id, n, PLUMBING, sizeof PLUMBING / sizeof *PLUMBING)) return W_NONE;
  if (owner) return W_OP;
  if (ends(id, n, "Shape")) return numeric_args ? W_SHAPE : W_NONE;
  if (contains(id, n, "Functor") || contains(id, n, "functor") || ends(id, n, "Ops") || ends(id, n, "Op") ||
      contains(id, n, "kernel") || contains(id, n, "Kernel") || contains(id, n, "traits") || contains(id, n, "Gemm") ||
      contains(id, n, "gemm") || contains(id, n, "Conv") || contains(id, n, "conv"))
    return W_OP;
  return in_list(id, n, STD_OPS, sizeof STD_OPS / sizeof *STD_OPS) ? W_OP : W_NONE;
}

static bool numeric(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && s[i] == '-') i++;
  size_t d = i;
  while (i < n && isdigit((unsigned char)s[i])) i++;
  if (i == d) return false;
  while (i < n && strchr("ulUL", s[i])) i++;
  return i == n;
}

/* The top-level arguments of a template argument list t[0..n): spans, at most 64. */
static size_t split_args(const char *t, size_t n, size_t (*out)[2], size_t max) {
  size_t k = 0, b = 0;
  for (size_t i = 0; i <= n && k < max; i++) {
    if (i < n && opener(t[i])) {
      size_t j = match(t, n, i);
      i = j < n ? j : n - 1;
      continue;
    }
    if (i == n || t[i] == ',') {
      size_t s = b, e = i;
      while (s < e && t[s] == ' ') s++;
      out[k][0] = s;
      out[k][1] = e;
      k++;
      b = i + 1;
    }
  }
  return k;
}

/* name<args> of a functor or tile: whole args when short, else the first run of numbers
 * ("<64, 128, 128, 4, …>", "<…128, 16, 32, 64…>"), else "<…>". */
static void w_text(pd_buf *o, const char *t, size_t ib, size_t ie, size_t ab, size_t ae, bool with_args) {
  pd_buf_append(o, t + ib, ie - ib);
  if (ae <= ab && !(ab && t[ab - 1] == '<')) return;
  if (!with_args) {
    pd_buf_printf(o, "<%s>", ELL);
    return;
  }
  if (ae - ab <= W_ARGS && !memchr(t + ab, '{', ae - ab)) {
    pd_buf_putc(o, '<');
    pd_buf_append(o, t + ab, ae - ab);
    pd_buf_putc(o, '>');
    return;
  }
  size_t a[64][2], k = split_args(t + ab, ae - ab, a, 64), run = 0, first = 0;
  for (size_t i = 0; i < k && !run; i++) {
    size_t j = i;
    while (j < k && j - i < 4 && numeric(t + ab + a[j][0], a[j][1] - a[j][0])) j++;
    if (j > i && (i == 0 || j - i >= 2)) first = i, run = j - i;
  }
  pd_buf_putc(o, '<');
  if (first) pd_buf_puts(o, ELL);
  for (size_t i = first; i < first + run; i++) {
    pd_buf_puts(o, i > first ? ", " : "");
    pd_buf_append(o, t + ab + a[i][0], a[i][1] - a[i][0]);
  }
  if (run && first == 0) pd_buf_puts(o, ", ");
  pd_buf_printf(o, "%s>", ELL);
}

typedef struct {
  bool found;
  size_t ib, ie, ab, ae; /* identifier, and its arguments (ab == ae: none) */
} wspan;

/* The first op and the first tile shape named in t[0..n), outside parentheses and braces. */
static void find_w(const char *t, size_t n, wspan *op, wspan *shape) {
  memset(op, 0, sizeof *op);
  memset(shape, 0, sizeof *shape);
  for (size_t i = 0; i < n;) {
    if (t[i] == '(' || t[i] == '{') {
      size_t j = match(t, n, i);
      i = j < n ? j + 1 : n;
      continue;
    }
    if (!idch(t[i]) || (i && idch(t[i - 1])) || isdigit((unsigned char)t[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && idch(t[j])) j++;
    size_t ab = j, ae = j, after = j;
    if (j < n && t[j] == '<') {
      size_t m = match(t, n, j);
      if (m < n) ab = j + 1, ae = m, after = m + 1;
    }
    bool owner = starts(t + after, n - after, "{lambda");
    size_t a1[1][2];
    bool num = ae > ab && split_args(t + ab, ae - ab, a1, 1) && numeric(t + ab + a1[0][0], a1[0][1] - a1[0][0]);
    int c = classify(t + i, j - i, owner, num);
    wspan *w = c == W_OP ? op : c == W_SHAPE ? shape : NULL;
    if (w && !w->found) *w = (wspan){true, i, j, ab, ae};
    i = j;
  }
}

/* base<…op…shape…>, shortened until it fits in COMPACT_MAX. */
static char *compact_targs(const char *base, const char *t) {
  size_t n = strlen(t);
  wspan op, shape;
  find_w(t, n, &op, &shape);
  if (!op.found && !shape.found) {
    bool whole = tr_kname_chars(t) <= ARGS_WHOLE && !strchr(t, '{');
    char *out = pd_xasprintf("%s<%s>", base, whole ? t : ELL), *c = tr_kname_cap(out, COMPACT_MAX);
    free(out);
    return c;
  }
  for (int attempt = 0; attempt < 3; attempt++) {
    pd_buf b = {0};
    pd_buf_printf(&b, "%s<%s", base, ELL);
    const wspan *w[2] = {op.found ? &op : &shape, op.found && shape.found && attempt == 0 ? &shape : NULL};
    for (int k = 0; k < 2 && w[k]; k++) {
      if (k) pd_buf_puts(&b, ELL);
      w_text(&b, t, w[k]->ib, w[k]->ie, w[k]->ab, w[k]->ae, attempt < 2);
    }
    pd_buf_printf(&b, "%s>", ELL);
    if (tr_kname_chars(b.data) <= COMPACT_MAX || attempt == 2) {
      char *s = pd_buf_take(&b), *c = tr_kname_cap(s, COMPACT_MAX);
      free(s);
      return c;
    }
    pd_buf_free(&b);
  }
  return NULL; /* not reached */
}

static const char *const WRAPPERS[] = {"Kernel", "Kernel2", "kernel", "device_kernel"};

/* The short form of a parsed signature. */
static char *sig_short(const sig *g, int level) {
  const char *s = g->s;
  char *t = g->has_targs ? simp_str(s + g->tb, g->te - g->tb) : NULL;
  pd_buf base = {0};
  bool wrapper = in_list(s + g->ib, g->ie - g->ib, WRAPPERS, sizeof WRAPPERS / sizeof *WRAPPERS);
  if (wrapper && t && is_identifier(t, strlen(t))) { /* cutlass::Kernel2<cutlass_80_…>: the kernel is the argument */
    char *out = level == TR_KNAME_COMPACT ? plain_short(t, strlen(t)) : tr_kname_cap(t, TR_KNAME_MAX);
    free(t);
    return out;
  }
  if (wrapper && g->qe > g->qb) {
    pd_buf_append(&base, s + g->qb, g->qe - g->qb);
    pd_buf_puts(&base, "::");
  }
  if (g->ie - g->ib > PLAIN_KEEP && is_identifier(s + g->ib, g->ie - g->ib)) { /* a vendor name with arguments */
    char *p = plain_short(s + g->ib, g->ie - g->ib);
    pd_buf_puts(&base, p);
    free(p);
  } else {
    pd_buf_append(&base, s + g->ib, g->ie - g->ib);
  }
  char *out;
  if (level == TR_KNAME_ARGS) {
    pd_buf full = {0};
    pd_buf_puts(&full, base.data);
    if (t) pd_buf_printf(&full, "<%s>", t);
    if (!t && g->has_params) {
      pd_buf_putc(&full, '(');
      simp(s + g->pb, g->pe - g->pb, &full);
      pd_buf_putc(&full, ')');
    }
    out = tr_kname_cap(full.data, TR_KNAME_MAX);
    pd_buf_free(&full);
  } else if (t) {
    out = compact_targs(base.data, t);
  } else {
    out = is_identifier(base.data, base.len) ? plain_short(base.data, base.len) : tr_kname_cap(base.data, COMPACT_MAX);
  }
  pd_buf_free(&base);
  free(t);
  return out;
}

/* The text the short forms are made from: demangled when mangled, normalised. */
static char *view(const char *name) {
  char *dm = tr_kname_demangle(name), *v = normalize(dm ? dm : name);
  free(dm);
  return v;
}

static char *short_of_view(const char *v, int level) {
  size_t n = strlen(v);
  sig g;
  bool cpp = (strchr(v, '<') || strchr(v, '(') || strstr(v, "::")) && balanced(v, n) && parse_sig(v, n, &g);
  if (cpp) return sig_short(&g, level);
  if (level == TR_KNAME_COMPACT && is_identifier(v, n)) return plain_short(v, n);
  return tr_kname_cap(v, level == TR_KNAME_COMPACT ? COMPACT_MAX : TR_KNAME_MAX);
}

char *tr_kname_short(const char *name, int level) {
  char *v = view(name), *s = short_of_view(v, level);
  free(v);
  return s;
}

/* ---- a table's names ---- */

typedef struct {
  size_t i;   /* row */
  char *v;    /* the full name as read (demangled, normalised) */
  char *text; /* what is shown */
  int stage;  /* 0 compact, 1 detailed, 2 with the distinguishing part, 3 numbered */
} kent;

static int by_text(const void *a, const void *b) {
  const kent *x = a, *y = b;
  int c = strcmp(x->text, y->text);
  return c ? c : strcmp(x->v, y->v);
}

static size_t common_prefix(const char *a, const char *b) {
  size_t k = 0;
  while (a[k] && a[k] == b[k]) k++;
  return k;
}

/* The part of e's full name where it parts from the others in g[0..n): from the start of that
 * token, FRAG characters, namespaces dropped unless keep_ns. */
static char *fragment(const kent *e, const kent *g, size_t n, bool keep_ns) {
  size_t p = 0;
  for (size_t j = 0; j < n; j++)
    if (&g[j] != e) {
      size_t k = common_prefix(e->v, g[j].v);
      if (k > p) p = k;
    }
  while (p > 0 && !strchr(" ,<>()_:{}", e->v[p - 1])) p--;
  /* inside "{lambda()#4}" (the dtype branches of one op differ only there): that lambda */
  size_t lb = p;
  while (lb > 0 && e->v[lb - 1] != '{' && e->v[lb - 1] != '}') lb--;
  if (lb > 0 && e->v[lb - 1] == '{' && !strncmp(e->v + lb, "lambda(", 7)) {
    const char *end = strchr(e->v + lb, '}');
    if (end) {
      char *l = pd_xstrndup(e->v + lb - 1, (size_t)(end - e->v) - lb + 2), *c = tr_kname_cap(l, FRAG);
      free(l);
      return c;
    }
  }
  size_t len = strlen(e->v + p);
  if (len > 4 * FRAG) len = 4 * FRAG;
  char *raw = keep_ns ? pd_xstrndup(e->v + p, len) : simp_str(e->v + p, len);
  char *cut = tr_kname_cap(raw, FRAG);
  free(raw);
  return cut;
}

/* Moves a group of rows shown alike g[0..n) (sorted by full name) to the next stage together:
 * the detailed form, then the compact one with the distinguishing part, then a number. */
static void restage(kent *g, size_t n) {
  int stage = 0;
  for (size_t k = 0; k < n; k++) stage = g[k].stage > stage ? g[k].stage : stage;
  char **t = pd_xcalloc(n, sizeof *t);
  for (size_t k = 0; k < n; k++) {
    if (stage == 0) {
      t[k] = short_of_view(g[k].v, TR_KNAME_ARGS);
    } else if (stage == 1) {
      t[k] = fragment(&g[k], g, n, false);
    } else {
      char *c = tr_kname_cap(g[k].text, TR_KNAME_MAX - 6);
      t[k] = pd_xasprintf("%s #%zu", c, k + 1);
      free(c);
    }
  }
  if (stage == 1) { /* the compact form and the part, which keeps its namespaces when that is the difference */
    for (size_t k = 0; k < n; k++) {
      bool dup = false;
      for (size_t j = 0; j < n && !dup; j++) dup = j != k && !strcmp(t[j], t[k]);
      char *f = dup ? fragment(&g[k], g, n, true) : pd_xstrdup(t[k]), *c = short_of_view(g[k].v, TR_KNAME_COMPACT);
      size_t cl = strlen(c);
      bool ell = cl >= sizeof ELL - 1 && !strcmp(c + cl - (sizeof ELL - 1), ELL);
      free(t[k]);
      t[k] = pd_xasprintf("%s %s%s", c, ell ? "" : ELL, f);
      free(c);
      free(f);
    }
  }
  for (size_t k = 0; k < n; k++) {
    free(g[k].text);
    g[k].text = t[k];
    g[k].stage = stage + 1;
  }
  free(t);
}

char **tr_kname_table(const char *const *names, size_t n) {
  kent *e = pd_xcalloc(n ? n : 1, sizeof *e);
  for (size_t i = 0; i < n; i++) {
    e[i].i = i;
    e[i].v = view(names[i]);
    e[i].text = short_of_view(e[i].v, TR_KNAME_COMPACT);
  }
  for (int pass = 0; pass < 8; pass++) {
    qsort(e, n, sizeof *e, by_text);
    bool again = false;
    for (size_t a = 0; a < n;) {
      size_t b = a + 1;
      while (b < n && !strcmp(e[a].text, e[b].text)) b++;
      if (b - a > 1) {
        if (pass == 7)
          for (size_t k = a; k < b; k++) e[k].stage = 2; /* alike to the end: numbered */
        restage(e + a, b - a);
        again = true;
      }
      a = b;
    }
    if (!again) break;
  }
  char **out = pd_xmalloc((n ? n : 1) * sizeof *out);
  for (size_t k = 0; k < n; k++) {
    out[e[k].i] = e[k].text;
    free(e[k].v);
  }
  free(e);
  return out;
}

void tr_kname_table_free(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void tr_kname_md_code(pd_buf *b, const char *text) {
  bool tick = strchr(text, '`') != NULL;
  pd_buf_puts(b, tick ? "`` " : "`");
  for (const char *p = text; *p; p++) {
    if (*p == '|') pd_buf_puts(b, "\\|");
    else if (*p == '\n' || *p == '\r' || *p == '\t') pd_buf_putc(b, ' ');
    else pd_buf_putc(b, *p);
  }
  pd_buf_puts(b, tick ? " ``" : "`");
}
