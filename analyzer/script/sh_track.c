/* sh_track: what a statement read and wrote, for replaying its effect (see shell.h), and the
 * saved copies of what it left in the names it wrote. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "script/sh_int.h"

/* ---- dependency tracking ----------------------------------------------------------------- */

static sh_dep *find_read(sh_env *e, const char *name) {
  for (size_t i = e->nreads; i-- > 0;)
    if (!strcmp(e->reads[i].name, name)) return &e->reads[i];
  return NULL;
}

static sh_write *find_write(sh_env *e, const char *name) {
  for (size_t i = e->nwrites; i-- > 0;)
    if (!strcmp(e->writes[i].name, name)) return &e->writes[i];
  return NULL;
}

/* A lookup. Its hash is taken lazily: before the statement first changes the name, or at the
 * end (an array spread by the train line is then never hashed, that statement being dropped). */
void sh_track_read(sh_env *e, const char *name, bool shape_only) {
  if (!e->tracking) return;
  const sh_write *w = find_write(e, name);
  if (w) {
    /* After its own append, reading the fields reads the older ones too, whose state was not
     * recorded: such a statement cannot be replayed. */
    if (w->append && !shape_only) e->track_lost = true;
    return;
  }
  sh_dep *d = find_read(e, name);
  if (d) {
    if (!shape_only) d->shape_only = false;
    return;
  }
  d = PD_PUSH(e->reads, e->nreads, e->reads_cap);
  d->name = pd_xstrdup(name);
  d->shape_only = shape_only;
  d->hashed = false;
}

static void hash_read(const sh_env *e, sh_dep *d) {
  if (d->hashed) return;
  d->hash = d->shape_only ? sh_shape_hash(e, d->name) : sh_state_hash(e, d->name);
  d->hashed = true;
}

/* A change about to happen. `append`: only fields added to an existing array. A statement's
 * saved effect is the whole state it leaves in a name (sh_save), so the state it found there
 * is a dependency too; only an append depends on no more than the array existing. */
void sh_track_write(sh_env *e, const char *name, bool append) {
  if (!e->tracking) return;
  sh_write *w = find_write(e, name);
  if (w) {
    if (w->append && !append) e->track_lost = true; /* the older fields' state was not kept */
    return;
  }
  const sh_entry *s = sh_lookup(e, name);
  append = append && s && s->array;
  sh_dep *d = find_read(e, name);
  if (!d) {
    d = PD_PUSH(e->reads, e->nreads, e->reads_cap);
    d->name = pd_xstrdup(name);
    d->shape_only = true;
    d->hashed = false;
  }
  if (!append) {
    if (d->hashed && d->shape_only) e->track_lost = true;
    d->shape_only = false;
  }
  hash_read(e, d);
  w = PD_PUSH(e->writes, e->nwrites, e->writes_cap);
  w->name = pd_xstrdup(name);
  w->append = append;
  w->from = append ? s->array->n : 0;
}

void sh_track_begin(sh_env *e) {
  e->tracking = true;
  e->track_lost = false;
  e->nreads = e->nwrites = 0;
}

bool sh_track_end(sh_env *e, bool keep, sh_dep **reads, size_t *nreads, sh_write **writes,
                  size_t *nwrites) {
  e->tracking = false;
  keep = keep && !e->track_lost;
  if (keep)
    for (size_t i = 0; i < e->nreads; i++) hash_read(e, &e->reads[i]);
  *reads = e->reads;
  *nreads = e->nreads;
  *writes = e->writes;
  *nwrites = e->nwrites;
  e->reads = NULL;
  e->writes = NULL;
  e->nreads = e->reads_cap = e->nwrites = e->writes_cap = 0;
  return keep;
}

bool sh_dep_holds(const sh_env *e, const sh_dep *d) {
  return d->hash == (d->shape_only ? sh_shape_hash(e, d->name) : sh_state_hash(e, d->name));
}

