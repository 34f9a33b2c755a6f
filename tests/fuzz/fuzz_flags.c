/* fuzz_flags: the flag catalog loader and the Python reader of a Relax checkout.
 *
 * Byte 0 bit 0 set: the rest is a Python source: ps_read_options on the whole file and on the
 * functions named `add_a_arguments` and `add_b_arguments`, then the options it gave loaded as a
 * catalog and merged over the built-in one (look-ups, suggestions and value checks on every name
 * they define). Bit 1 set (bit 0 clear): the rest is the binary form the build embeds
 * (fc_from_binary), exercised the same way. Both clear: the rest is a flag catalog (JSON): fc_load, then every option's arity,
 * type name, JSON, suggestions for a mangled spelling of each name, and its value checks on a
 * few words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "flagcat/flagcat.h"
#include "pysrc/pysrc.h"

static void exercise(const fc_catalog *c) {
  static const char *const words[] = {"1", "two", "1e-6", "full", "{\"a\": 1}", "", "False"};
  for (size_t i = 0; i < fc_count(c); i++) {
    const fc_option *o = fc_at(c, i);
    int min, max;
    fc_arity(o, &min, &max);
    (void)fc_type_name(o);
    json_decref(fc_option_json(c, o));
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
      char *why = NULL;
      if (fc_check_value(o, words[w], &why) != FC_VALUE_OK) (void)fc_nearest_choice(o, words[w]);
      free(why);
    }
    for (size_t k = 0; k < o->nnames && k < 4; k++) {
      char *typo = pd_xasprintf("%sx", o->names[k]);
      const char *near[3];
      size_t n = fc_suggest(c, typo, near, 3);
      for (size_t j = 0; j < n; j++) (void)fc_find(c, near[j]);
      (void)fc_dropped(c, typo);
      free(typo);
    }
  }
  for (int p = 0; p < FC_NPARSERS; p++) (void)fc_origin(c, (fc_parser)p);
}

static void python(const char *text, size_t len) {
  static const char *const only[] = {"add_a_arguments", "add_b_arguments"};
  for (int mode = 0; mode < 2; mode++) {
    json_t *opts = json_array();
    char *err = NULL;
    (void)ps_read_options("fuzz.py", text, len, mode ? only : NULL, mode ? 2 : 0, opts, &err);
    free(err);
    json_t *doc = json_pack("{s:i,s:o}", "perf_doctor_flags", 1, "options", opts);
    fc_catalog *own = fc_from_json(doc, "fuzz.py", &err);
    free(err);
    json_decref(doc);
    if (!own) continue;
    exercise(own);
    fc_catalog *base = fc_builtin(&err);
    free(err);
    if (base) {
      fc_catalog *m = fc_merge(base, own, FC_RELAX, "fuzz");
      for (size_t i = 0; i < fc_count(own); i++)
        for (size_t k = 0; k < fc_at(own, i)->nnames; k++) (void)fc_find(m, fc_at(own, i)->names[k]);
      fc_free(m);
      fc_free(base);
    }
    fc_free(own);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (1u << 20)) return 0;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  char *copy = pd_xstrndup(text, len); /* the readers take NUL-terminated text */
  if (data[0] & 1) {
    python(copy, len);
  } else if (data[0] & 2) {
    char *err = NULL;
    fc_catalog *c = fc_from_binary(data + 1, len, "fuzz.bin", &err);
    free(err);
    if (c) exercise(c);
    fc_free(c);
  } else {
    char *err = NULL;
    fc_catalog *c = fc_load(copy, len, "fuzz.json", &err);
    free(err);
    if (c) exercise(c);
    fc_free(c);
  }
  free(copy);
  return 0;
}
