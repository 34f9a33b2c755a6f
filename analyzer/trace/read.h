/* trace_read: streams the events of one Chrome / Kineto trace file (.json or .json.gz).
 *
 * The outer document is scanned by a small tokenizer of our own so that the `traceEvents`
 * array is never held whole: each element is cut out of a bounded window of the (inflated)
 * byte stream and parsed on its own by trace_event (the few fields the analyses use);
 * top-level values other than the events are parsed with jansson. Both layouts are accepted: the object form
 * `{"traceEvents": [...], ...}` with the other top-level keys before or after the array, and
 * the bare array form `[ {...}, ... ]`. Memory is bounded by the largest single event (or
 * top-level value), not by the file. */
#ifndef PD_TRACE_READ_H
#define PD_TRACE_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "trace/event.h"

typedef struct {
  /* Called once per element of the event array, in file order. `ev` and the slices in it are
   * valid only during the call; `offset` is the event's byte offset in the decompressed JSON. */
  void (*event)(void *ctx, const tr_event *ev, uint64_t offset);
  /* Called for the top-level keys listed in header_keys, with the parsed value (borrowed).
   * May be NULL. Values larger than 64 MiB are skipped without a call. */
  void (*header)(void *ctx, const char *key, json_t *value);
  void *ctx;
  /* NULL-terminated list of the top-level keys wanted; NULL means all. Other values are only
   * checked for balanced brackets, so odd content in e.g. a vendor's log lines cannot fail
   * the file. */
  const char *const *header_keys;
} tr_read_sink;

typedef struct {
  uint64_t json_bytes;  /* decompressed bytes consumed */
  uint64_t events;      /* elements delivered to sink->event */
  bool array_form;      /* the file was a bare event array */
  bool gzip;            /* the file was gzip-compressed */
} tr_read_stats;

/* Reads `path` and feeds the sink. Returns true when the whole document was read. On failure
 * returns false and sets *err to a message naming the file and the byte offset at which
 * reading stopped (caller frees), said in lang (TR_EN, TR_ZH of trace/messages.h); events before
 * that point have already been delivered. */
bool tr_read_file(const char *path, const tr_read_sink *sink, tr_read_stats *stats, int lang, char **err);

#endif
