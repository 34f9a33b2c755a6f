#include "trace/read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/limits.h"
#include "trace/inflate.h"
#include "trace/messages.h"

/* The window starts at 256 KiB (it grows for a larger event): small enough that the bytes the
 * inflater writes are still in cache when the parser reads them. */
#define RD_INITIAL_CAP ((size_t)256 << 10)
/* A single event or header value may not exceed this; it bounds memory on hostile input. */
#define RD_MAX_CAP ((size_t)256 << 20)
#define RD_MAX_HEADER PD_MAX_TRACE_VALUE_BYTES
#define RD_MAX_DEPTH 512

/* The reading window: buf[0..len) holds decompressed bytes starting at stream offset `base`.
 * While `marked`, bytes from `mark` on are kept across refills (the value being cut out). */
typedef struct {
  tr_src *src;
  const char *path;
  char *buf;
  size_t cap, len, pos, mark;
  bool marked, eof;
  uint64_t base;
  char *err;
  int lang; /* errors are said in it */
} rd;

/* Records the first failure: message id (with its arguments) at stream offset off, framed with the
 * file and the offset. Said in a catalog of its own: ranks are read on several threads. */
static void rd_fail_text(rd *r, uint64_t off, const char *what) {
  if (r->err) return; /* keep the first, most precise message */
  r->err = TR_SAID_IN(r->lang, tr_src_gzip(r->src) ? TM_ERR_AT_BYTE_GZ : TM_ERR_AT_BYTE, PD_MS(r->path), PD_MS(what),
                      PD_MI(off));
}

static void rd_fail_(rd *r, uint64_t off, tr_msg_id id, const pd_marg *args, size_t nargs) {
  if (r->err) return;
  char *what = tr_said_in(r->lang, id, args, nargs);
  rd_fail_text(r, off, what);
  free(what);
}
#define rd_fail(r, off, id, ...) rd_fail_(r, off, id, TR_ARGS_(__VA_ARGS__))
#define rd_fail0(r, off, id) rd_fail_(r, off, id, NULL, 0)

static uint64_t rd_off(const rd *r) { return r->base + r->pos; }

/* Makes pos < len, reading more input if needed. False at end of input or on error. */
static bool rd_fill(rd *r) {
  if (r->pos < r->len) return true;
  if (r->eof || r->err) return false;
  size_t keep = r->marked ? r->mark : r->pos;
  if (keep > 0) {
    memmove(r->buf, r->buf + keep, r->len - keep);
    r->len -= keep;
    r->pos -= keep;
    if (r->marked) r->mark -= keep;
    r->base += keep;
  }
  if (r->len == r->cap) {
    if (r->cap >= RD_MAX_CAP) {
      rd_fail(r, r->base, TM_ERR_RD_TOO_LARGE, PD_MI(RD_MAX_CAP >> 20));
      return false;
    }
    r->cap *= 2;
    r->buf = pd_xrealloc(r->buf, r->cap + TR_EVENT_PAD);
  }
  ssize_t n = tr_src_read(r->src, r->buf + r->len, r->cap - r->len);
  if (n > 0) r->len += (size_t)n;
  memset(r->buf + r->len, 0, TR_EVENT_PAD); /* after every change of len: the event parser's contract */
  if (n > 0) return true;
  r->eof = true;
  if (n < 0) rd_fail_text(r, rd_off(r), tr_src_error(r->src));
  return false;
}

/* Skips whitespace; returns the next byte without consuming it, or -1 at end / error. */
static int rd_peek(rd *r) {
  for (;;) {
    if (!rd_fill(r)) return -1;
    const char *p = r->buf + r->pos, *e = r->buf + r->len;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    r->pos = (size_t)(p - r->buf);
    if (p < e) return (unsigned char)*p;
  }
}

static void rd_fail_eof(rd *r, tr_msg_id where) { rd_fail0(r, rd_off(r), where); }

/* pos is just after an opening quote; consumes through the closing quote. */
static bool rd_scan_string(rd *r) {
  bool esc = false;
  for (;;) {
    if (!rd_fill(r)) {
      rd_fail_eof(r, TM_ERR_RD_EOF_STRING);
      return false;
    }
    const char *p = r->buf + r->pos, *end = r->buf + r->len;
    while (p < end) {
      char c = *p++;
      if (esc) {
        esc = false;
      } else if (c == '\\') {
        esc = true;
      } else if (c == '"') {
        r->pos = (size_t)(p - r->buf);
        return true;
      }
    }
    r->pos = r->len;
  }
}

/* pos is on '{' or '['; consumes the whole balanced value. Brackets are checked for matching
 * here; the full grammar of captured values is checked by jansson. */
