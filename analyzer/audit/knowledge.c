#include "audit/knowledge.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/catalog.h"
#include "base/alloc.h"
#include "base/data.h"
#include "base/device.h"
#include "base/str.h"

typedef struct {
  const char **v; /* NULL-terminated */
  size_t n, cap;
} words;

typedef struct {
  ak_family fam;
  ak_gdn gdn;
  const char **names;
  size_t nnames;
} family_entry;

struct ak_knowledge {
  json_t *doc;           /* owns every string the entries point to */
  family_entry *fams;
  size_t nfams;
  double default_vocab;
  const char *default_vocab_family;
  words intent, debug, mm_flag, mm_prefix, mm_model, hf_mm_model, rl_jobs;
  const char **jobs;
  ax_expr **job_when;
  size_t njobs;
  const char **devices; /* device triggers: what the script's own text says it runs on */
  ax_expr **device_when;
  size_t ndevices;
};

static void words_free(words *w) { free(w->v); }

void ak_free(ak_knowledge *k) {
  if (!k) return;
  for (size_t i = 0; i < k->nfams; i++) {
    free(k->fams[i].names);
    free((void *)k->fams[i].gdn.vh_hidden);
    free((void *)k->fams[i].gdn.vh_heads);
    free((void *)k->fams[i].gdn.vh_moe);
  }
  free(k->fams);
  words *all[] = {&k->intent, &k->debug, &k->mm_flag, &k->mm_prefix, &k->mm_model, &k->hf_mm_model, &k->rl_jobs};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) words_free(all[i]);
  for (size_t i = 0; i < k->njobs; i++) ax_free(k->job_when[i]);
  free(k->job_when);
  free(k->jobs);
  for (size_t i = 0; i < k->ndevices; i++) ax_free(k->device_when[i]);
  free(k->device_when);
  free(k->devices);
  json_decref(k->doc);
  free(k);
}

/* ---- loading, with the shape checked ---- */

typedef struct {
  const char *origin;
  char *err; /* the first problem */
} loader;

static bool fail(loader *ld, const char *path, const char *what) {
  if (!ld->err) ld->err = pd_xasprintf("%s: %s: %s", ld->origin, path, what);
  return false;
}

static bool read_words(loader *ld, json_t *arr, const char *path, words *out) {
  if (!json_is_array(arr)) return fail(ld, path, "needs a list of strings");
  for (size_t i = 0; i < json_array_size(arr); i++) {
    const char *s = json_string_value(json_array_get(arr, i));
    if (!s || !*s) return fail(ld, path, "needs non-empty strings");
    *PD_PUSH(out->v, out->n, out->cap) = s;
  }
  *PD_PUSH(out->v, out->n, out->cap) = NULL;
  out->n--;
  return true;
}

static double number_of(json_t *v) { return json_is_number(v) ? json_number_value(v) : NAN; }

static bool read_gdn(loader *ld, json_t *g, const char *id, ak_gdn *out) {
  static const char *const keys[] = {"freq", "key_heads", "key_dim", "value_dim", "conv_kernel"};
  double *dst[] = {&out->freq, &out->key_heads, &out->key_dim, &out->value_dim, &out->conv_kernel};
  for (size_t i = 0; i < 5; i++) {
    *dst[i] = number_of(json_object_get(g, keys[i]));
    if (!(*dst[i] >= 1)) return fail(ld, id, "gated_delta_net needs freq, key_heads, key_dim, value_dim, conv_kernel (numbers >= 1)");
  }
  json_t *vh = json_object_get(g, "value_heads");
  size_t n = json_array_size(vh);
  double *h = pd_xcalloc(n ? n : 1, sizeof *h), *a = pd_xcalloc(n ? n : 1, sizeof *a);
  bool *moe = pd_xcalloc(n ? n : 1, sizeof *moe);
  out->vh_hidden = h, out->vh_heads = a, out->vh_moe = moe, out->nvh = n;
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(vh, i);
    h[i] = number_of(json_object_get(e, "hidden"));
    a[i] = number_of(json_object_get(e, "heads"));
    moe[i] = json_is_true(json_object_get(e, "moe"));
    if (!(h[i] > 0) || !(a[i] > 0) || !json_is_boolean(json_object_get(e, "moe")))
      return fail(ld, id, "value_heads entries need hidden, heads (numbers) and moe (true/false)");
  }
  return true;
}

