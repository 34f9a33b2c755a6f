/* device: the one table of accelerators perf-doctor knows, with what the analyses need of each.
 *
 * The table is data (analyzer/data/devices.json), checked and compiled in at build time by devc
 * (base/devc.c): a new device is an entry there. Memory rules need what PyTorch can allocate on
 * one device; the trace analyses (MFU) need the dense peak throughput. A figure nobody states (the
 * vendor, Relax) is NAN, never a guess: the rules that need it then say so instead of judging. A
 * device is found by a loose name: "h100", "H100-80G", "A100 40GB", "h20 141gb", the file-name
 * words "npu", "klx", "P800" (its family or an alias, then optionally the memory size that picks a
 * variant). */
#ifndef PD_BASE_DEVICE_H
#define PD_BASE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { PD_DEV_GPU, PD_DEV_NPU, PD_DEV_XPU } pd_device_class;

typedef struct {
  const char *id;      /* canonical name: "H20-96G" */
  const char *display; /* as reports print it: "H20 96GB" */
  const char *family;  /* the word a name begins with to mean it: "H20" */
  const char *source;  /* where the figures come from */
  const char *link;    /* the link link_gbps measures: "NVLink 4", "PCIe 4.0 x16"; NULL when unknown */
  double usable_gib;   /* memory usable to PyTorch, GiB; NAN when not known */
  double bf16_tflops;  /* dense bf16 / fp16 tensor peak, TFLOP/s; NAN when not known */
  double fp8_tflops;   /* dense fp8 tensor peak, TFLOP/s; NAN when not known or none */
  double fp32_tflops;  /* fp32 without tensor cores (TF32 off), TFLOP/s; NAN when not known */
  double link_gbps;    /* device-to-device link inside a node, GB/s per direction; NAN when not known */
  int variant_gb;      /* the memory size that picks this one of its family ("H20 141GB"); 0 if none */
  pd_device_class cls;
  bool blackwell;
  bool trace_only;     /* known for reading traces recorded on it; Relax does not target it */
} pd_device;

/* The device a loose name means; NULL when unknown. A name with a memory size ("P800-96G") for a
 * family whose memory the table does not state gives that size (written to *custom, which must
 * outlive the result). */
const pd_device *pd_device_find(const char *name, pd_device *custom);
/* The device assumed when nobody names one (devices.json's "default": H20 96GB, the framework's
 * reference machine). */
const pd_device *pd_device_default(void);
/* The table, for listing in messages and documentation. */
size_t pd_device_count(void);
const pd_device *pd_device_at(size_t i);

#endif
