/* sh_store: the shell layer's variable store (see shell.h): scalars, indexed arrays and
 * functions under one name table, field strings in a shared arena, and cheap clones for
 * checkpoints. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "script/sh_int.h"

/* ---- fields ------------------------------------------------------------------------------ */

void sh_fields_push(sh_fields *fs, const sh_field *f) { *PD_PUSH(fs->v, fs->n, fs->cap) = *f; }

void sh_fields_free(sh_fields *fs) {
  free(fs->v);
  fs->v = NULL;
  fs->n = fs->cap = 0;
}

/* ---- the env and its arena --------------------------------------------------------------- */

sh_env *sh_env_new(void) { return pd_xcalloc(1, sizeof(sh_env)); }

const char *sh_intern(sh_env *e, const char *s, size_t n) {
  sh_arena_block *a = e->nblocks ? e->blocks[e->nblocks - 1] : NULL;
  if (!a || a->cap - a->used < n + 1) {
    size_t cap = n + 1 > 60000 ? n + 1 : 60000;
    sh_arena_block *nb = pd_xmalloc(sizeof *nb + cap);
    nb->refs = 1;
    nb->used = 0;
    nb->cap = cap;
    *PD_PUSH(e->blocks, e->nblocks, e->blocks_cap) = nb;
    if (a && n + 1 > 60000) { /* a big string gets its own block; keep filling the current one */
      e->blocks[e->nblocks - 2] = nb;
      e->blocks[e->nblocks - 1] = a;
    }
    a = nb;
  }
  char *d = a->data + a->used;
  if (n) memcpy(d, s, n);
  d[n] = '\0';
  a->used += n + 1;
  return d;
}

static const char *intern_str(sh_env *e, const char *s) { return s ? sh_intern(e, s, strlen(s)) : NULL; }

static void entry_free(sh_entry *s) {
  free(s->value);
  if (s->array) {
    sh_fields_free(s->array);
    free(s->array);
  }
}

void sh_env_free(sh_env *e) {
  if (!e) return;
  for (size_t i = 0; i < e->nblocks; i++)
    if (--e->blocks[i]->refs == 0) free(e->blocks[i]);
  free(e->blocks);
  for (size_t i = 0; i < e->nentries; i++) entry_free(&e->entries[i]);
  free(e->entries);
  pd_map_free(&e->names);
  for (size_t i = 0; i < e->narrays; i++) free(e->array_order[i]);
  free(e->array_order);
  for (size_t i = 0; i < e->nreads; i++) free(e->reads[i].name);
  free(e->reads);
  for (size_t i = 0; i < e->nwrites; i++) free(e->writes[i].name);
  free(e->writes);
  free(e);
}

static void entry_copy(sh_entry *s) {
  if (s->value) s->value = pd_xstrdup(s->value);
  if (s->array) {
    const sh_fields *src = s->array;
    s->array = pd_xcalloc(1, sizeof *s->array);
    if (src->n) {
      s->array->v = pd_xmalloc(src->n * sizeof *src->v);
      memcpy(s->array->v, src->v, src->n * sizeof *src->v);
    }
    s->array->n = s->array->cap = src->n;
  }
}

sh_env *sh_env_clone(const sh_env *e) {
  sh_env *c = pd_xcalloc(1, sizeof *c);
  c->nblocks = c->blocks_cap = e->nblocks;
  c->blocks = pd_xmalloc((e->nblocks ? e->nblocks : 1) * sizeof *c->blocks);
  for (size_t i = 0; i < e->nblocks; i++) {
    c->blocks[i] = e->blocks[i];
    c->blocks[i]->refs++;
  }
  c->nentries = c->entries_cap = e->nentries;
  c->entries = pd_xmalloc((e->nentries ? e->nentries : 1) * sizeof *c->entries);
  if (e->nentries) memcpy(c->entries, e->entries, e->nentries * sizeof *c->entries);
  for (size_t i = 0; i < c->nentries; i++) entry_copy(&c->entries[i]);
  pd_map_clone(&c->names, &e->names);
  size_t it = 0, idx;
  const char *key;
  while (pd_map_next(&c->names, &it, &key, &idx)) c->entries[idx].name = key;
  c->narrays = c->arrays_cap = e->narrays;
  c->array_order = pd_xmalloc((e->narrays ? e->narrays : 1) * sizeof *c->array_order);
  for (size_t i = 0; i < e->narrays; i++) c->array_order[i] = pd_xstrdup(e->array_order[i]);
  return c;
}

sh_entry *sh_lookup(const sh_env *e, const char *name) {
  size_t i;
  return pd_map_get(&e->names, name, &i) ? &e->entries[i] : NULL;
}

sh_entry *sh_insert(sh_env *e, const char *name) {
  bool added;
  pd_map_slot *slot = pd_map_put(&e->names, name, &added);
  if (!added) return &e->entries[slot->value];
  slot->value = e->nentries;
  sh_entry *s = PD_PUSH(e->entries, e->nentries, e->entries_cap);
  memset(s, 0, sizeof *s);
  s->name = slot->key;
  s->file = -1;
  return s;
}

/* ---- scalars, arrays, functions ---------------------------------------------------------- */


void sh_var_set(sh_env *e, const char *name, const char *value, sm_cert cert,
                const char *cert_var) {
  sh_track_write(e, name, false);
  sh_entry *s = sh_insert(e, name);
  free(s->value);
  s->value = pd_xstrdup(value ? value : "");
  s->set = true;
  s->cert = cert;
  s->cert_var = cert < SM_CERT_LITERAL && cert_var ? intern_str(e, cert_var) : NULL;
  s->unset_from = NULL;
}

