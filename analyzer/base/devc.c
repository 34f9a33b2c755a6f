/* devc: a build-time tool, `devc devices.json devices.inc`: the device table (analyzer/data/
 * devices.json) checked and written as the C initialisers base/device.c compiles in, so that a new
 * device is one data entry and no C, and looking one up parses nothing at run time. A document
 * the check refuses (an unknown or missing key, a figure that is not a positive number or null, a
 * link figure without its name, a repeated id or alias, a default that is not a device Relax
 * targets with known memory) fails the build with every reason. Not part of any library. */
#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  int nerrs;
} checker;

static void bad(checker *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("devc: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  c->nerrs++;
}

static const char *const device_keys[] = {"id", "family", "variant_gb", "display", "class", "usable_gib",
                                          "bf16_tflops", "fp8_tflops", "fp32_tflops", "link_gbps", "link",
                                          "blackwell", "trace_only", "aliases", "source", "note"};
static const char *const figures[] = {"usable_gib", "bf16_tflops", "fp8_tflops", "fp32_tflops", "link_gbps"};
static const char *const classes[] = {"gpu", "npu", "xpu"};

static int listed(const char *k, const char *const *keys, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(k, keys[i])) return 1;
  return 0;
}
#define LISTED(k, a) listed((k), (a), sizeof(a) / sizeof((a)[0]))

/* A string the generated C can hold as it is: printable ASCII or UTF-8, no quote or backslash. */
static int plain(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p == '"' || *p == '\\' || *p < 0x20) return 0;
  return *s != '\0';
}

static const char *text(checker *c, json_t *d, const char *id, const char *key, int required) {
  json_t *v = json_object_get(d, key);
  if (!v || json_is_null(v)) {
    if (required) bad(c, "%s: \"%s\" is required", id, key);
    return NULL;
  }
  if (!json_is_string(v) || !plain(json_string_value(v))) {
    bad(c, "%s: \"%s\" must be a non-empty string without quotes or backslashes", id, key);
    return NULL;
  }
  return json_string_value(v);
}

/* An upper-case word of letters and digits, '-' between: what base/device.c's lookup compares. */
static int word(const char *s) {
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (!(isupper((unsigned char)*p) || isdigit((unsigned char)*p) || (*p == '-' && p != s && p[1]))) return 0;
  return 1;
}

static void check_device(checker *c, json_t *d, size_t i, json_t *seen_ids, json_t *seen_alias) {
  char where[32];
  snprintf(where, sizeof where, "device %zu", i);
  if (!json_is_object(d)) {
    bad(c, "%s is not an object", where);
    return;
  }
  const char *id = text(c, d, where, "id", 1);
  if (!id) id = where;
  else if (json_object_get(seen_ids, id)) bad(c, "%s: the id is given twice", id);
  else json_object_set_new(seen_ids, id, json_true());
  const char *key;
  json_t *v;
  json_object_foreach(d, key, v) if (!LISTED(key, device_keys)) bad(c, "%s: unknown key \"%s\"", id, key);
  text(c, d, id, "display", 1);
  text(c, d, id, "source", 1);
  text(c, d, id, "note", 0);
  const char *fam = text(c, d, id, "family", 1), *cls = text(c, d, id, "class", 1);
  if (fam && strncasecmp(fam, id, strlen(fam)) != 0) bad(c, "%s: the id must begin with its family \"%s\"", id, fam);
  if (cls && !LISTED(cls, classes)) bad(c, "%s: class \"%s\" is not gpu, npu or xpu", id, cls);
  for (size_t f = 0; f < sizeof figures / sizeof figures[0]; f++) {
    v = json_object_get(d, figures[f]);
    if (!v) bad(c, "%s: \"%s\" is required (null when nobody states it)", id, figures[f]);
    else if (!json_is_null(v) && !(json_is_number(v) && json_number_value(v) > 0))
      bad(c, "%s: \"%s\" must be a positive number or null", id, figures[f]);
  }
  int has_gbps = json_is_number(json_object_get(d, "link_gbps"));
  if (has_gbps != (text(c, d, id, "link", 0) != NULL)) bad(c, "%s: \"link\" names the link \"link_gbps\" measures", id);
  v = json_object_get(d, "variant_gb");
  if (v && !(json_is_integer(v) && json_integer_value(v) > 0)) bad(c, "%s: \"variant_gb\" must be a positive integer", id);
  const char *flags[] = {"blackwell", "trace_only"};
  for (size_t f = 0; f < 2; f++)
    if ((v = json_object_get(d, flags[f])) && !json_is_boolean(v)) bad(c, "%s: \"%s\" must be true or false", id, flags[f]);
  json_t *al = json_object_get(d, "aliases");
  if (al && !json_is_array(al)) bad(c, "%s: \"aliases\" must be a list of words", id);
  size_t k;
  json_array_foreach(al, k, v) {
    const char *w = json_is_string(v) ? json_string_value(v) : "";
    if (!word(w)) bad(c, "%s: alias %zu must be an upper-case word (letters, digits, '-')", id, k);
    else if (json_object_get(seen_alias, w)) bad(c, "%s: alias \"%s\" is taken", id, w);
    else json_object_set_new(seen_alias, w, json_true());
  }
}

