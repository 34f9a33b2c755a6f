/* fuzz_partial: arbitrary bytes as `trace --partial` documents, through the loader and, when it
 * accepts one, the whole rendering a merge does (cross-rank comparison with a second copy of the
 * rank, markdown, JSON, the SVG and a comparison of the two). A partial that loads must render
 * whatever its numbers say: nothing in a partial may index past what it holds. The markdown, SVG
 * and comparison are rendered in English or Chinese by the input's length. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace/compare.h"
#include "trace/cross.h"
#include "trace/partial.h"
#include "trace/summary.h"
#include "trace/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tr_msgs *msgs; /* the fuzzer's one catalog, loaded on the first input */
  if (!msgs) msgs = tr_msgs_builtin(NULL, NULL);
  const tr_text tx = {msgs, (size & 1) ? TR_ZH : TR_EN};
  json_t *doc = json_loadb((const char *)data, size, 0, NULL);
  if (!doc) return 0;
  tr_rank_opts ro;
  char *err = NULL;
  tr_rank *a = tr_partial_load(doc, &ro, &err);
  tr_rank *b = a ? tr_partial_load(doc, &ro, &err) : NULL;
  if (a && b) {
    tr_rank *both[2] = {a, b};
    tr_cross cross;
    tr_cross_compute(both, 2, &cross);
    tr_report rep = {"fuzz", both, 2, &cross, ro.include_last, NULL, &tx};
    free(tr_summary_md(&rep));
    json_t *j = tr_summary_json_value(&rep);
    free(tr_svg(j, &tx));
    json_t *c = tr_compare(j, j, "a", "b", msgs);
    free(tr_compare_md(c, &tx));
    json_decref(c);
    json_decref(j);
    tr_cross_free(&cross);
  }
  tr_rank_free(a);
  tr_rank_free(b);
  free(err);
  json_decref(doc);
  return 0;
}
