/* fuzz_util: helpers shared by the libFuzzer targets (test code, not part of the product).
 *
 * The trace reader and the language server take paths and file descriptors, not buffers, so
 * the targets hand them an anonymous in-memory file (memfd): nothing touches the disk and each
 * run starts from a fresh file. */
#ifndef PD_FUZZ_UTIL_H
#define PD_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* An in-memory file holding data[0..n), positioned at its start; -1 on failure. Caller closes. */
static inline int fz_memfd(const uint8_t *data, size_t n) {
  int fd = memfd_create("pd-fuzz", 0);
  if (fd < 0) {
    perror("memfd_create");
    abort(); /* the harness cannot run; not a finding */
  }
  size_t off = 0;
  while (off < n) {
    ssize_t w = write(fd, data + off, n - off);
    if (w <= 0) abort();
    off += (size_t)w;
  }
  if (lseek(fd, 0, SEEK_SET) != 0) abort();
  return fd;
}

/* "/proc/self/fd/N" for fd, in buf. */
static inline const char *fz_fd_path(int fd, char *buf, size_t n) {
  snprintf(buf, n, "/proc/self/fd/%d", fd);
  return buf;
}

/* data[0..n) as a NUL-terminated malloc'd string (embedded NULs kept before the end). */
static inline char *fz_cstr(const uint8_t *data, size_t n) {
  char *s = malloc(n + 1);
  if (!s) abort();
  for (size_t i = 0; i < n; i++) s[i] = (char)data[i];
  s[n] = '\0';
  return s;
}

#endif