void sh_var_set_unset_from(sh_env *e, const char *name, const char *unset_var) {
  sh_entry *s = sh_lookup(e, name);
  if (s && s->set) s->unset_from = intern_str(e, unset_var);
}

const char *sh_var_unset_from(const sh_env *e, const char *name) {
  const sh_entry *s = sh_lookup(e, name);
  return s && s->set ? s->unset_from : NULL;
}

void sh_var_unset(sh_env *e, const char *name) {
  sh_entry *s = sh_lookup(e, name);
  if (!s) return;
  sh_track_write(e, name, false);
  free(s->value);
  s->value = NULL;
  s->set = false;
  if (s->array) s->array->n = 0;
}

void sh_var_mark(sh_env *e, const char *name, int file, sm_range range, bool exported) {
  sh_track_read(e, name, false); /* `exported` accumulates */
  sh_track_write(e, name, false);
  sh_entry *s = sh_insert(e, name);
  s->file = file;
  s->range = range;
  s->exported = s->exported || exported;
}

void sh_var_foreach(const sh_env *e,
                    void (*fn)(void *ctx, const char *name, const char *value, sm_cert cert,
                               bool exported, int file, sm_range range),
                    void *ctx) {
  for (size_t i = 0; i < e->nentries; i++) {
    const sh_entry *s = &e->entries[i];
    if (s->set) fn(ctx, s->name, s->value, s->cert, s->exported, s->file, s->range);
  }
}

bool sh_var_get(sh_env *e, const char *name, const char **value, sm_cert *cert,
                const char **cert_var) {
  sh_track_read(e, name, false);
  const sh_entry *s = sh_lookup(e, name);
  if (!s) return false;
  const char *via = NULL;
  if (s->set) {
    *value = s->value;
    *cert = s->cert;
    via = s->cert_var;
  } else if (s->array && s->array->n > 0) { /* $ARR is ${ARR[0]} */
    *value = s->array->v[0].text;
    *cert = s->array->v[0].cert;
    via = s->array->v[0].cert_var;
  } else {
    return false;
  }
  if (cert_var) *cert_var = *cert < SM_CERT_LITERAL ? (via ? via : s->name) : NULL;
  return true;
}

sh_fields *sh_array_get(sh_env *e, const char *name) {
  sh_track_read(e, name, false);
  sh_entry *s = sh_lookup(e, name);
  return s ? s->array : NULL;
}

sh_fields *sh_array_define(sh_env *e, const char *name, bool append) {
  if (append) sh_track_read(e, name, true); /* appending depends on what exists, not on its fields */
  sh_track_write(e, name, append);
  sh_entry *s = sh_insert(e, name);
  if (!s->array) {
    s->array = pd_xcalloc(1, sizeof *s->array);
    *PD_PUSH(e->array_order, e->narrays, e->arrays_cap) = pd_xstrdup(name);
    /* NAME+=(...) on a set scalar keeps the scalar as element 0, as bash does. */
    if (append && s->set) {
      sh_field *f = PD_PUSH(s->array->v, s->array->n, s->array->cap);
      memset(f, 0, sizeof *f);
      f->text = intern_str(e, s->value);
      f->resolved = s->cert >= SM_CERT_BRANCH;
      f->cert = s->cert;
      f->cert_var = s->cert_var;
      f->file = -1;
    }
  } else if (!append) {
    s->array->n = 0;
  }
  return s->array;
}

void sh_func_define(sh_env *e, const char *name, int file, TSNode body) {
  sh_track_write(e, name, false);
  sh_entry *s = sh_insert(e, name);
  s->is_func = true;
  s->func_file = file;
  s->func_body = body;
}

bool sh_func_get(sh_env *e, const char *name, int *file, TSNode *body) {
  sh_track_read(e, name, false);
  const sh_entry *s = sh_lookup(e, name);
  if (!s || !s->is_func) return false;
  *file = s->func_file;
  *body = s->func_body;
  return true;
}

size_t sh_array_names(const sh_env *e, const char ***names) {
  *names = (const char **)e->array_order;
  return e->narrays;
}

/* Fields [at, at + 2) of arr were written with nothing between them: bash reads one word.
 * tree-sitter-bash splits some such words in two (`[0]*$N+[1]*2` becomes two concatenations),
 * so they are joined back. */
void sh_fields_glue(sh_env *env, sh_fields *arr, size_t at) {
  sh_field *a = &arr->v[at], *z = &arr->v[at + 1];
  size_t la = strlen(a->text), lz = strlen(z->text);
  char *t = pd_xmalloc(la + lz + 1);
  memcpy(t, a->text, la);
  memcpy(t + la, z->text, lz + 1);
  a->text = sh_intern(env, t, la + lz);
  free(t);
  a->resolved = a->resolved && z->resolved;
  if (z->cert < a->cert) a->cert = z->cert, a->cert_var = z->cert_var;
  if (la && a->text[la - 1] == '$') { /* the split cut an expansion: its value is not known */
    a->resolved = false;
    a->cert = SM_CERT_UNRESOLVED;
  }
  a->range.end_line = z->range.end_line;
  a->range.end_col = z->range.end_col;
  a->range.end_byte = z->range.end_byte;
  memmove(z, z + 1, (arr->n - at - 2) * sizeof *z);
  arr->n--;
}
