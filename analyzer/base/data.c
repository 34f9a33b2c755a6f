#include "base/data.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/limits.h"
#include "base/path.h"

#ifdef PD_DATA_EMBEDDED
extern const pd_data_file pd_data_files[];
extern const size_t pd_data_nfiles;
#endif

char *pd_data_text(const char *name, size_t *len) {
#ifdef PD_DATA_EMBEDDED
  for (size_t i = 0; i < pd_data_nfiles; i++)
    if (!strcmp(pd_data_files[i].name, name)) {
      if (len) *len = pd_data_files[i].len;
      return pd_xstrndup((const char *)pd_data_files[i].data, pd_data_files[i].len);
    }
  return NULL;
#elif defined(PD_DATA_DIR)
  char *path = pd_xasprintf("%s/%s", PD_DATA_DIR, name);
  size_t n = 0;
  char *text = pd_read_file(path, PD_MAX_FILE_BYTES, &n);
  free(path);
  if (text && len) *len = n;
  return text;
#else
  (void)name;
  (void)len;
  return NULL;
#endif
}

const unsigned char *pd_data_bytes(const char *name, size_t *len) {
#ifdef PD_DATA_EMBEDDED
  for (size_t i = 0; i < pd_data_nfiles; i++)
    if (!strcmp(pd_data_files[i].name, name)) {
      *len = pd_data_files[i].len;
      return pd_data_files[i].data;
    }
#else
  (void)name;
#endif
  *len = 0;
  return NULL;
}