/* A string or NULL (which no string hashes like). */
static uint64_t mix_str(uint64_t h, const char *s) {
  return s ? pd_hash(h, s, strlen(s) + 1) : pd_hash(h, "\xff", 1);
}

static uint64_t mix_range(uint64_t h, sm_range r) {
  uint32_t v[6] = {r.start_byte, r.end_byte, r.start_line, r.start_col, r.end_line, r.end_col};
  return pd_hash(h, v, sizeof v);
}

uint64_t sh_state_hash(const sh_env *e, const char *name) {
  const sh_entry *s = sh_lookup(e, name);
  uint64_t h = PD_HASH_SEED;
  if (!s) return h;
  unsigned char flags[5] = {1, s->set, (unsigned char)s->cert, s->exported, s->is_func};
  h = pd_hash(h, flags, sizeof flags);
  h = mix_str(h, s->set ? s->value : NULL);
  h = mix_str(h, s->cert_var);
  h = mix_str(h, s->unset_from);
  h = pd_hash(h, &s->file, sizeof s->file);
  h = mix_range(h, s->range);
  if (s->is_func) {
    uint32_t f[3] = {(uint32_t)s->func_file, ts_node_start_byte(s->func_body), ts_node_end_byte(s->func_body)};
    h = pd_hash(h, f, sizeof f);
  }
  if (s->array) {
    h = pd_hash(h, &s->array->n, sizeof s->array->n);
    for (size_t i = 0; i < s->array->n; i++) {
      const sh_field *f = &s->array->v[i];
      unsigned char b[5] = {f->resolved, f->vanished, f->undefined_array, f->conditional,
                            (unsigned char)f->cert};
      h = pd_hash(h, b, sizeof b);
      h = mix_str(h, f->text);
      h = mix_str(h, f->cert_var);
      h = mix_str(h, f->unset_var);
      h = mix_str(h, f->group);
      h = mix_str(h, f->note);
      int files[2] = {f->file, f->note_file};
      h = pd_hash(h, files, sizeof files);
      h = mix_range(h, f->range);
      h = mix_range(h, f->note_range);
    }
  }
  return h;
}

uint64_t sh_shape_hash(const sh_env *e, const char *name) {
  const sh_entry *s = sh_lookup(e, name);
  uint64_t h = PD_HASH_SEED;
  if (!s) return h;
  unsigned char flags[3] = {1, s->set, s->array != NULL};
  h = pd_hash(h, flags, sizeof flags);
  if (!s->array) h = mix_str(h, s->set ? s->value : NULL); /* A+=(x) on a scalar keeps it */
  return h;
}

/* One name's state with its own copies of the strings (an env's arena dies with it). */
struct sh_saved {
  char *name;
  char *value;
  bool set, exported;
  sm_cert cert;
  char *cert_var;
  char *unset_from;
  int file;
  sm_range range;
  bool has_array;
  bool append;      /* fields are to be appended to the array (the rest is untouched) */
  sh_field *fields; /* strings owned */
  size_t nfields;
};

static const char *sh_dup_or_null(const char *s) { return s ? pd_xstrdup(s) : NULL; }

