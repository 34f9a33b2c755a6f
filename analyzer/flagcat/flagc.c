/* flagc: a build-time tool, `flagc flags.json flags.bin`: the flag catalog compiled into the
 * binary form the program embeds (flagbin.c). It checks the result by reading it back: every
 * option and every spelling must come out as they went in. Not part of any library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/path.h"
#include "flagcat/flagcat.h"

static int same(const fc_catalog *a, const fc_catalog *b) {
  if (fc_count(a) != fc_count(b)) return 0;
  for (size_t i = 0; i < fc_count(a); i++) {
    const fc_option *x = fc_at(a, i), *y = fc_at(b, i);
    if (x->nnames != y->nnames || strcmp(x->help, y->help) || strcmp(x->default_text, y->default_text) ||
        x->nchoices != y->nchoices || x->ndep_values != y->ndep_values)
      return 0;
    for (size_t k = 0; k < x->nnames; k++)
      if (strcmp(x->names[k], y->names[k]) || fc_find(b, x->names[k]) != fc_find(b, y->names[k])) return 0;
  }
  for (int p = 0; p < FC_NPARSERS; p++)
    if (strcmp(fc_origin(a, (fc_parser)p), fc_origin(b, (fc_parser)p))) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fputs("usage: flagc FLAGS.json OUT.bin\n", stderr);
    return 2;
  }
  size_t len;
  char *text = pd_read_file(argv[1], (size_t)64 << 20, &len);
  char *err = NULL;
  fc_catalog *c = text ? fc_load(text, len, argv[1], &err) : NULL;
  free(text);
  if (!c) {
    fprintf(stderr, "flagc: %s\n", err ? err : "cannot read the catalog");
    free(err);
    return 1;
  }
  pd_buf out = {0};
  fc_to_binary(c, &out);
  fc_catalog *back = fc_from_binary((const unsigned char *)out.data, out.len, argv[2], &err);
  int ok = back && same(c, back);
  if (!ok) fprintf(stderr, "flagc: %s\n", err ? err : "the binary form does not read back the same");
  FILE *f = ok ? fopen(argv[2], "wb") : NULL;
  if (ok && (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f) != 0)) {
    fprintf(stderr, "flagc: cannot write %s\n", argv[2]);
    ok = 0;
  }
  free(err);
  fc_free(back);
  fc_free(c);
  pd_buf_free(&out);
  return ok ? 0 : 1;
}
