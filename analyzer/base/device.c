#include "base/device.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VENDOR "vendor datasheet"

/* Usable memory: the device's memory less what the CUDA context and allocator keep. */
static const pd_device devices[] = {
    {"H20-96G", "H20 96GB", 95.0, 148, false, PD_DEV_GPU, VENDOR, 296, 44, 450, "NVLink 4", false},
    {"H20-141G", "H20 141GB", 140.0, 148, false, PD_DEV_GPU, VENDOR, 296, 44, 450, "NVLink 4", false},
    {"H800-80G", "H800 80GB", 79.5, 989, false, PD_DEV_GPU, VENDOR, 1979, 67, 200, "NVLink 4 (H800)", false},
    {"H100-80G", "H100 80GB", 79.5, 989, false, PD_DEV_GPU, VENDOR, 1979, 67, 450, "NVLink 4", false},
    {"H200-141G", "H200 141GB", 140.0, 989, false, PD_DEV_GPU, VENDOR, 1979, 67, 450, "NVLink 4", false},
    {"A100-80G", "A100 80GB", 79.0, 312, false, PD_DEV_GPU, VENDOR, NAN, 19.5, 300, "NVLink 3", false},
    {"A100-40G", "A100 40GB", 39.5, 312, false, PD_DEV_GPU, VENDOR, NAN, 19.5, 300, "NVLink 3", false},
    {"B200-192G", "B200 192GB", 178.0, 2250, true, PD_DEV_GPU, VENDOR, 4500, NAN, 900, "NVLink 5", false},
    {"L20-48G", "L20 48GB", 45.0, 119.5, false, PD_DEV_GPU, VENDOR, 239, 59.8, 32, "PCIe 4.0 x16", false},
    /* AMD's accelerator, for traces recorded on it (TraceLens's test traces are) */
    {"MI300X-192G", "MI300X 192GB", 190.0, 1307.4, false, PD_DEV_GPU, VENDOR, 2614.9, 163.4, 448,
     "Infinity Fabric", true},
    /* Relax's NPU recipes run on Ascend 910C (docker/npu-training.md) */
    /* a 910C package is two dies of 64 GB HBM each, and each die is one device to torch_npu
       (Huawei's Atlas A3 documentation counts 16 processors in 8 modules per node) */
    {"Ascend-910C", "Ascend 910C (64GB per die)", 63.0, NAN, false, PD_DEV_NPU,
     "vendor documentation (Atlas 800T A3: 128 GB HBM per 910C, two devices)", NAN, NAN, NAN, NULL, false},
    {"Ascend-910B", "Ascend 910B 64GB", 63.0, NAN, false, PD_DEV_NPU, VENDOR, NAN, NAN, NAN, NULL, false},
    /* klx and P800 are the same chip, Kunlunxin P800 (scripts/entrypoint/local-klx.sh), 96 GB HBM */
    {"P800", "Kunlunxin P800 96GB", 95.0, NAN, false, PD_DEV_XPU, VENDOR, NAN, NAN, NAN, NULL, false},
};

#define NDEVICES (sizeof devices / sizeof devices[0])

/* File-name and everyday words for a family. */
static const struct {
  const char *word, *id;
} aliases[] = {
    {"NPU", "Ascend-910C"}, {"ASCEND", "Ascend-910C"}, {"910C", "Ascend-910C"},
    {"910B", "Ascend-910B"}, {"KLX", "P800"}, {"KUNLUNXIN", "P800"}, {"XPU", "P800"},
};

size_t pd_device_count(void) { return NDEVICES; }
const pd_device *pd_device_at(size_t i) { return i < NDEVICES ? &devices[i] : NULL; }
const pd_device *pd_device_default(void) { return &devices[0]; }

static const pd_device *by_id(const char *id) {
  for (size_t i = 0; i < NDEVICES; i++)
    if (!strcmp(devices[i].id, id)) return &devices[i];
  return NULL;
}

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
    char id[32];
    normalise(devices[i].id, id, sizeof id);
    size_t k = strncmp(id, "ASCEND", 6) ? strcspn(id, "-") : strlen(id);
    if (strncmp(up, id, k) != 0 || isalnum((unsigned char)up[k])) continue;
    if (!best) {
      best = &devices[i];
      best_k = k;
    }
    /* a memory size after the family picks the variant (A100 40GB, H20 141GB) */
    long mem = size_after(up, k);
    if (mem > 0 && mem == strtol(id + k + 1, NULL, 10)) return &devices[i];
  }
  if (best) return with_size(best, size_after(up, best_k), custom);
  for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++) {
    size_t k = strlen(aliases[a].word);
    if (!strncmp(up, aliases[a].word, k) && !isalpha((unsigned char)up[k]))
      return with_size(by_id(aliases[a].id), size_after(up, k), custom);
  }
  return NULL;
}
