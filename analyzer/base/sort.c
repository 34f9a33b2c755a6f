#include "base/sort.h"

void pd_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  pd_sort_inline(v, n, size, cmp);
}
