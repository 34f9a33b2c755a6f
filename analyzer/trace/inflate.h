/* trace_inflate: the bytes of a trace file, inflated when it is gzip-compressed.
 *
 * A file that starts with the gzip magic is inflated in a stream (concatenated members are
 * read one after the other; bytes after the last member that are not another member are
 * ignored, as gzip and zlib's gzread do); any other file is read as it is. Inflation uses
 * Intel's ISA-L when the build found it (several times faster than zlib on these files) and
 * zlib otherwise; the environment variable PERF_DOCTOR_INFLATE=zlib selects zlib at run time,
 * for comparison. Memory is two fixed buffers, whatever the file size. */
#ifndef PD_TRACE_INFLATE_H
#define PD_TRACE_INFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct tr_src tr_src;

/* Opens `path`. On failure returns NULL and sets *err (caller frees) to "PATH: cannot open: ...".
 * Errors, then and later, are said in lang (TR_EN, TR_ZH of trace/messages.h). */
tr_src *tr_src_open(const char *path, int lang, char **err);

/* Reads up to `n` bytes of the (inflated) content into `buf`. Returns the count, 0 at the end,
 * or -1 on error; tr_src_error then describes it (owned by the source). */
ssize_t tr_src_read(tr_src *s, char *buf, size_t n);

/* The last error, NULL when none: e.g. "truncated gzip stream (compressed input ends early,
 * after 123 bytes)" or "corrupt gzip data (invalid deflate block, compressed byte 456)". */
const char *tr_src_error(const tr_src *s);

bool tr_src_gzip(const tr_src *s);      /* the file is gzip-compressed */

/* The inflater this build uses by default: "isa-l" or "zlib". */
const char *tr_inflate_default(void);

void tr_src_close(tr_src *s);

#endif
