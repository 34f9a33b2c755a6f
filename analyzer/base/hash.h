/* hash: FNV-1a (pd_hash: stable values, which SARIF fingerprints keep) and the string table.
 *
 * pd_map maps strings to size_t values (usually an index into the caller's own array); it is
 * the one string-keyed table of the code base: open addressing with linear probing in a
 * power-of-two table kept at most half full, hashed 8 bytes at a time; it never shrinks and has
 * no deletion (no caller needs it: a shell `unset` keeps the name, marked unset).
 * Zero-initialise a table to use it. */
#ifndef PD_BASE_HASH_H
#define PD_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PD_HASH_SEED 1469598103934665603ull
/* Continues h over p[0..n); start with PD_HASH_SEED. */
uint64_t pd_hash(uint64_t h, const void *p, size_t n);
uint64_t pd_hash_str(const char *s);

typedef struct {
  char *key;     /* owned, NUL-terminated; NULL = empty slot */
  size_t len;
  uint64_t hash;
  size_t value;
} pd_map_slot;

typedef struct {
  pd_map_slot *slots;
  size_t cap; /* 0 or a power of two */
  size_t n;
} pd_map;

/* The value of key[0..len), or false when absent. */
bool pd_map_getn(const pd_map *m, const char *key, size_t len, size_t *value);
bool pd_map_get(const pd_map *m, const char *key, size_t *value);
/* The slot of key[0..len), added (copying the key, value 0, *added = true) when absent. The
 * slot pointer is valid until the next insertion; its key until pd_map_free. added may be
 * NULL. */
pd_map_slot *pd_map_putn(pd_map *m, const char *key, size_t len, bool *added);
pd_map_slot *pd_map_put(pd_map *m, const char *key, bool *added);
/* The stored copy of an existing key (stable until pd_map_free), or NULL. */
const char *pd_map_key(const pd_map *m, const char *key);
/* Iteration in slot order: start with *it = 0; false at the end. */
bool pd_map_next(const pd_map *m, size_t *it, const char **key, size_t *value);
/* *dst becomes an independent copy of src (dst is overwritten, not freed). */
void pd_map_clone(pd_map *dst, const pd_map *src);
void pd_map_free(pd_map *m);

/* pd_intern: strings to dense ids (0, 1, ... in order of first appearance), for tables that
 * repeat a few hundred distinct names a million times (kernel and op names). A direct-mapped
 * cache of recent ids, keyed by a hash of the length and the first and last 8 bytes, answers
 * most look-ups with one comparison instead of hashing the whole name and probing the map.
 * Zero-initialise; str and n are read-only for callers. */
#define PD_INTERN_CACHE 256

typedef struct {
  const char **str; /* id -> name (the map's copy, stable until pd_intern_free) */
  size_t n, cap;
  pd_map ids;       /* name -> id */
  struct {
    uint32_t id;
    uint32_t len;
    bool used;
  } cache[PD_INTERN_CACHE];
} pd_intern;

/* The id of s[0..n), added when new (*added then true; added may be NULL). */
uint32_t pd_intern_n(pd_intern *t, const char *s, size_t n, bool *added);
void pd_intern_free(pd_intern *t);

#endif
