/* fc_int: the flag catalog's private parts, shared by flagcat.c (loading from JSON, look-ups,
 * merging) and flagbin.c (the compact binary form the build embeds) and nothing else. */
#ifndef PD_FLAGCAT_FC_INT_H
#define PD_FLAGCAT_FC_INT_H

#include <stddef.h>

#include "base/hash.h"
#include "flagcat/flagcat.h"

typedef struct {
  const char *name;
  const char *replacement;
  unsigned in;
} fc_rejected_flag;

/* Strings are owned by the catalog (the strs list) or, for a catalog read from the embedded
 * binary form, borrowed from it (static data); arrays of pointers are always owned. */
struct fc_catalog {
  fc_option *opts;
  size_t nopts, cap;
  size_t *next;     /* per option: the next one of its first spelling (SIZE_MAX: none) */
  pd_map by_name;   /* spelling -> index into opts */
  pd_map dropped;   /* "--sglang-x" -> its index in the catalog's list */
  const char **uncovered; /* prefixes of names whose source was not read */
  size_t nuncovered;
  fc_rejected_flag *rejected;
  size_t nrejected;
  char **strs;
  size_t nstrs, strcap;
  const char *origin[FC_NPARSERS];
};

/* s (consumed) becomes the catalog's; returns it. */
char *fc_keep(fc_catalog *c, char *s);
/* A copy the catalog owns; NULL for NULL. */
const char *fc_keep_dup(fc_catalog *c, const char *s);
/* The spelling index and the variant chains, after the options are in place. */
void fc_index(fc_catalog *c);

#endif