static bool rd_scan_compound(rd *r) {
  char stack[RD_MAX_DEPTH];
  size_t depth = 0;
  bool in_str = false, esc = false;
  for (;;) {
    if (!rd_fill(r)) {
      rd_fail_eof(r, TM_ERR_RD_EOF_NESTED);
      return false;
    }
    const char *p = r->buf + r->pos, *end = r->buf + r->len;
    while (p < end) {
      char c = *p++;
      if (in_str) {
        if (esc) esc = false;
        else if (c == '\\') esc = true;
        else if (c == '"') in_str = false;
        continue;
      }
      switch (c) {
      case '"':
        in_str = true;
        break;
      case '{':
      case '[':
        if (depth == RD_MAX_DEPTH) {
          r->pos = (size_t)(p - r->buf) - 1;
          rd_fail(r, rd_off(r), TM_ERR_RD_DEEP, PD_MI(RD_MAX_DEPTH));
          return false;
        }
        stack[depth++] = c;
        break;
      case '}':
      case ']':
        if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) {
          r->pos = (size_t)(p - r->buf) - 1;
          rd_fail(r, rd_off(r), TM_ERR_RD_MISMATCHED, PD_MS(c == '}' ? "}" : "]"));
          return false;
        }
        if (--depth == 0) {
          r->pos = (size_t)(p - r->buf);
          return true;
        }
        break;
      default:
        break;
      }
    }
    r->pos = r->len;
  }
}

/* pos is on the first byte of a value; consumes it. */
static bool rd_scan_value(rd *r) {
  char c = r->buf[r->pos];
  if (c == '{' || c == '[') return rd_scan_compound(r);
  if (c == '"') {
    r->pos++;
    return rd_scan_string(r);
  }
  for (;;) { /* a scalar: runs to the next delimiter */
    if (!rd_fill(r)) return r->err == NULL;
    c = r->buf[r->pos];
    if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t')
      return true;
    r->pos++;
  }
}

/* Parses the marked bytes [mark, pos) with jansson. */
static json_t *rd_load_marked(rd *r, size_t flags) {
  json_error_t je;
  json_t *v = json_loadb(r->buf + r->mark, r->pos - r->mark, flags, &je);
  if (!v) rd_fail(r, r->base + r->mark + (uint64_t)je.position, TM_ERR_RD_BAD_VALUE, PD_MS(je.text));
  return v;
}

/* The bytes between the event's start and the end of the window may end before the event
 * does; a failure this close to the end of the window is taken as "read more". */
#define RD_EDGE 16

/* pos is on an event's '{': parses it in place, reading more input while it is cut off by the
 * end of the window (the event is parsed once; a retry happens only at window boundaries).
 * Leaves the event marked; the caller unmarks it once delivered. */
static bool rd_parse_event(rd *r, tr_event *ev, uint64_t *off) {
  r->mark = r->pos;
  r->marked = true;
  for (;;) {
    size_t avail = r->len - r->mark, used = 0, epos = 0;
    const char *why = NULL;
    if (tr_event_parse_prefix(r->buf + r->mark, avail, ev, &used, &epos, &why)) {
      r->pos = r->mark + used;
      *off = r->base + r->mark;
      return true;
    }
    bool at_edge = epos + RD_EDGE >= avail;
    if (!at_edge || r->eof) {
      r->pos = r->mark + epos;
      if (epos >= avail && !r->err) rd_fail_eof(r, TM_ERR_RD_EOF_NESTED);
      else rd_fail(r, r->base + r->mark + epos, TM_ERR_RD_BAD_EVENT, PD_MS(why ? why : "malformed event"));
      return false;
    }
    r->pos = r->len;
    if (!rd_fill(r) && r->err) return false; /* at the end of input: the next pass says why */
  }
}

/* pos is on '['; delivers every element. */
static bool rd_event_array(rd *r, const tr_read_sink *sink, tr_read_stats *st) {
  r->pos++;
  int c = rd_peek(r);
  if (c == ']') {
    r->pos++;
    return true;
  }
  for (;;) {
    if (c < 0) {
      rd_fail_eof(r, TM_ERR_RD_EOF_EVENTS);
      return false;
    }
    if (c != '{') {
      rd_fail(r, rd_off(r), TM_ERR_RD_NOT_OBJECT, PD_MI(st->events));
      return false;
    }
    tr_event ev;
    uint64_t off;
    if (!rd_parse_event(r, &ev, &off)) return false;
    r->marked = false;
    if (sink->event) sink->event(sink->ctx, &ev, off);
    st->events++;
    /* Kineto's `}, {` between events, without the two rd_peek calls (the same as them) */
    if (r->len - r->pos >= 3 && r->buf[r->pos] == ',' && r->buf[r->pos + 1] == ' ' && r->buf[r->pos + 2] == '{') {
      r->pos += 2;
      c = '{';
      continue;
    }
    c = rd_peek(r);
    if (c == ',') {
      r->pos++;
      c = rd_peek(r);
      continue;
    }
    if (c == ']') {
      r->pos++;
      return true;
    }
    if (c < 0) rd_fail_eof(r, TM_ERR_RD_EOF_EVENTS);
    else rd_fail(r, rd_off(r), TM_ERR_RD_AFTER_EVENT, PD_MS(((char[2]){(char)c, 0})));
    return false;
  }
}