sh_saved *sh_save(const sh_env *e, const sh_write *w, sh_range_map map, void *ctx) {
  const sh_entry *s = sh_lookup(e, w->name);
  sh_saved *v = pd_xcalloc(1, sizeof *v);
  v->name = pd_xstrdup(w->name);
  if (!s) return v;
  size_t from = 0;
  if (w->append && s->array && s->array->n >= w->from) {
    v->append = true;
    from = w->from;
  }
  v->value = s->value ? pd_xstrdup(s->value) : NULL;
  v->set = s->set;
  v->cert = s->cert;
  v->cert_var = s->cert_var ? pd_xstrdup(s->cert_var) : NULL;
  v->unset_from = s->unset_from ? pd_xstrdup(s->unset_from) : NULL;
  v->exported = s->exported;
  v->file = s->file;
  v->range = s->range;
  if (map) map(ctx, v->file, &v->range);
  if (s->array) {
    v->has_array = true;
    v->nfields = s->array->n - from;
    v->fields = pd_xmalloc((v->nfields ? v->nfields : 1) * sizeof *v->fields);
    for (size_t i = 0; i < v->nfields; i++) {
      sh_field *f = &v->fields[i];
      *f = s->array->v[from + i];
      f->text = sh_dup_or_null(f->text);
      f->group = sh_dup_or_null(f->group);
      f->note = sh_dup_or_null(f->note);
      f->cert_var = sh_dup_or_null(f->cert_var);
      f->unset_var = sh_dup_or_null(f->unset_var);
      if (map) {
        map(ctx, f->file, &f->range);
        map(ctx, f->note_file, &f->note_range);
      }
    }
  }
  return v;
}

void sh_restore(sh_env *e, const sh_saved *v, sh_range_map map, void *ctx) {
  sh_entry *s = sh_insert(e, v->name);
  if (v->append && s->array) goto fields; /* the scalar part was not touched */
  free(s->value);
  s->value = v->value ? pd_xstrdup(v->value) : NULL;
  s->set = v->set;
  s->cert = v->cert;
  s->cert_var = v->cert_var ? sh_intern(e, v->cert_var, strlen(v->cert_var)) : NULL;
  s->unset_from = v->unset_from ? sh_intern(e, v->unset_from, strlen(v->unset_from)) : NULL;
  s->exported = v->exported;
  s->file = v->file;
  s->range = v->range;
  if (map) map(ctx, s->file, &s->range);
  if (!v->has_array) {
    if (s->array) s->array->n = 0; /* cannot happen: a statement does not delete an array */
    return;
  }
  if (!s->array) {
    s->array = pd_xcalloc(1, sizeof *s->array);
    *PD_PUSH(e->array_order, e->narrays, e->arrays_cap) = pd_xstrdup(v->name);
  }
  s->array->n = 0;
fields:
  for (size_t i = 0; i < v->nfields; i++) {
    sh_field f = v->fields[i];
    f.text = f.text ? sh_intern(e, f.text, strlen(f.text)) : NULL;
    f.group = f.group ? sh_intern(e, f.group, strlen(f.group)) : NULL;
    f.note = f.note ? sh_intern(e, f.note, strlen(f.note)) : NULL;
    f.cert_var = f.cert_var ? sh_intern(e, f.cert_var, strlen(f.cert_var)) : NULL;
    f.unset_var = f.unset_var ? sh_intern(e, f.unset_var, strlen(f.unset_var)) : NULL;
    if (map) {
      map(ctx, f.file, &f.range);
      map(ctx, f.note_file, &f.note_range);
    }
    sh_fields_push(s->array, &f);
  }
}

void sh_saved_free(sh_saved *v) {
  if (!v) return;
  free(v->name);
  free(v->value);
  free(v->cert_var);
  free(v->unset_from);
  for (size_t i = 0; i < v->nfields; i++) {
    free((char *)v->fields[i].text);
    free((char *)v->fields[i].group);
    free((char *)v->fields[i].note);
    free((char *)v->fields[i].cert_var);
    free((char *)v->fields[i].unset_var);
  }
  free(v->fields);
  free(v);
}
uint64_t sh_env_digest(const sh_env *e) {
  /* a sum of per-name hashes: the order names were first looked up in may differ between a
     resumed build and a fresh one, what they hold may not */
  uint64_t sum = 0;
  for (size_t i = 0; i < e->nentries; i++) {
    const sh_entry *s = &e->entries[i];
    if (!s->set && !s->array && !s->is_func) continue; /* only looked up */
    sum += pd_hash(sh_state_hash(e, s->name), s->name, strlen(s->name) + 1);
  }
  return sum;
}
