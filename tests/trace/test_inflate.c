/* The inflater: ISA-L and zlib give the same bytes as gzip itself, on a single member, on
 * concatenated members, with trailing bytes after the last member, and on the real traces;
 * a truncated or damaged stream is an error that says so, with either engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/path.h"
#include "harness.h"
#include "trace/messages.h"
#include "trace/inflate.h"

#define REAL_GZ PD_HTA_DIR "/hta-nccl-parser-config/nccl_data.json.gz"

static char tmpdir[64];

/* Everything tr_src gives for `path`, with the engine chosen by PERF_DOCTOR_INFLATE. */
static char *slurp(const char *path, const char *engine, size_t *n, char **err) {
  if (engine) setenv("PERF_DOCTOR_INFLATE", engine, 1);
  else unsetenv("PERF_DOCTOR_INFLATE");
  *err = NULL;
  *n = 0;
  tr_src *s = tr_src_open(path, TR_EN, err);
  if (!s) return NULL;
  pd_buf b = {0};
  char chunk[7001]; /* an odd size, so reads end mid-block */
  ssize_t k;
  while ((k = tr_src_read(s, chunk, sizeof chunk)) > 0) pd_buf_append(&b, chunk, (size_t)k);
  if (k < 0) *err = pd_xstrdup(tr_src_error(s));
  tr_src_close(s);
  *n = b.len;
  return b.data ? b.data : pd_xstrdup("");
}

static void sh(const char *cmd) { CHECK(system(cmd) == 0); }

static void same_as(const char *path, const char *want, size_t want_n, const char *what) {
  const char *engines[] = {NULL, "zlib"};
  for (int i = 0; i < 2; i++) {
    size_t n;
    char *err;
    char *got = slurp(path, engines[i], &n, &err);
    pd_test_checks++;
    if (!got || err || n != want_n || memcmp(got, want, n) != 0) {
      pd_test_failures++;
      fprintf(stderr, "%s (%s): %zu bytes, want %zu; %s\n", what, engines[i] ? engines[i] : "default", n,
              want_n, err ? err : "");
    }
    free(got);
    free(err);
  }
}

static void fails_with(const char *path, const char *needle, const char *what) {
  const char *engines[] = {NULL, "zlib"};
  for (int i = 0; i < 2; i++) {
    size_t n;
    char *err;
    free(slurp(path, engines[i], &n, &err));
    pd_test_checks++;
    if (!err || !strstr(err, needle)) {
      pd_test_failures++;
      fprintf(stderr, "%s (%s): error %s, want \"%s\"\n", what, engines[i] ? engines[i] : "default",
              err ? err : "(none)", needle);
    }
    free(err);
  }
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/pd-inflate-XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  printf("default inflater: %s\n", tr_inflate_default());
  /* data: 3 MB of trace-like text, so several input and output buffers are crossed */
  pd_buf d = {0};
  for (int i = 0; i < 30000; i++)
    pd_buf_printf(&d, "{\"ph\": \"X\", \"name\": \"kernel_%d\", \"ts\": %d.%03d, \"dur\": %d},\n", i * 7919 % 1000, i, i % 1000, i % 97);
  char *plain = pd_xasprintf("%s/a.json", tmpdir);
  FILE *f = fopen(plain, "wb");
  fwrite(d.data, 1, d.len, f);
  fclose(f);
  char *cmd = pd_xasprintf("cd %s && gzip -c a.json > one.gz && gzip -1 -c a.json > part.gz && "
                           "cat one.gz part.gz > two.gz && cat one.gz > tail.gz && printf 'junk' >> tail.gz && "
                           "head -c 100000 one.gz > cut.gz && cp one.gz flip.gz && "
                           "printf '\\377\\377\\377\\377\\377\\377\\377\\377' | dd of=flip.gz bs=1 seek=50000 conv=notrunc 2>/dev/null",
                           tmpdir);
  sh(cmd);
  free(cmd);
  char *p;
  same_as(plain, d.data, d.len, "plain file");
  p = pd_xasprintf("%s/one.gz", tmpdir);
  same_as(p, d.data, d.len, "one member");
  free(p);
  pd_buf two = {0};
  pd_buf_append(&two, d.data, d.len);
  pd_buf_append(&two, d.data, d.len);
  p = pd_xasprintf("%s/two.gz", tmpdir);
  same_as(p, two.data, two.len, "two members");
  free(p);
  p = pd_xasprintf("%s/tail.gz", tmpdir);
  same_as(p, d.data, d.len, "trailing bytes after the member");
  free(p);
  p = pd_xasprintf("%s/cut.gz", tmpdir);
  fails_with(p, "truncated gzip stream", "truncated");
  free(p);
  p = pd_xasprintf("%s/flip.gz", tmpdir);
  fails_with(p, "corrupt gzip data", "damaged");
  free(p);
  /* a real trace: both engines agree with gzip -dc */
  {
    CHECK(access(REAL_GZ, R_OK) == 0);
    char *out = pd_xasprintf("%s/real.json", tmpdir);
    cmd = pd_xasprintf("gzip -dc '%s' > '%s'", REAL_GZ, out);
    sh(cmd);
    free(cmd);
    size_t n;
    char *want = pd_read_file(out, (size_t)1 << 30, &n);
    CHECK(want != NULL);
    if (want) same_as(REAL_GZ, want, n, "real trace");
    free(want);
    free(out);
  }
  cmd = pd_xasprintf("rm -rf '%s'", tmpdir);
  sh(cmd);
  free(cmd);
  free(plain);
  free(d.data);
  free(two.data);
  return pd_test_exit("trace_inflate");
}
