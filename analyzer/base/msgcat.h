/* msgcat: sentences as data — message templates with named, typed arguments, in several
 * languages. libc only: the layer that loads the texts (from a data file, with whatever parser it
 * has) gives them to pd_msgcat_set one by one, which checks each; a template is read as it is
 * rendered (a catalog of hundreds of messages of which a summary says a few dozen loads without
 * compiling any).
 *
 * A catalog is made from a spec table: each message's key and the arguments it takes, written
 * "name:type,name:type" with type s (string), i (integer) or f (real number). A template is text
 * with placeholders:
 *   {name}          the argument: a string as it is, an integer in decimal, a real as %g;
 *   {name:%.1f}     ... formatted by one printf conversion of the argument's type (f, e, g for
 *                   reals; d for integers; s for strings), with flags, width and precision;
 *   {name?one|other} "one" when the integer argument is 1, else "other" (plurals);
 *   {{ and }}       literal braces.
 * Checking refuses a placeholder that names an argument the spec does not list, a conversion
 * that does not fit the argument's type, and unbalanced braces, with the reason.
 *
 * Rendering never fails: an id, language or template that is missing renders the message's key,
 * and arguments that do not match the spec (count or type) render "{?key}" instead of the
 * message, so a mistake shows in the output (and in the tests) instead of reading past the
 * arguments.
 *
 * A catalog reads a message's argument list the first time the message is checked or said and
 * keeps it: use one catalog from one thread at a time (a trace summary is rendered on one). */
#ifndef PD_BASE_MSGCAT_H
#define PD_BASE_MSGCAT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/alloc.h"

/* One argument as passed to a render call: its type letter and its value. */
typedef struct {
  char type; /* 's', 'i' or 'f' */
  union {
    const char *s;
    long long i;
    double f;
  } v;
} pd_marg;

#define PD_MS(x) ((pd_marg){'s', {.s = (x)}})
#define PD_MI(x) ((pd_marg){'i', {.i = (long long)(x)}})
#define PD_MF(x) ((pd_marg){'f', {.f = (double)(x)}})

typedef struct {
  const char *key;  /* "hyp.data_supply" */
  const char *args; /* "ranks:s,share:s"; "" for none */
} pd_msg_spec;

typedef struct pd_msgcat pd_msgcat;

/* An empty catalog of n messages (specs borrowed: they must outlive it) in nlangs languages.
 * Free with pd_msgcat_free. */
pd_msgcat *pd_msgcat_new(const pd_msg_spec *specs, size_t n, size_t nlangs);
void pd_msgcat_free(pd_msgcat *c);

/* Checks text and keeps it (copied) as message id's template in language lang, replacing any
 * earlier one. False with *why (caller frees) when it is refused; the message then has no
 * template there. */
bool pd_msgcat_set(pd_msgcat *c, size_t id, size_t lang, const char *text, char **why);
/* The same for a text already checked (a catalog the build compiled after checking it), not
 * checked again and not copied: it must outlive the catalog. A template that is unsound after all
 * renders "{?key}". */
void pd_msgcat_set_checked(pd_msgcat *c, size_t id, size_t lang, const char *text);
/* Whether message id has a template in lang; its text as given to pd_msgcat_set (borrowed), or
 * NULL. */
bool pd_msgcat_has(const pd_msgcat *c, size_t id, size_t lang);
const char *pd_msgcat_text(const pd_msgcat *c, size_t id, size_t lang);
/* The index of the message with this key, or -1. */
long pd_msgcat_find(const pd_msgcat *c, const char *key);
size_t pd_msgcat_count(const pd_msgcat *c);

/* Appends message id in lang to b; args[0..nargs) in the order the spec lists them. */
void pd_msgcat_render(pd_buf *b, const pd_msgcat *c, size_t id, size_t lang, const pd_marg *args,
                      size_t nargs);

#endif
