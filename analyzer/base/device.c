#include "base/device.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A word that means a device without being its family ("NPU", "KLX"). */
struct device_alias {
  const char *word;
  size_t device;
};

/* devices[], aliases[], NALIASES, DEFAULT_DEVICE: written by devc from analyzer/data/devices.json */
#include "generated/devices.inc"

#define NDEVICES (sizeof devices / sizeof devices[0])

size_t pd_device_count(void) { return NDEVICES; }
const pd_device *pd_device_at(size_t i) { return i < NDEVICES ? &devices[i] : NULL; }
const pd_device *pd_device_default(void) { return &devices[DEFAULT_DEVICE]; }

/* Upper-case, separators collapsed to '-': "a100 40gb" -> "A100-40GB". */
static void normalise(const char *name, char *up, size_t cap) {
  size_t n = 0;
  for (const char *p = name; *p && n + 1 < cap; p++) {
    if (isalnum((unsigned char)*p)) up[n++] = (char)toupper((unsigned char)*p);
    else if (n && up[n - 1] != '-') up[n++] = '-';
  }
  up[n] = '\0';
}

/* The memory size in a name after its family word ("-96G", " 96GB"), or 0. */
static long size_after(const char *up, size_t k) {
  const char *q = up + k;
  while (*q && !isdigit((unsigned char)*q)) q++;
  return strtol(q, NULL, 10);
}

static const pd_device *with_size(const pd_device *d, long mem, pd_device *custom) {
  if (!d || mem <= 0 || !isnan(d->usable_gib) || !custom) return d;
  *custom = *d;
  custom->usable_gib = (double)mem - 1.0;
  custom->source = "the memory size the user named";
  return custom;
}

const pd_device *pd_device_find(const char *name, pd_device *custom) {
  if (!name) return NULL;
  char up[64];
  normalise(name, up, sizeof up);
  const pd_device *best = NULL;
  size_t best_k = 0;
  for (size_t i = 0; i < NDEVICES; i++) {
    char fam[32];
    normalise(devices[i].family, fam, sizeof fam);
    size_t k = strlen(fam);
    if (strncmp(up, fam, k) != 0 || isalnum((unsigned char)up[k])) continue;
    if (!best) {
      best = &devices[i];
      best_k = k;
    }
    /* a memory size after the family picks the variant (A100 40GB, H20 141GB) */
    long mem = size_after(up, k);
    if (mem > 0 && mem == devices[i].variant_gb) return &devices[i];
  }
  if (best) return with_size(best, size_after(up, best_k), custom);
  for (size_t a = 0; a < NALIASES; a++) {
    size_t k = strlen(aliases[a].word);
    if (!strncmp(up, aliases[a].word, k) && !isalpha((unsigned char)up[k]))
      return with_size(&devices[aliases[a].device], size_after(up, k), custom);
  }
  return NULL;
}
