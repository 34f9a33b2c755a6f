/* tmsgc: a build-time tool, `tmsgc trace_messages.json trace_messages.bin`: the trace layer's
 * message catalog checked and compiled into the form the program embeds (trace/messages.h). A
 * document the loader refuses (a key the list lacks or that lacks a language, a template naming an
 * unknown argument) fails the build with the loader's reasons; the compiled form is read back and
 * must hold every text as it went in. Not part of any library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "trace/messages.h"

static int same(const tr_msgs *a, const tr_msgs *b) {
  for (int i = 0; i < TM_COUNT; i++)
    for (int l = 0; l < TR_NLANGS; l++) {
      const char *x = tr_msgs_text(a, (tr_msg_id)i, l), *y = tr_msgs_text(b, (tr_msg_id)i, l);
      if (!x || !y || strcmp(x, y) != 0) return 0;
    }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fputs("usage: tmsgc TRACE_MESSAGES.json OUT.bin\n", stderr);
    return 2;
  }
  size_t len = 0, nerrs = 0;
  char *text = pd_read_file(argv[1], (size_t)16 << 20, &len);
  char **errs = NULL;
  tr_msgs *m = tr_msgs_load(text, len, &errs, &nerrs);
  free(text);
  pd_buf out = {0};
  tr_msgs_to_binary(m, &out);
  tr_msgs *back = nerrs ? NULL : tr_msgs_from_binary((const unsigned char *)out.data, out.len, &errs, &nerrs);
  int ok = !nerrs && same(m, back);
  for (size_t i = 0; i < nerrs; i++) fprintf(stderr, "tmsgc: %s\n", errs[i]);
  if (!nerrs && !ok) fputs("tmsgc: the compiled form does not read back the same\n", stderr);
  FILE *f = ok ? fopen(argv[2], "wb") : NULL;
  if (ok && (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f) != 0)) {
    fprintf(stderr, "tmsgc: cannot write %s\n", argv[2]);
    ok = 0;
  }
  for (size_t i = 0; i < nerrs; i++) free(errs[i]);
  free(errs);
  pd_buf_free(&out);
  tr_msgs_free(m);
  tr_msgs_free(back);
  return ok ? 0 : 1;
}
