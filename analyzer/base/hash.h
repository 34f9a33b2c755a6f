/* hash: FNV-1a, the one hash function of the code base, and the hash tables built on it.
 *
 * pd_map maps strings to size_t values (usually an index into the caller's own array); it is
 * the one string-keyed table of the code base. pd_index indexes the caller's own items by a key
 * they hold, for tables too large to copy keys into. Both use open addressing with linear
 * probing in a power-of-two table kept at most half full, and never shrink; there is no
 * deletion (no caller needs it: a shell `unset` keeps the name, marked unset). Zero-initialise
 * a table to use it. */
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

/* An index over the items of the caller's own array, for keys the items hold (a trace's
 * correlation ids: millions of them, so a slot is 4 bytes and the key is not copied). The
 * caller supplies the key's hash and a comparison; the table stores item numbers only. */
typedef struct {
  uint32_t *slots; /* item + 1; 0 = empty */
  size_t cap, n;
} pd_index;

/* True when item `item` of `items` has the key `key`. */
typedef bool (*pd_index_eq)(const void *items, size_t item, const void *key);
/* The hash of item `item`'s key (for growing the table). */
typedef uint64_t (*pd_index_hash)(const void *items, size_t item);

/* The item with this key, or false. */
bool pd_index_find(const pd_index *x, uint64_t hash, pd_index_eq eq, const void *items,
                   const void *key, size_t *item);
/* Adds item (< 2^32 - 1) under hash; an item with an equal key is replaced by it. */
void pd_index_add(pd_index *x, uint64_t hash, size_t item, pd_index_eq eq, pd_index_hash rehash,
                  const void *items, const void *key);
void pd_index_free(pd_index *x);
/* A 64-bit integer's hash for pd_index (multiplicative: cheap, and ids are dense). */
uint64_t pd_hash_i64(int64_t x);

#endif
