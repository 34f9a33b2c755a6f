/* trace: the `perf-doctor trace` entry points. A path is one trace file or a folder of them
 * (searched recursively for *.json / *.json.gz); the files are read in parallel, one worker
 * thread per core, each file streamed with bounded memory. */
#ifndef PD_TRACE_H
#define PD_TRACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Summarises a trace file or a folder of per-rank traces. format: "md" or "json".
 * Returns the summary text (caller frees) or NULL with *err set to a message naming the file
 * and byte offset (caller frees *err). Partial failures are reported inside the summary. */
char *tr_summarize(const char *path, const char *format, char **err);

typedef struct {
  const char *format; /* "md" (default when NULL) or "json" */
  int jobs;           /* worker threads; <= 0 means one per online core */
  bool include_last;  /* keep the last ProfilerStep in the HTA figures (HTA's default drops it) */
  const char *gpu;    /* judge MFU and links against this device instead of deviceProperties' */
  char **svg;         /* when not NULL, receives the SVG picture of the same summary (trace/svg.h;
                         caller frees), drawn without reading the files again */
  const char *lang;   /* the language of the markdown, the SVG and the errors: "en" (NULL) or "zh";
                         JSON does not depend on it */
  const struct tr_msgs *msgs; /* the message catalog (trace/messages.h; borrowed); NULL: the
                         built-in one, loaded for the call */
} tr_options;

/* tr_summarize with options. *n_failed (may be NULL) receives how many files could not be
 * read; when every file failed (or there are none) it returns NULL with *err set. */
char *tr_summarize_opts(const char *path, const tr_options *opts, int *n_failed, char **err);

/* The summary as the JSON document `--format json` prints (new reference; opts->format is not
 * looked at, opts->svg is honoured), for callers that read it: no text in between. NULL with
 * *err as tr_summarize_opts. */
json_t *tr_summarize_value(const char *path, const tr_options *opts, int *n_failed, char **err);

/* `trace --partial FILE`: the analysis of one file as a mergeable partial document (JSON text,
 * trace/partial.h; caller frees). A file that cannot be read still gives a partial, carrying its
 * error (*failed is then set), so a merge reports it as one process would. NULL with *err only
 * when FILE is not a file. */
char *tr_partial_file(const char *file, const tr_options *opts, bool *failed, char **err);

/* `trace --merge PART...`: the summary of the partials, the same text tr_summarize_opts gives for
 * the files they were made from (the source is the folder the files share). The partials must
 * have been made with the same options; opts gives the format (and svg). */
char *tr_merge(char *const *parts, size_t n, const tr_options *opts, int *n_failed, char **err);

#endif
