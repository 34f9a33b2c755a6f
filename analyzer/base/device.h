/* device: the one table of accelerators perf-doctor knows, with what the analyses need of each.
 *
 * Memory rules need what PyTorch can allocate on one device; the trace analyses (MFU) need the
 * dense peak throughput. A device is found by a loose name: "h100", "H100-80G", "A100 40GB",
 * "h20 141gb" (the family, then optionally the memory size that picks a variant). */
#ifndef PD_BASE_DEVICE_H
#define PD_BASE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char *id;      /* canonical name: "H20-96G" */
  const char *display; /* as reports print it: "H20 96GB" */
  double usable_gib;   /* memory usable to PyTorch, GiB */
  double bf16_tflops;  /* dense bf16 peak, TFLOP/s */
  bool blackwell;
} pd_device;

/* The device a loose name means; NULL when unknown. */
const pd_device *pd_device_find(const char *name);
/* The device assumed when nobody names one (H20 96GB, the framework's reference machine). */
const pd_device *pd_device_default(void);
/* The table, for listing in messages and documentation. */
size_t pd_device_count(void);
const pd_device *pd_device_at(size_t i);

#endif
