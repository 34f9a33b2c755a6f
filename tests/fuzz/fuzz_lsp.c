/* fuzz_lsp: arbitrary bytes on the language server's stdin (framing, JSON-RPC, dispatch,
 * documents, analysis, hovers, code actions), through srv_serve exactly as `perf-doctor lsp`
 * runs it. Replies go to /dev/null; what is checked is that the server neither crashes, hangs,
 * leaks nor trips a sanitizer, whatever it reads.
 *
 * One command is kept out: perfDoctor.traceSummary scans a path it is given (a folder may be
 * the whole file system) and may write a summary next to it, which is neither bounded nor
 * harmless in a fuzzing loop; it has its own target (fuzz_trace). Inputs that could name it
 * (literally or through \u escapes of ASCII letters) are skipped. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "lsp/server.h"
#include "tests/fuzz/fuzz_util.h"

static bool contains(const uint8_t *d, size_t n, const char *lit) {
  size_t k = strlen(lit);
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(d + i, lit, k)) return true;
  return false;
}

static int hexv(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A \uXXXX escape of a printable ASCII character could spell a command name. */
static bool escapes_ascii(const uint8_t *d, size_t n) {
  for (size_t i = 0; i + 6 <= n; i++) {
    if (d[i] != '\\' || d[i + 1] != 'u') continue;
    int v = 0;
    bool ok = true;
    for (int k = 0; k < 4 && ok; k++) {
      int h = hexv(d[i + 2 + k]);
      ok = h >= 0;
      v = v * 16 + h;
    }
    if (ok && v >= 0x20 && v < 0x7f) return true;
  }
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (contains(data, size, "traceSummary") || escapes_ascii(data, size)) return -1;
  int in = fz_memfd(data, size);
  int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (out < 0) abort();
  /* A small body limit so that the too-large path is reachable from small inputs. */
  srv_options opt = {.max_message_bytes = 1u << 16};
  srv_serve(in, out, &opt);
  close(in);
  close(out);
  return 0;
}
