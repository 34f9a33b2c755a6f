/* data: the files of analyzer/data (rule catalog, messages, baselines, flag catalog), compiled
 * into the binary so that it never reads the source tree at run time.
 *
 * analyzer/data/embed.cmake turns every JSON file of analyzer/data into one generated C file that
 * defines pd_data_files[] and pd_data_nfiles; a build without that step (a development build of a
 * single library) reads them from PD_DATA_DIR instead. */
#ifndef PD_BASE_DATA_H
#define PD_BASE_DATA_H

#include <stddef.h>

typedef struct {
  const char *name;           /* "rules.json" */
  const unsigned char *data;  /* the file's bytes (not NUL-terminated) */
  size_t len;
} pd_data_file;

/* The text of data file `name` ("rules.json"), NUL-terminated, and its length. Caller frees;
 * NULL when there is no such file. */
char *pd_data_text(const char *name, size_t *len);
/* The embedded bytes of data file `name` (borrowed, static), or NULL when the build did not
 * embed it (development builds read files from PD_DATA_DIR instead: use pd_data_text). */
const unsigned char *pd_data_bytes(const char *name, size_t *len);

#endif
