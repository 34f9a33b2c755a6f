/* data: the shape of the data files embedded into the binary at build time.
 *
 * analyzer/data/embed.cmake turns every JSON file of analyzer/data into one generated C file that
 * defines pd_data_files[] and pd_data_nfiles; audit/catalog.c reads them (ac_data_text). */
#ifndef PD_AUDIT_DATA_H_
#define PD_AUDIT_DATA_H_

#include <stddef.h>

typedef struct {
  const char *name;           /* "rules.json" */
  const unsigned char *data;  /* the file's bytes (not NUL-terminated) */
  size_t len;
} pd_data_file;

#endif
