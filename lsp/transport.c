#include "lsp/transport.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"

enum { LT_CHUNK = 64 * 1024, LT_MAX_HEADER_LINE = 8 * 1024 };

struct lt_reader {
  int fd;
  size_t max_body;
  char *buf; /* unread bytes are buf[start..end) */
  size_t start, end, cap;
  bool eof;
};

lt_reader *lt_reader_new(int fd, size_t max_body) {
  lt_reader *r = pd_xcalloc(1, sizeof *r);
  r->fd = fd;
  r->max_body = max_body;
  r->cap = LT_CHUNK;
  r->buf = pd_xmalloc(r->cap);
  return r;
}

void lt_reader_free(lt_reader *r) {
  if (!r) return;
  free(r->buf);
  free(r);
}

/* Reads more bytes into the buffer. Returns the count read, 0 at EOF, -1 on error. */
static ssize_t fill(lt_reader *r) {
  if (r->eof) return 0;
  if (r->start > 0) {
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
  }
  if (r->end == r->cap) {
    r->cap *= 2;
    r->buf = pd_xrealloc(r->buf, r->cap);
  }
  for (;;) {
    ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) r->eof = true;
    if (n > 0) r->end += (size_t)n;
    return n;
  }
}

bool lt_pending(lt_reader *r) {
  if (r->end > r->start || r->eof) return true;
  struct pollfd p = {.fd = r->fd, .events = POLLIN};
  int n;
  do n = poll(&p, 1, 0);
  while (n < 0 && errno == EINTR);
  return n > 0;
}

typedef enum { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_ERROR } line_status;

/* The next header line without its terminator ("\r\n" or "\n"), valid until the next call. */
static line_status next_line(lt_reader *r, const char **line, size_t *len) {
  size_t scanned = 0;
  for (;;) {
    char *nl = memchr(r->buf + r->start + scanned, '\n', r->end - r->start - scanned);
    if (nl) {
      *line = r->buf + r->start;
      *len = (size_t)(nl - *line);
      r->start += *len + 1;
      if (*len > 0 && (*line)[*len - 1] == '\r') (*len)--;
      return LINE_OK;
    }
    scanned = r->end - r->start;
    if (scanned > LT_MAX_HEADER_LINE) {
      /* Drop the overlong line up to its newline without keeping it in memory. */
      for (;;) {
        char *e = memchr(r->buf + r->start, '\n', r->end - r->start);
        if (e) {
          r->start = (size_t)(e - r->buf) + 1;
          return LINE_TOO_LONG;
        }
        r->start = r->end;
        ssize_t n = fill(r);
        if (n == 0) return LINE_EOF;
        if (n < 0) return LINE_ERROR;
      }
    }
    ssize_t n = fill(r); /* may move the data to the front; scanned counts from start */
    if (n == 0) return LINE_EOF;
    if (n < 0) return LINE_ERROR;
  }
}

static const char *find_nocase(const char *s, size_t n, const char *needle) {
  size_t m = strlen(needle);
  for (size_t i = 0; i + m <= n; i++) {
    size_t j = 0;
    while (j < m && (s[i + j] | 0x20) == needle[j]) j++;
    if (j == m) return s + i;
  }
  return NULL;
}

static bool is_token_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Parses the value after "content-length:"; false unless it is exactly a decimal number. */
static bool parse_length(const char *s, size_t n, uint64_t *out) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i == n || s[i] < '0' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i != n) return false;
  *out = v;
  return true;
}

/* Copies (or, with dst NULL, drops) n body bytes. Returns false at EOF or error. */
static bool read_body(lt_reader *r, char *dst, uint64_t n) {
  while (n > 0) {
    if (r->end == r->start) {
      ssize_t got = fill(r);
      if (got <= 0) return false;
    }
    size_t avail = r->end - r->start;
    size_t take = n < avail ? (size_t)n : avail;
    if (dst) {
      memcpy(dst, r->buf + r->start, take);
      dst += take;
    }
    r->start += take;
    n -= take;
  }
  return true;
}

lt_status lt_read(lt_reader *r, char **body, size_t *len) {
  *body = NULL;
  *len = 0;
  static const char key[] = "content-length:";
  bool have_length = false, any_line = false;
  uint64_t length = 0;
  for (;;) {
    const char *line;
    size_t n;
    line_status ls = next_line(r, &line, &n);
    if (ls == LINE_EOF) return LT_EOF;
    if (ls == LINE_ERROR) return LT_IO_ERROR;
    if (ls == LINE_TOO_LONG) return LT_BAD_HEADER;
    if (n == 0) {
      if (!any_line) continue; /* stray blank lines between messages are harmless */
      break;
    }
    any_line = true;
    const char *k = find_nocase(line, n, key);
    if (k && k != line) {
      /* Garbage ran into a header: report it, and restart parsing at the header. */
      r->start = (size_t)(k - r->buf);
      return LT_BAD_HEADER;
    }
    if (k) {
      if (!parse_length(k + sizeof key - 1, n - (sizeof key - 1), &length)) return LT_BAD_HEADER;
      have_length = true;
      continue;
    }
    size_t i = 0;
    while (i < n && is_token_char(line[i])) i++;
    if (i == 0 || i == n || line[i] != ':') return LT_BAD_HEADER; /* not a header at all */
    /* Another header (Content-Type): nothing in it changes how the body is read. */
  }
  if (!have_length) return LT_BAD_HEADER;
  if (length > r->max_body) {
    *len = length > SIZE_MAX ? SIZE_MAX : (size_t)length;
    return read_body(r, NULL, length) ? LT_TOO_LARGE : LT_EOF;
  }
  char *b = pd_xmalloc((size_t)length + 1);
  if (!read_body(r, b, length)) {
    free(b);
    return LT_EOF;
  }
  b[length] = '\0';
  *body = b;
  *len = (size_t)length;
  return LT_MESSAGE;
}

int lt_write(int fd, const char *body, size_t len) {
  char head[64];
  int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
  const char *parts[2] = {head, body};
  size_t sizes[2] = {(size_t)hn, len};
  for (int p = 0; p < 2; p++) {
    const char *s = parts[p];
    size_t left = sizes[p];
    while (left > 0) {
      ssize_t w = write(fd, s, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        return -1;
      }
      s += w;
      left -= (size_t)w;
    }
  }
  return 0;
}
