/* fuzz_kname: arbitrary bytes as kernel names, one a line (at most 64), through everything
 * trace/kname.h does with a name read from a trace: the demangler, the short forms at both
 * levels, cutting, markdown cells, and one table of all the lines. Every short name must fit in
 * TR_KNAME_MAX characters, and the table's names must differ whenever the full names do (unless a
 * line already holds " #", the numbering's own mark). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/kname.h"

#define MAX_LINES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  const char *names[MAX_LINES];
  size_t n = 0;
  bool marked = false;
  for (char *p = text; n < MAX_LINES;) {
    char *nl = strchr(p, '\n');
    if (nl) *nl = 0;
    names[n++] = p;
    marked |= strstr(p, " #") != NULL;
    if (!nl) break;
    p = nl + 1;
  }
  for (size_t i = 0; i < n; i++) {
    free(tr_kname_demangle(names[i]));
    for (int level = TR_KNAME_COMPACT; level <= TR_KNAME_ARGS; level++) {
      char *s = tr_kname_short(names[i], level);
      if (tr_kname_chars(s) > TR_KNAME_MAX) abort();
      free(s);
    }
    char *c = tr_kname_cap(names[i], 12);
    if (tr_kname_chars(c) > 12) abort();
    free(c);
    pd_buf b = {0};
    tr_kname_md_code(&b, names[i]);
    pd_buf_free(&b);
  }
  char **t = tr_kname_table(names, n);
  for (size_t i = 0; i < n; i++) {
    if (tr_kname_chars(t[i]) > TR_KNAME_MAX) abort();
    for (size_t j = 0; j < i && !marked; j++)
      if (strcmp(names[i], names[j]) && !strcmp(t[i], t[j])) abort();
  }
  tr_kname_table_free(t, n);
  free(text);
  return 0;
}
