/* transport: LSP base protocol framing (Content-Length headers) over file descriptors.
 *
 * The reader owns its own buffer on top of read(2) rather than a FILE*, so that "is more input
 * pending?" can be answered exactly (buffered bytes, then poll): the server uses that to read
 * every queued message before it starts an analysis that a newer edit would supersede.
 *
 * Bad framing never stops the reader: a header block without a usable Content-Length is reported
 * as LT_BAD_HEADER and skipped, a body over the size limit is read and dropped (LT_TOO_LARGE),
 * and the reader resynchronises on the next "Content-Length:" header. */
#ifndef PD_LSP_TRANSPORT_H
#define PD_LSP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct lt_reader lt_reader;

typedef enum {
  LT_MESSAGE,    /* a complete body was read */
  LT_EOF,        /* end of input (possibly in the middle of a message) */
  LT_BAD_HEADER, /* a header block without a valid Content-Length was skipped */
  LT_TOO_LARGE,  /* a body larger than the limit was skipped */
  LT_IO_ERROR    /* read(2) failed; errno is set */
} lt_status;

/* A reader on fd (not closed by lt_reader_free). Bodies over max_body bytes are refused.
 * Caller frees with lt_reader_free. */
lt_reader *lt_reader_new(int fd, size_t max_body);
void lt_reader_free(lt_reader *r);

/* Blocks until the next message. On LT_MESSAGE *body is a malloc'd NUL-terminated copy that the
 * caller frees and *len its length (the body may contain NUL bytes). On LT_TOO_LARGE *len is the
 * announced length. On other statuses *body is NULL. */
lt_status lt_read(lt_reader *r, char **body, size_t *len);

/* True when input is available without blocking (buffered bytes, readable fd, or hang-up). */
bool lt_pending(lt_reader *r);

/* Writes one framed message (header + body) to fd, retrying short writes and EINTR. Returns 0,
 * or -1 with errno set (EPIPE once the client has gone). */
int lt_write(int fd, const char *body, size_t len);

#endif
