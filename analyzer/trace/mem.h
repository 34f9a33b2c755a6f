/* trace_mem: GPU memory as the profiler recorded it (profile_memory=True): the `[memory]`
 * instant events carry the caching allocator's running totals ("Total Allocated", "Total
 * Reserved") for one device ("Device Type" 1 CUDA, 6 HIP; 0 is the CPU and is ignored).
 *
 * The overall peaks are exact: every event is looked at. Per-step peaks are exact too while the
 * events fit a bounded buffer or the steps are known when they arrive (Kineto lists the
 * ProfilerStep spans before the memory events); past that the buffer is thinned, pairs of
 * neighbours kept as their maximum, and a step's figure becomes a lower bound (steps_exact is
 * then false). Memory stays bounded whatever the trace's size. */
#ifndef PD_TRACE_MEM_H
#define PD_TRACE_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  long step;
  int64_t peak_alloc, peak_reserved; /* bytes; -1 when no event fell in the step */
} tr_mem_step;

typedef struct {
  bool measured;              /* a GPU device had [memory] events */
  int device_type, device_id; /* of the device reported (the one with the highest peak) */
  int gpu_devices;            /* GPU devices with events */
  long samples;               /* events for the reported device */
  int64_t peak_alloc, peak_reserved;
  int64_t at_ns;              /* trace clock, ns: when the allocated peak was reached */
  int at_tid;                 /* the thread index the caller gave with that event */
  tr_mem_step *steps;         /* one per window given to tr_mem_finish, same order */
  size_t n_steps;
  bool steps_exact;
} tr_memory;

/* A step window on the trace clock (ns). */
typedef struct {
  long step;
  int64_t b, e;
} tr_mem_win;

/* The index of the window (sorted by start, not overlapping) holding moment t, or -1. */
long tr_mem_win_at(const tr_mem_win *w, size_t n, int64_t t);

typedef struct tr_mem_col tr_mem_col;

tr_mem_col *tr_mem_new(void);
/* One [memory] event. tid is the caller's thread index (kept for the peak). */
void tr_mem_add(tr_mem_col *m, int dev_type, int dev_id, int64_t ts, int64_t alloc, int64_t reserved, int tid);
/* Offers the step windows known so far (sorted by start, not overlapping) so that buffered
 * events can be settled; call when tr_mem_wants_windows says so. */
bool tr_mem_wants_windows(const tr_mem_col *m);
void tr_mem_settle(tr_mem_col *m, const tr_mem_win *w, size_t n);
/* The result over the final windows (sorted by start). *out is overwritten; free its steps
 * with tr_memory_free. Frees the collector. */
void tr_mem_finish(tr_mem_col *m, const tr_mem_win *w, size_t n, tr_memory *out);
void tr_memory_free(tr_memory *mem);

#endif
