#include "trace/inflate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef PD_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "base/alloc.h"
#include "trace/messages.h"

/* Compressed input is read in chunks of this size: 256 KiB keeps read() calls rare (about 5 MB
 * of JSON each) without adding to the reader's memory bound. */
#define IN_CAP ((size_t)1 << 18)

typedef enum { ENG_NONE, ENG_ZLIB, ENG_ISAL } engine;

struct tr_src {
  int fd;
  engine eng;
  unsigned char *in;    /* compressed input: in[pos..len) not yet consumed */
  size_t pos, len;
  bool in_eof;          /* read() returned 0 */
  bool member_done;     /* the current gzip member ended; the next may follow */
  bool done;            /* no more output */
  uint64_t in_total;    /* bytes read from the file so far */
  char *err;
  int lang; /* the language errors are said in (TR_EN, TR_ZH) */
  z_stream z;
#ifdef PD_HAVE_ISAL
  struct inflate_state isal;
#endif
};

static ssize_t src_fail(tr_src *s, char *msg) {
  if (!s->err) s->err = msg;
  else free(msg);
  s->done = true;
  return -1;
}

/* The file offset of the next compressed byte not yet consumed. */
static long long src_in_off(const tr_src *s) { return (long long)(s->in_total - (s->len - s->pos)); }

/* Reads more compressed input after the unconsumed bytes. False on a read error. */
static bool src_refill(tr_src *s) {
  if (s->pos > 0) {
    memmove(s->in, s->in + s->pos, s->len - s->pos);
    s->len -= s->pos;
    s->pos = 0;
  }
  while (s->len < IN_CAP && !s->in_eof) {
    ssize_t n = read(s->fd, s->in + s->len, IN_CAP - s->len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      src_fail(s, TR_SAID_IN(s->lang, TM_ERR_READ_IO, PD_MS(strerror(errno))));
      return false;
    }
    if (n == 0) s->in_eof = true;
    s->len += (size_t)n;
    s->in_total += (uint64_t)n;
    if (n > 0) break;
  }
  return true;
}

const char *tr_inflate_default(void) {
#ifdef PD_HAVE_ISAL
  return "isa-l";
#else
  return "zlib";
#endif
}

static engine pick_engine(void) {
  const char *want = getenv("PERF_DOCTOR_INFLATE");
  if (want && strcmp(want, "zlib") == 0) return ENG_ZLIB;
#ifdef PD_HAVE_ISAL
  return ENG_ISAL;
#else
  return ENG_ZLIB;
#endif
}

static void member_start(tr_src *s) {
#ifdef PD_HAVE_ISAL
  if (s->eng == ENG_ISAL) {
    isal_inflate_reset(&s->isal);
    s->isal.crc_flag = ISAL_GZIP;
    s->member_done = false;
    return;
  }
#endif
  inflateReset(&s->z);
  s->member_done = false;
}

tr_src *tr_src_open(const char *path, int lang, char **err) {
  *err = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = TR_SAID_IN(lang, TM_ERR_OPEN, PD_MS(path), PD_MS(strerror(errno)));
    return NULL;
  }
  tr_src *s = pd_xcalloc(1, sizeof *s);
  s->fd = fd;
  s->lang = lang;
  s->in = pd_xmalloc(IN_CAP);
  if (!src_refill(s) || (s->len < 2 && !src_refill(s))) {
    *err = pd_xasprintf("%s: %s", path, s->err);
    tr_src_close(s);
    return NULL;
  }
  if (s->len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
    s->eng = pick_engine();
#ifdef PD_HAVE_ISAL
    if (s->eng == ENG_ISAL) isal_inflate_init(&s->isal);
#endif
    if (s->eng == ENG_ZLIB && inflateInit2(&s->z, 15 + 16) != Z_OK) {
      *err = TR_SAID_IN(lang, TM_ERR_ZLIB_START, PD_MS(path));
      tr_src_close(s);
      return NULL;
    }
    member_start(s);
  }
  return s;
}

/* After a member ended: starts the next one, or ends the stream when what follows is not a
 * gzip member. True when there is a member to inflate. */
static bool next_member(tr_src *s) {
  if (s->len - s->pos < 2 && !s->in_eof && !src_refill(s)) return false;
  if (s->len - s->pos < 2 || s->in[s->pos] != 0x1f || s->in[s->pos + 1] != 0x8b) {
    s->done = true;
    return false;
  }
  member_start(s);
  return true;
}

