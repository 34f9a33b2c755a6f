#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

uint64_t pd_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

uint64_t pd_hash_str(const char *s) {
  uint64_t h = PD_HASH_SEED;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* ---- string keys ---- */

/* The tables' own hash, 8 bytes per multiplication: FNV-1a's one multiplication per byte made
 * hashing a 200-byte kernel name cost more than the rest of interning it. Not pd_hash, whose
 * values are kept (SARIF fingerprints) and so may not change. */
static uint64_t map_hash(const char *p, size_t n) {
  uint64_t h = PD_HASH_SEED ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull), w;
  for (; n >= 8; p += 8, n -= 8) {
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  w = 0;
  memcpy(&w, p, n);
  h = (h ^ w) * 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

static size_t map_probe(const pd_map *m, const char *key, size_t len, uint64_t h) {
  size_t mask = m->cap - 1, i = h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_map_slot *s = &m->slots[i];
    if (!s->key || (s->hash == h && s->len == len && !memcmp(s->key, key, len))) return i;
  }
}

bool pd_map_getn(const pd_map *m, const char *key, size_t len, size_t *value) {
  if (!m->cap) return false;
  const pd_map_slot *s = &m->slots[map_probe(m, key, len, map_hash(key, len))];
  if (!s->key) return false;
  if (value) *value = s->value;
  return true;
}

bool pd_map_get(const pd_map *m, const char *key, size_t *value) {
  return pd_map_getn(m, key, strlen(key), value);
}

static void map_grow(pd_map *m) {
  size_t oldcap = m->cap;
  pd_map_slot *old = m->slots;
  m->cap = oldcap ? oldcap * 2 : 16;
  m->slots = pd_xcalloc(m->cap, sizeof *m->slots);
  for (size_t j = 0; j < oldcap; j++) {
    if (!old[j].key) continue;
    size_t i = old[j].hash & (m->cap - 1);
    while (m->slots[i].key) i = (i + 1) & (m->cap - 1);
    m->slots[i] = old[j];
  }
  free(old);
}

pd_map_slot *pd_map_putn(pd_map *m, const char *key, size_t len, bool *added) {
  if ((m->n + 1) * 2 > m->cap) map_grow(m);
  uint64_t h = map_hash(key, len);
  pd_map_slot *s = &m->slots[map_probe(m, key, len, h)];
  if (added) *added = !s->key;
  if (!s->key) {
    s->key = pd_xstrndup(key, len);
    s->len = len;
    s->hash = h;
    s->value = 0;
    m->n++;
  }
  return s;
}

pd_map_slot *pd_map_put(pd_map *m, const char *key, bool *added) {
  return pd_map_putn(m, key, strlen(key), added);
}

const char *pd_map_key(const pd_map *m, const char *key) {
  if (!m->cap) return NULL;
  size_t len = strlen(key);
  return m->slots[map_probe(m, key, len, map_hash(key, len))].key;
}

bool pd_map_next(const pd_map *m, size_t *it, const char **key, size_t *value) {
  for (; *it < m->cap; (*it)++) {
    const pd_map_slot *s = &m->slots[*it];
    if (!s->key) continue;
    if (key) *key = s->key;
    if (value) *value = s->value;
    (*it)++;
    return true;
  }
  return false;
}

void pd_map_clone(pd_map *dst, const pd_map *src) {
  dst->cap = src->cap;
  dst->n = src->n;
  dst->slots = NULL;
  if (!src->cap) return;
  dst->slots = pd_xmalloc(src->cap * sizeof *dst->slots);
  memcpy(dst->slots, src->slots, src->cap * sizeof *dst->slots);
  for (size_t i = 0; i < dst->cap; i++)
    if (dst->slots[i].key) dst->slots[i].key = pd_xstrndup(src->slots[i].key, src->slots[i].len);
}

void pd_map_free(pd_map *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->slots[i].key);
  free(m->slots);
  m->slots = NULL;
  m->cap = m->n = 0;
}

static size_t intern_slot(const char *s, size_t n) {
  uint64_t a = 0, b = 0;
  memcpy(&a, s, n < 8 ? n : 8);
  memcpy(&b, s + (n < 8 ? 0 : n - 8), n < 8 ? n : 8);
  uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xBF58476D1CE4E5B9ull;
  return (size_t)(h >> 56) % PD_INTERN_CACHE;
}

uint32_t pd_intern_n(pd_intern *t, const char *s, size_t n, bool *added) {
  size_t k = intern_slot(s, n);
  if (added) *added = false;
  if (t->cache[k].used && t->cache[k].len == n && !memcmp(t->str[t->cache[k].id], s, n)) return t->cache[k].id;
  bool fresh;
  pd_map_slot *slot = pd_map_putn(&t->ids, s, n, &fresh);
  if (fresh) {
    slot->value = t->n;
    *PD_PUSH(t->str, t->n, t->cap) = slot->key;
    if (added) *added = true;
  }
  if (n <= UINT32_MAX) t->cache[k].id = (uint32_t)slot->value, t->cache[k].len = (uint32_t)n, t->cache[k].used = true;
  return (uint32_t)slot->value;
}

void pd_intern_free(pd_intern *t) {
  pd_map_free(&t->ids);
  free(t->str);
  memset(t, 0, sizeof *t);
}
