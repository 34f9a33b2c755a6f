/* trace_event: parses one trace event (a JSON object, as bytes) into the few fields the
 * analyses use, validating the whole object as JSON on the way.
 *
 * This replaces a general JSON parser on the hot path: a GB-sized trace holds millions of
 * events, and building a DOM for each (hash tables, strings, argument arrays from
 * record_shapes) costs most of the reading time. Nothing is allocated; string fields are
 * slices of the input, unescaped only on request. The common shapes have fast paths that accept
 * and refuse exactly what the general grammar does, at the same byte: digits 8 at a time,
 * strings 16 at a time, Kineto's `"key": value, ` spacing tested as words, the top-level keys
 * first tried as the literal Kineto writes after the previous one, and the arrays of
 * record_shapes (integers, plain strings, nested arrays) in one loop. */
#ifndef PD_TRACE_EVENT_H
#define PD_TRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A JSON string or number as it appears in the input: p points after the opening quote (or at
 * the first digit), n bytes, escaped when it contains a backslash escape. p == NULL: absent or
 * of another type. */
typedef struct {
  const char *p;
  uint32_t n;  /* an event is at most 256 MiB (trace_read); 16 bytes a slice keeps tr_event small */
  bool escaped;
  bool number; /* the value was a number, not a string */
} tr_slice;

/* A number field: present, its value in the unit asked for, and whether the literal was
 * written as a real (has '.', 'e' or 'E'). */
typedef struct {
  bool present, real;
  int64_t v;
} tr_num;

typedef struct {
  tr_slice ph, cat, name;
  tr_slice pid, tid;   /* as text, numbers or strings alike */
  tr_num ts, dur;      /* µs in the file, converted to ns (exact for 3-decimal floats) */
  double ts_us, dur_us; /* the same literals as the nearest doubles, as Python's json reads them */
  bool ts_key;         /* "ts" key present with any value (null included) */
  bool dur_null;       /* "dur": null */
  /* args */
  tr_num stream, correlation, seq, nelems; /* plain integers (reals truncated) */
  tr_slice coll_name, pg_name, pg_ranks, comms_id; /* strings, or numbers kept as text */
  tr_num out_nelems, group_size, device;
  tr_slice dtype;      /* collective element type ("BFloat16") */
  /* record_shapes / with_flops: the raw JSON values (p at '[', n bytes), not parsed here */
  tr_slice dims, types, concrete;
  tr_num flops;
  /* [memory] instant events */
  tr_num mem_alloc, mem_reserved, dev_type, dev_id;
} tr_event;

/* Every parser here reads up to TR_EVENT_PAD bytes past p + n, which must be zero: a reader keeps
 * that much zeroed space after its window, and the hot paths then need no end-of-input test
 * before loading a word (a zero byte matches no token and ends every digit or string run). */
#define TR_EVENT_PAD 64

/* Parses the JSON object in p[0..n) (p[n .. n + TR_EVENT_PAD) zero). Returns true and fills *ev
 * (slices point into p); on invalid JSON returns false with *err_pos the offset of the
 * offending byte and *why a static message. */
bool tr_event_parse(const char *p, size_t n, tr_event *ev, size_t *err_pos, const char **why);

/* Parses the JSON object at the start of p[0..n) (after optional whitespace; zero padding as
 * above) and sets *used to
 * the bytes through its closing brace; what follows is not looked at. Failure as above; an
 * object cut off by the end of p fails with *err_pos at (or within a few bytes of) n, which is
 * how a streaming reader tells "need more input" from "invalid". */
bool tr_event_parse_prefix(const char *p, size_t n, tr_event *ev, size_t *used, size_t *err_pos,
                           const char **why);

/* Writes the slice with JSON escapes decoded into out, which must hold s->n + 1 bytes (a
 * decoded string is never longer than its source), NUL-terminates it and returns its length. */
size_t tr_slice_decode(const tr_slice *s, char *out);

/* Compares a slice with a NUL-terminated literal (exactly, escapes decoded). */
bool tr_slice_eq(const tr_slice *s, const char *lit);

#endif
