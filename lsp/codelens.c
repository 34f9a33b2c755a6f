#include "lsp/codelens.h"

#include <stdlib.h>

json_t *lens_lenses(const au_result *r, const fm_map *m, int file, const char *uri, const char *lang) {
  json_t *out = json_array();
  if (!r || !r->model || file != 0 || !r->model->launch_script) return out;
  char *title = au_budget_line(r, lang);
  if (!title) return out;
  json_t *lens = json_pack("{s:o,s:{s:o,s:s,s:[s]}}", "range", fm_range(m, 0, (sm_range){0}), "command", "title",
                           fm_string(title), "command", LENS_COMMAND, "arguments", uri);
  free(title);
  json_array_append_new(out, lens);
  return out;
}
