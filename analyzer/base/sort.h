/* sort: a stable merge sort that finds the order already there. Profiler traces list most events
 * in time order, and the big sorts of a trace are of nearly sorted arrays: blocks of 16 are
 * insertion-sorted, then merged bottom-up, and a merge whose two runs are already in order is
 * skipped.
 *
 * pd_sort_inline is the same sort for a comparator the compiler can see (a static function of
 * the caller's file) and an element size known at compile time: inlined there, no comparison is
 * a call, which on the trace's arrays was most of qsort's time. */
#ifndef PD_BASE_SORT_H
#define PD_BASE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* Elements up to this size (an insertion keeps one aside). */
#define PD_SORT_MAX_SIZE 64

/* As qsort(v, n, size, cmp), but stable (larger elements than PD_SORT_MAX_SIZE go to qsort). */
void pd_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));

static inline __attribute__((always_inline)) void pd_sort_inline(void *v, size_t n, size_t size,
                                                                 int (*cmp)(const void *, const void *)) {
  enum { BLOCK = 16 };
  if (size > PD_SORT_MAX_SIZE) { /* folded away where size is a constant */
    qsort(v, n, size, cmp);
    return;
  }
  char *a = v, x[PD_SORT_MAX_SIZE];
  for (size_t b = 0; b < n; b += BLOCK) {
    size_t e = b + BLOCK < n ? b + BLOCK : n;
    for (size_t i = b + 1; i < e; i++) {
      if (cmp(a + (i - 1) * size, a + i * size) <= 0) continue;
      memcpy(x, a + i * size, size);
      size_t j = i;
      for (; j > b && cmp(x, a + (j - 1) * size) < 0; j--) memcpy(a + j * size, a + (j - 1) * size, size);
      memcpy(a + j * size, x, size);
    }
  }
  if (n <= BLOCK) return;
  char *tmp = NULL;
  for (size_t w = BLOCK; w < n; w *= 2)
    for (size_t b = 0; b + w < n; b += 2 * w) {
      size_t e = b + 2 * w < n ? b + 2 * w : n, m = b + w;
      if (cmp(a + (m - 1) * size, a + m * size) <= 0) continue; /* already in order */
      if (!tmp) tmp = pd_xmalloc(n * size);
      /* the left run aside, then merged back: ties take the left one (stable) */
      memcpy(tmp, a + b * size, w * size);
      size_t i = 0, j = m, k = b;
      while (i < w && j < e) {
        bool right = cmp(a + j * size, tmp + i * size) < 0;
        memcpy(a + k++ * size, right ? a + j++ * size : tmp + i++ * size, size);
      }
      if (i < w) memcpy(a + k * size, tmp + i * size, (w - i) * size);
    }
  free(tmp);
}

#endif
