/* sh_int: the shell layer's private parts, shared by its files and by nothing else:
 * sh_store.c (the variable store), sh_track.c (dependency tracking and saved effects) and
 * sh_expand.c (word expansion, which uses only the public shell.h). */
#ifndef PD_SCRIPT_SH_INT_H
#define PD_SCRIPT_SH_INT_H

#include "base/hash.h"
#include "script/shell.h"

/* One name: a scalar, an indexed array and a function may share it. */
typedef struct {
  const char *name;  /* the name map's copy of the key */
  char *value;       /* scalar value (NULL when the entry is only an array) */
  bool set, exported;
  sm_cert cert;      /* how the scalar's value was known */
  const char *cert_var; /* the variable its uncertainty came through (arena), NULL: this one */
  const char *unset_from; /* a variable unset when the value was assigned, which gave nothing (arena) */
  int file;          /* last assignment, -1 when unknown */
  sm_range range;
  sh_fields *array;  /* NULL unless defined as an array */
  bool is_func;      /* functions share the table; bash keeps them apart, so does lookup */
  int func_file;
  TSNode func_body;
} sh_entry;

/* Strings of fields are bump-allocated: evaluating a script copies fields a lot (spreads), and
 * they all die together with the env. Blocks are reference-counted so that a clone (a resumable
 * checkpoint) shares the strings instead of copying them; strings never change once written. */
typedef struct {
  size_t refs, used, cap;
  char data[];
} sh_arena_block;

struct sh_env {
  sh_arena_block **blocks; /* the last one is filled next */
  size_t nblocks, blocks_cap;
  pd_map names;            /* name -> index into entries */
  sh_entry *entries;
  size_t nentries, entries_cap;
  char **array_order;      /* names of arrays in first-definition order (owned) */
  size_t narrays, arrays_cap;
  /* dependency tracking (sh_track_begin/end) */
  bool tracking, track_lost;
  sh_dep *reads;
  size_t nreads, reads_cap;
  sh_write *writes;
  size_t nwrites, writes_cap;
};

/* The entry of a name, or NULL; sh_insert adds an empty one. Pointers are valid until the next
 * insertion. */
sh_entry *sh_lookup(const sh_env *e, const char *name);
sh_entry *sh_insert(sh_env *e, const char *name);

/* Recorded while tracking (sh_track_begin): a lookup of `name` (shape_only: only whether it is
 * a scalar or an array matters), and a change about to happen to it (append: only fields added
 * to an existing array). */
void sh_track_read(sh_env *e, const char *name, bool shape_only);
void sh_track_write(sh_env *e, const char *name, bool append);

#endif