static void check(checker *c, json_t *root) {
  if (!json_is_object(root)) {
    bad(c, "the document is not an object");
    return;
  }
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) if (strcmp(key, "about") && strcmp(key, "default") && strcmp(key, "devices"))
      bad(c, "unknown top-level key \"%s\"", key);
  json_t *devs = json_object_get(root, "devices"), *ids = json_object(), *aliases = json_object();
  if (!json_is_array(devs) || !json_array_size(devs)) bad(c, "\"devices\" must be a non-empty list");
  size_t i;
  json_array_foreach(devs, i, v) check_device(c, v, i, ids, aliases);
  const char *def = json_string_value(json_object_get(root, "default"));
  json_t *d = NULL;
  json_array_foreach(devs, i, v) if (def && json_is_object(v) && json_is_string(json_object_get(v, "id")) &&
                                     !strcmp(def, json_string_value(json_object_get(v, "id")))) d = v;
  if (!d) bad(c, "\"default\" must name one of the devices");
  else if (json_is_true(json_object_get(d, "trace_only")) || !json_is_number(json_object_get(d, "usable_gib")))
    bad(c, "the default device must be one Relax targets, with known memory");
  json_decref(ids);
  json_decref(aliases);
}

static void figure(FILE *out, json_t *d, const char *key) {
  json_t *v = json_object_get(d, key);
  if (json_is_number(v)) fprintf(out, " .%s = %.17g,", key, json_number_value(v));
  else fprintf(out, " .%s = NAN,", key);
}

static void string_or_null(FILE *out, json_t *d, const char *key) {
  const char *s = json_string_value(json_object_get(d, key));
  if (s) fprintf(out, " .%s = \"%s\",", key, s);
  else fprintf(out, " .%s = NULL,", key);
}

static void emit(FILE *out, json_t *root) {
  json_t *devs = json_object_get(root, "devices"), *d, *a;
  const char *def = json_string_value(json_object_get(root, "default"));
  size_t i, k, def_at = 0;
  fputs("/* Generated by devc from analyzer/data/devices.json: do not edit. */\n", out);
  fputs("static const pd_device devices[] = {\n", out);
  json_array_foreach(devs, i, d) {
    const char *cls = json_string_value(json_object_get(d, "class"));
    if (!strcmp(json_string_value(json_object_get(d, "id")), def)) def_at = i;
    fputs("  {", out);
    const char *strs[] = {"id", "display", "family", "source", "link"};
    for (k = 0; k < 5; k++) string_or_null(out, d, strs[k]);
    for (k = 0; k < sizeof figures / sizeof figures[0]; k++) figure(out, d, figures[k]);
    fprintf(out, " .variant_gb = %d,", (int)json_integer_value(json_object_get(d, "variant_gb")));
    fprintf(out, " .cls = %s,", !strcmp(cls, "gpu") ? "PD_DEV_GPU" : !strcmp(cls, "npu") ? "PD_DEV_NPU" : "PD_DEV_XPU");
    fprintf(out, " .blackwell = %s,", json_is_true(json_object_get(d, "blackwell")) ? "true" : "false");
    fprintf(out, " .trace_only = %s},\n", json_is_true(json_object_get(d, "trace_only")) ? "true" : "false");
  }
  fputs("};\n\nstatic const struct device_alias aliases[] = {\n", out);
  size_t nalias = 0;
  json_array_foreach(devs, i, d) json_array_foreach(json_object_get(d, "aliases"), k, a) {
    fprintf(out, "  {\"%s\", %zu},\n", json_string_value(a), i);
    nalias++;
  }
  if (!nalias) fputs("  {NULL, 0},\n", out);
  fprintf(out, "};\n\n#define NALIASES %zu\n#define DEFAULT_DEVICE %zu\n", nalias, def_at);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fputs("usage: devc DEVICES.json OUT.inc\n", stderr);
    return 2;
  }
  json_error_t err;
  json_t *root = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &err);
  if (!root) {
    fprintf(stderr, "devc: %s:%d:%d: %s\n", argv[1], err.line, err.column, err.text);
    return 1;
  }
  checker c = {0};
  check(&c, root);
  FILE *out = c.nerrs ? NULL : fopen(argv[2], "w");
  int ok = out != NULL;
  if (ok) emit(out, root);
  if (out && fclose(out) != 0) ok = 0;
  if (!c.nerrs && !ok) fprintf(stderr, "devc: cannot write %s\n", argv[2]);
  json_decref(root);
  return ok ? 0 : 1;
}