static bool read_family(loader *ld, json_t *o, family_entry *e) {
  const char *id = json_string_value(json_object_get(o, "id"));
  if (!id) return fail(ld, "families", "every family needs an \"id\"");
  e->fam.id = id;
  words w = {0};
  if (!read_words(ld, json_object_get(o, "names"), id, &w) || !w.n)
    return free(w.v), fail(ld, id, "needs \"names\": the prefixes of model names it covers");
  e->names = w.v, e->nnames = w.n;
  e->fam.vocab = number_of(json_object_get(o, "vocab"));
  e->fam.hf_multimodal = json_is_true(json_object_get(o, "hf_multimodal"));
  const char *mlp = json_string_value(json_object_get(o, "mlp"));
  e->fam.gated_mlp = mlp && !strcmp(mlp, "gated");
  e->fam.attention = json_string_value(json_object_get(o, "attention"));
  if (e->fam.attention && strcmp(e->fam.attention, "shared_kv") && strcmp(e->fam.attention, "kda"))
    return fail(ld, id, "\"attention\" is shared_kv or kda");
  json_t *g = json_object_get(o, "gated_delta_net");
  if (g) {
    if (!read_gdn(ld, g, id, &e->gdn)) return false;
    e->fam.gdn = &e->gdn;
  }
  return true;
}

/* A list of {key, when}: names and their triggers, bound against the facts' names. */
static bool read_triggers(loader *ld, json_t *list, const char *what, const char *key, const char ***names,
                          ax_expr ***whens, size_t *count) {
  size_t n = json_array_size(list);
  if (!n) {
    char *need = pd_xasprintf("needs a non-empty list of {%s, when}", key);
    bool r = fail(ld, what, need);
    free(need);
    return r;
  }
  *names = pd_xcalloc(n, sizeof **names);
  *whens = pd_xcalloc(n, sizeof **whens);
  for (size_t i = 0; i < n; i++) {
    json_t *j = json_array_get(list, i);
    const char *name = json_string_value(json_object_get(j, key));
    const char *when = json_string_value(json_object_get(j, "when"));
    if (!name || !when) {
      char *need = pd_xasprintf("every entry needs \"%s\" and \"when\"", key);
      bool r = fail(ld, what, need);
      free(need);
      return r;
    }
    char *msg = NULL;
    ax_expr *e = ax_parse(when, &msg);
    if (e && !ax_bind(e, ac_resolve, NULL, &msg)) ax_free(e), e = NULL;
    if (!e) {
      char *why = pd_xasprintf("%s: %s", name, msg ? msg : "does not parse");
      fail(ld, what, why);
      free(why);
      free(msg);
      return false;
    }
    (*names)[*count] = name;
    (*whens)[(*count)++] = e;
  }
  return true;
}

/* Every device a trigger names is one the device table knows. */
static bool check_devices(loader *ld, const ak_knowledge *k) {
  for (size_t i = 0; i < k->ndevices; i++)
    if (!pd_device_find(k->devices[i], NULL)) {
      char *why = pd_xasprintf("%s: not a device of the device table", k->devices[i]);
      fail(ld, "devices", why);
      free(why);
      return false;
    }
  return true;
}

