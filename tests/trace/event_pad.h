/* event_pad: test input for the event parser, which reads TR_EVENT_PAD zero bytes past the end
 * of its input (trace/event.h). */
#ifndef PD_TEST_EVENT_PAD_H
#define PD_TEST_EVENT_PAD_H

#include <stdlib.h>
#include <string.h>

#include "trace/event.h"

/* text[0..n) followed by TR_EVENT_PAD zero bytes. The copy lives until the next call: a test
 * reads the slices of one parse at a time. Still reachable at exit, which is not a leak. */
static inline const char *event_padded(const char *text, size_t n) {
  static char *buf;
  static size_t cap;
  if (n + TR_EVENT_PAD > cap) {
    cap = n + TR_EVENT_PAD;
    free(buf);
    buf = malloc(cap);
    if (!buf) abort();
  }
  memcpy(buf, text, n);
  memset(buf + n, 0, TR_EVENT_PAD);
  return buf;
}

#endif