static bool wanted(const tr_read_sink *sink, const char *key) {
  if (!sink->header_keys) return true;
  for (const char *const *k = sink->header_keys; *k; k++)
    if (!strcmp(*k, key)) return true;
  return false;
}

/* pos is on '{'; walks the top-level keys, handing traceEvents to rd_event_array. */
static bool rd_object(rd *r, const tr_read_sink *sink, tr_read_stats *st) {
  bool saw_events = false;
  r->pos++;
  int c = rd_peek(r);
  if (c == '}') {
    r->pos++;
  } else {
    for (;;) {
      if (c != '"') {
        if (c < 0) rd_fail_eof(r, TM_ERR_RD_EOF_TOP);
        else rd_fail0(r, rd_off(r), TM_ERR_RD_TOP_KEY);
        return false;
      }
      r->mark = r->pos;
      r->marked = true;
      r->pos++;
      if (!rd_scan_string(r)) return false;
      char key[128];
      size_t klen = r->pos - r->mark - 2;
      if (klen >= sizeof key) klen = sizeof key - 1; /* long keys are never ones we look for */
      memcpy(key, r->buf + r->mark + 1, klen);
      key[klen] = '\0';
      r->marked = false;
      c = rd_peek(r);
      if (c != ':') {
        if (c < 0) rd_fail_eof(r, TM_ERR_RD_EOF_TOP);
        else rd_fail(r, rd_off(r), TM_ERR_RD_COLON, PD_MS(key));
        return false;
      }
      r->pos++;
      c = rd_peek(r);
      if (c < 0) {
        rd_fail_eof(r, TM_ERR_RD_EOF_TOP);
        return false;
      }
      if (!strcmp(key, "traceEvents")) {
        if (c != '[') {
          rd_fail0(r, rd_off(r), TM_ERR_RD_EVENTS_NOT_ARRAY);
          return false;
        }
        if (!rd_event_array(r, sink, st)) return false;
        saw_events = true;
      } else {
        r->mark = r->pos;
        r->marked = true;
        if (!rd_scan_value(r)) return false;
        if (sink->header && r->pos - r->mark <= RD_MAX_HEADER && wanted(sink, key)) {
          json_t *v = rd_load_marked(r, JSON_DECODE_ANY);
          if (!v) return false;
          sink->header(sink->ctx, key, v);
          json_decref(v);
        }
        r->marked = false;
      }
      c = rd_peek(r);
      if (c == ',') {
        r->pos++;
        c = rd_peek(r);
        continue;
      }
      if (c == '}') {
        r->pos++;
        break;
      }
      if (c < 0) rd_fail_eof(r, TM_ERR_RD_EOF_TOP);
      else rd_fail0(r, rd_off(r), TM_ERR_RD_TOP_COMMA);
      return false;
    }
  }
  if (!saw_events) {
    rd_fail0(r, rd_off(r), TM_ERR_RD_NO_EVENTS);
    return false;
  }
  return true;
}

bool tr_read_file(const char *path, const tr_read_sink *sink, tr_read_stats *st, int lang, char **err) {
  memset(st, 0, sizeof *st);
  *err = NULL;
  rd r = {.path = path, .lang = lang};
  r.src = tr_src_open(path, lang, err);
  if (!r.src) return false;
  r.cap = RD_INITIAL_CAP;
  r.buf = pd_xmalloc(r.cap + TR_EVENT_PAD); /* rd_fill keeps buf[len .. len + TR_EVENT_PAD) zero */
  bool ok = false;
  int c = rd_peek(&r);
  st->gzip = tr_src_gzip(r.src);
  if (c < 0) {
    rd_fail0(&r, rd_off(&r), TM_ERR_RD_EMPTY);
  } else if (c == '[') {
    st->array_form = true;
    ok = rd_event_array(&r, sink, st);
  } else if (c == '{') {
    ok = rd_object(&r, sink, st);
  } else {
    rd_fail0(&r, rd_off(&r), TM_ERR_RD_NOT_START);
  }
  if (ok) {
    c = rd_peek(&r);
    if (c >= 0) {
      rd_fail0(&r, rd_off(&r), TM_ERR_RD_TRAILING);
      ok = false;
    } else if (r.err) {
      ok = false; /* e.g. a gzip stream truncated after the closing bracket */
    }
  }
  st->json_bytes = rd_off(&r);
  if (!ok) {
    if (!r.err) rd_fail0(&r, rd_off(&r), TM_ERR_RD_FAILED);
    *err = r.err;
  } else {
    free(r.err);
  }
  free(r.buf);
  tr_src_close(r.src);
  return ok;
}
