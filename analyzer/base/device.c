#include "base/device.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const pd_device devices[] = {
    {"H20-96G", "H20 96GB", 95.0, 148, false},
    {"H20-141G", "H20 141GB", 140.0, 148, false},
    {"H800-80G", "H800 80GB", 79.5, 989, false},
    {"H100-80G", "H100 80GB", 79.5, 989, false},
    {"A100-80G", "A100 80GB", 79.0, 312, false},
    {"A100-40G", "A100 40GB", 39.5, 312, false},
    {"H200-141G", "H200 141GB", 140.0, 989, false},
    {"B200-192G", "B200 192GB", 178.0, 2250, true},
    {"L20-48G", "L20 48GB", 45.0, 119.5, false},
};

#define NDEVICES (sizeof devices / sizeof devices[0])

size_t pd_device_count(void) { return NDEVICES; }
const pd_device *pd_device_at(size_t i) { return i < NDEVICES ? &devices[i] : NULL; }
const pd_device *pd_device_default(void) { return &devices[0]; }

const pd_device *pd_device_find(const char *name) {
  if (!name) return NULL;
  /* upper-case, separators collapsed to '-': "a100 40gb" -> "A100-40GB" */
  char up[64];
  size_t n = 0;
  for (const char *p = name; *p && n + 1 < sizeof up; p++) {
    if (isalnum((unsigned char)*p)) up[n++] = (char)toupper((unsigned char)*p);
    else if (n && up[n - 1] != '-') up[n++] = '-';
  }
  up[n] = '\0';
  const pd_device *best = NULL;
  for (size_t i = 0; i < NDEVICES; i++) {
    size_t k = strcspn(devices[i].id, "-");
    if (strncmp(up, devices[i].id, k) != 0 || isalnum((unsigned char)up[k])) continue;
    if (!best) best = &devices[i];
    /* a memory size after the family picks the variant (A100 40GB, H20 141GB) */
    const char *q = up + k;
    while (*q && !isdigit((unsigned char)*q)) q++;
    long mem = strtol(q, NULL, 10);
    if (mem > 0 && mem == strtol(devices[i].id + k + 1, NULL, 10)) return &devices[i];
  }
  return best;
}
