#include "base/sort.h"

#include <stdlib.h>

void pd_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  const char *p = v;
  size_t i = 1;
  while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0) i++;
  if (i < n) qsort(v, n, size, cmp);
}
