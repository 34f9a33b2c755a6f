#include "trace/read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/limits.h"
#include "trace/inflate.h"

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
} rd;

static void rd_fail(rd *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rd_fail(rd *r, uint64_t off, const char *fmt, ...) {
  if (r->err) return; /* keep the first, most precise message */
  pd_buf b = {0};
  pd_buf_printf(&b, "%s: ", r->path);
  va_list ap;
  va_start(ap, fmt);
  pd_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  pd_buf_printf(&b, " at byte %llu%s", (unsigned long long)off,
                tr_src_gzip(r->src) ? " of the decompressed JSON" : "");
  r->err = pd_buf_take(&b);
}

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
      rd_fail(r, r->base, "a single event or value is larger than %zu MiB", RD_MAX_CAP >> 20);
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
  if (n < 0) rd_fail(r, rd_off(r), "%s", tr_src_error(r->src));
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

static void rd_fail_eof(rd *r, const char *what) {
  rd_fail(r, rd_off(r), "unexpected end of data %s", what);
}

/* pos is just after an opening quote; consumes through the closing quote. */
static bool rd_scan_string(rd *r) {
  bool esc = false;
  for (;;) {
    if (!rd_fill(r)) {
      rd_fail_eof(r, "inside a string");
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
      rd_fail_eof(r, "inside an object or array");
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
          rd_fail(r, rd_off(r), "JSON nested deeper than %d levels", RD_MAX_DEPTH);
          return false;
        }
        stack[depth++] = c;
        break;
      case '}':
      case ']':
        if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) {
          r->pos = (size_t)(p - r->buf) - 1;
          rd_fail(r, rd_off(r), "invalid JSON: mismatched '%c'", c);
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
static json_t *rd_load_marked(rd *r, size_t flags, const char *what) {
  json_error_t je;
  json_t *v = json_loadb(r->buf + r->mark, r->pos - r->mark, flags, &je);
  if (!v) rd_fail(r, r->base + r->mark + (uint64_t)je.position, "invalid JSON in %s: %s", what, je.text);
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
      if (epos >= avail && !r->err) rd_fail_eof(r, "inside an object or array");
      else rd_fail(r, r->base + r->mark + epos, "invalid JSON in an event: %s", why);
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
      rd_fail_eof(r, "in the event array");
      return false;
    }
    if (c != '{') {
      rd_fail(r, rd_off(r), "event %llu is not a JSON object", (unsigned long long)st->events);
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
    if (c < 0) rd_fail_eof(r, "in the event array");
    else rd_fail(r, rd_off(r), "invalid JSON: expected ',' or ']' after an event, found '%c'", c);
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
        if (c < 0) rd_fail_eof(r, "in the top-level object");
        else rd_fail(r, rd_off(r), "invalid JSON: expected a key in the top-level object");
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
        if (c < 0) rd_fail_eof(r, "in the top-level object");
        else rd_fail(r, rd_off(r), "invalid JSON: expected ':' after key \"%s\"", key);
        return false;
      }
      r->pos++;
      c = rd_peek(r);
      if (c < 0) {
        rd_fail_eof(r, "in the top-level object");
        return false;
      }
      if (!strcmp(key, "traceEvents")) {
        if (c != '[') {
          rd_fail(r, rd_off(r), "not a trace: \"traceEvents\" is not an array");
          return false;
        }
        if (!rd_event_array(r, sink, st)) return false;
        saw_events = true;
      } else {
        r->mark = r->pos;
        r->marked = true;
        if (!rd_scan_value(r)) return false;
        if (sink->header && r->pos - r->mark <= RD_MAX_HEADER && wanted(sink, key)) {
          json_t *v = rd_load_marked(r, JSON_DECODE_ANY, "a top-level value");
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
      if (c < 0) rd_fail_eof(r, "in the top-level object");
      else rd_fail(r, rd_off(r), "invalid JSON: expected ',' or '}' in the top-level object");
      return false;
    }
  }
  if (!saw_events) {
    rd_fail(r, rd_off(r), "not a trace: the JSON object has no \"traceEvents\" array");
    return false;
  }
  return true;
}

bool tr_read_file(const char *path, const tr_read_sink *sink, tr_read_stats *st, char **err) {
  memset(st, 0, sizeof *st);
  *err = NULL;
  rd r = {.path = path};
  r.src = tr_src_open(path, err);
  if (!r.src) return false;
  r.cap = RD_INITIAL_CAP;
  r.buf = pd_xmalloc(r.cap + TR_EVENT_PAD); /* rd_fill keeps buf[len .. len + TR_EVENT_PAD) zero */
  bool ok = false;
  int c = rd_peek(&r);
  st->gzip = tr_src_gzip(r.src);
  if (c < 0) {
    rd_fail(&r, rd_off(&r), "empty file: no JSON document");
  } else if (c == '[') {
    st->array_form = true;
    ok = rd_event_array(&r, sink, st);
  } else if (c == '{') {
    ok = rd_object(&r, sink, st);
  } else {
    rd_fail(&r, rd_off(&r), "not a trace: the file does not start with a JSON object or array");
  }
  if (ok) {
    c = rd_peek(&r);
    if (c >= 0) {
      rd_fail(&r, rd_off(&r), "unexpected data after the end of the JSON document");
      ok = false;
    } else if (r.err) {
      ok = false; /* e.g. a gzip stream truncated after the closing bracket */
    }
  }
  st->json_bytes = rd_off(&r);
  if (!ok) {
    if (!r.err) rd_fail(&r, rd_off(&r), "read failed");
    *err = r.err;
  } else {
    free(r.err);
  }
  free(r.buf);
  tr_src_close(r.src);
  return ok;
}