static ssize_t truncated(tr_src *s) {
  return src_fail(s, TR_SAID_IN(s->lang, TM_ERR_GZ_TRUNCATED, PD_MI(s->in_total)));
}

static ssize_t read_zlib(tr_src *s, char *buf, size_t n) {
  s->z.next_out = (Bytef *)buf;
  s->z.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
  s->z.next_in = s->in + s->pos;
  s->z.avail_in = (uInt)(s->len - s->pos);
  int rc = inflate(&s->z, Z_NO_FLUSH);
  s->pos = s->len - s->z.avail_in;
  ssize_t got = (ssize_t)((Bytef *)s->z.next_out - (Bytef *)buf);
  if (rc == Z_STREAM_END) s->member_done = true;
  else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR)
    return src_fail(s, TR_SAID_IN(s->lang, TM_ERR_GZ_CORRUPT, PD_MS(s->z.msg ? s->z.msg : "invalid deflate data"),
                                  PD_MI(src_in_off(s))));
  return got;
}

#ifdef PD_HAVE_ISAL
static const char *isal_what(int rc) {
  switch (rc) {
  case ISAL_INVALID_BLOCK: return "invalid deflate block";
  case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
  case ISAL_INVALID_LOOKBACK: return "invalid lookback distance";
  case ISAL_INVALID_WRAPPER: return "invalid gzip header";
  case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
  case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
  default: return "invalid deflate data";
  }
}

static ssize_t read_isal(tr_src *s, char *buf, size_t n) {
  s->isal.next_out = (uint8_t *)buf;
  s->isal.avail_out = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
  s->isal.next_in = s->in + s->pos;
  s->isal.avail_in = (uint32_t)(s->len - s->pos);
  int rc = isal_inflate(&s->isal);
  s->pos = s->len - s->isal.avail_in;
  ssize_t got = (ssize_t)(s->isal.next_out - (uint8_t *)buf);
  if (rc < 0 || rc == ISAL_NEED_DICT)
    return src_fail(s, TR_SAID_IN(s->lang, TM_ERR_GZ_CORRUPT, PD_MS(isal_what(rc)), PD_MI(src_in_off(s))));
  if (s->isal.block_state == ISAL_BLOCK_FINISH) s->member_done = true;
  return got;
}
#endif

ssize_t tr_src_read(tr_src *s, char *buf, size_t n) {
  if (s->err) return -1;
  if (s->done || n == 0) return 0;
  if (s->eng == ENG_NONE) {
    size_t have = s->len - s->pos;
    if (have == 0) {
      if (s->in_eof) return 0;
      if (!src_refill(s)) return -1;
      have = s->len - s->pos;
      if (have == 0) return 0;
    }
    size_t k = have < n ? have : n;
    memcpy(buf, s->in + s->pos, k);
    s->pos += k;
    return (ssize_t)k;
  }
  for (;;) {
    if (s->member_done && !next_member(s)) return s->err ? -1 : 0;
    if (s->pos == s->len) {
      if (s->in_eof) return truncated(s);
      if (!src_refill(s)) return -1;
      if (s->pos == s->len) return truncated(s);
    }
    size_t pos0 = s->pos;
#ifdef PD_HAVE_ISAL
    ssize_t got = s->eng == ENG_ISAL ? read_isal(s, buf, n) : read_zlib(s, buf, n);
#else
    ssize_t got = read_zlib(s, buf, n);
#endif
    if (got != 0) return got;
    if (s->member_done || s->pos != pos0) continue;
    /* neither output nor input consumed: the inflater wants more input than we hold */
    if (s->in_eof) return truncated(s);
    uint64_t read0 = s->in_total;
    if (!src_refill(s)) return -1;
    if (s->in_total == read0 && !s->in_eof) return src_fail(s, TR_SAID_IN(s->lang, TM_ERR_GZ_STUCK, PD_MI(src_in_off(s))));
  }
}

const char *tr_src_error(const tr_src *s) { return s->err; }
bool tr_src_gzip(const tr_src *s) { return s->eng != ENG_NONE; }

void tr_src_close(tr_src *s) {
  if (!s) return;
  if (s->eng == ENG_ZLIB) inflateEnd(&s->z);
  close(s->fd);
  free(s->in);
  free(s->err);
  free(s);
}
