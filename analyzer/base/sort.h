/* sort: qsort that first checks whether the array is already in order (one pass). Profiler
 * traces list most events in time order, so the big sorts of a trace are often no-ops. */
#ifndef PD_BASE_SORT_H
#define PD_BASE_SORT_H

#include <stddef.h>

/* As qsort(v, n, size, cmp); the result is the same whether or not the pass finds it sorted. */
void pd_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