static bool read_all(loader *ld, ak_knowledge *k) {
  json_t *d = k->doc, *fams = json_object_get(d, "families");
  if (!json_is_array(fams)) return fail(ld, "families", "needs a list");
  k->fams = pd_xcalloc(json_array_size(fams) + 1, sizeof *k->fams);
  for (size_t i = 0; i < json_array_size(fams); i++)
    if (!read_family(ld, json_array_get(fams, i), &k->fams[k->nfams++])) return false;
  json_t *dv = json_object_get(d, "default_vocab");
  k->default_vocab = number_of(json_object_get(dv, "vocab"));
  k->default_vocab_family = json_string_value(json_object_get(dv, "family"));
  if (!(k->default_vocab > 0) || !k->default_vocab_family) return fail(ld, "default_vocab", "needs vocab and family");
  json_t *mm = json_object_get(d, "multimodal");
  return read_words(ld, json_object_get(d, "intent_words"), "intent_words", &k->intent) &&
         read_words(ld, json_object_get(d, "debug_name_words"), "debug_name_words", &k->debug) &&
         read_words(ld, json_object_get(mm, "flag_words"), "multimodal.flag_words", &k->mm_flag) &&
         read_words(ld, json_object_get(mm, "flag_prefixes"), "multimodal.flag_prefixes", &k->mm_prefix) &&
         read_words(ld, json_object_get(mm, "model_words"), "multimodal.model_words", &k->mm_model) &&
         read_words(ld, json_object_get(mm, "hf_multimodal_model_words"), "multimodal.hf_multimodal_model_words",
                    &k->hf_mm_model) &&
         read_words(ld, json_object_get(d, "rl_jobs"), "rl_jobs", &k->rl_jobs) &&
         read_triggers(ld, json_object_get(d, "jobs"), "jobs", "job", &k->jobs, &k->job_when, &k->njobs) &&
         read_triggers(ld, json_object_get(d, "devices"), "devices", "device", &k->devices, &k->device_when,
                       &k->ndevices) &&
         check_devices(ld, k);
}

ak_knowledge *ak_load(const char *text, size_t len, const char *origin, char **err) {
  json_error_t je;
  ak_knowledge *k = pd_xcalloc(1, sizeof *k);
  k->doc = json_loadb(text, len, 0, &je);
  loader ld = {origin, NULL};
  if (!k->doc) ld.err = pd_xasprintf("%s:%d:%d: %s", origin, je.line, je.column, je.text);
  else read_all(&ld, k);
  if (ld.err) {
    *err = ld.err;
    ak_free(k);
    return NULL;
  }
  *err = NULL;
  return k;
}

ak_knowledge *ak_builtin(char **err) {
  size_t len;
  char *text = pd_data_text("knowledge.json", &len);
  if (!text) {
    *err = pd_xstrdup("knowledge.json: missing from this build");
    return NULL;
  }
  ak_knowledge *k = ak_load(text, len, "knowledge.json", err);
  free(text);
  return k;
}

/* ---- look-ups ---- */

static bool starts_nocase(const char *s, const char *prefix) {
  for (; *prefix; s++, prefix++)
    if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix)) return false;
  return true;
}

const ak_family *ak_family_of(const ak_knowledge *k, const char *model) {
  const ak_family *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; k && model && i < k->nfams; i++)
    for (size_t j = 0; j < k->fams[i].nnames; j++) {
      size_t n = strlen(k->fams[i].names[j]);
      if (n > best_len && starts_nocase(model, k->fams[i].names[j])) best = &k->fams[i].fam, best_len = n;
    }
  return best;
}

double ak_default_vocab(const ak_knowledge *k, const char **family) {
  *family = k->default_vocab_family;
  return k->default_vocab;
}

const char *const *ak_intent_words(const ak_knowledge *k) { return k->intent.v; }
const char *const *ak_debug_name_words(const ak_knowledge *k) { return k->debug.v; }
const char *const *ak_mm_flag_words(const ak_knowledge *k) { return k->mm_flag.v; }
const char *const *ak_mm_flag_prefixes(const ak_knowledge *k) { return k->mm_prefix.v; }
const char *const *ak_mm_model_words(const ak_knowledge *k) { return k->mm_model.v; }
const char *const *ak_hf_mm_model_words(const ak_knowledge *k) { return k->hf_mm_model.v; }

size_t ak_njobs(const ak_knowledge *k) { return k->njobs; }
const char *ak_job(const ak_knowledge *k, size_t i, const ax_expr **when) {
  if (i >= k->njobs) return NULL;
  *when = k->job_when[i];
  return k->jobs[i];
}

size_t ak_ndevices(const ak_knowledge *k) { return k->ndevices; }
const char *ak_device(const ak_knowledge *k, size_t i, const ax_expr **when) {
  if (i >= k->ndevices) return NULL;
  *when = k->device_when[i];
  return k->devices[i];
}

bool ak_is_rl(const ak_knowledge *k, const char *job) {
  for (size_t i = 0; job && i < k->rl_jobs.n; i++)
    if (!strcmp(k->rl_jobs.v[i], job)) return true;
  return false;
}
