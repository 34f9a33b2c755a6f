/* fuzz_trace: arbitrary bytes as PyTorch-profiler traces, raw JSON and gzip, through the
 * streaming reader (every event's fields decoded) and the whole `perf-doctor trace` pipeline
 * (per-rank analysis, cross-rank comparison, markdown and JSON summaries).
 *
 * Input: byte 0 selects the options (bit 0: gzip the files here, so that mutations of the JSON
 * reach the inflating path; bit 1: JSON summary instead of markdown; bit 2: keep the last step;
 * bit 3: the reader parses every top-level key, not only the ones the analyses use; bit 4: the
 * markdown in Chinese).
 * The rest is one trace, or up to four separated by a line "@@RANK@@" (then they are written
 * as rank files into a private folder on tmpfs and summarised as a folder). Raw gzip bytes in
 * the seeds reach the reader unchanged when bit 0 is clear. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/messages.h"
#include "trace/trace.h"
#include "trace/read.h"
#include "base/alloc.h"

#define FZ_SEP "\n@@RANK@@\n"
#define FZ_MAX_FILES 4

static void on_event(void *ctx, const tr_event *ev, uint64_t offset) {
  (void)offset;
  char buf[256];
  const tr_slice *s[] = {&ev->ph, &ev->cat, &ev->name, &ev->coll_name, &ev->pg_name, &ev->pg_ranks, &ev->comms_id};
  for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
    if (!s[i]->p) continue;
    if (s[i]->n < sizeof buf) tr_slice_decode(s[i], buf);
    else {
      char *big = pd_xmalloc(s[i]->n + 1);
      tr_slice_decode(s[i], big);
      free(big);
    }
    (void)tr_slice_eq(s[i], "X");
  }
  (*(uint64_t *)ctx)++;
}

static void on_header(void *ctx, const char *key, json_t *value) {
  (void)ctx, (void)key;
  char *s = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
  free(s);
}

/* data[0..n) as written to path: raw, or gzip-compressed. */
static void write_file(const char *path, const uint8_t *data, size_t n, bool gz) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (!gz) {
    if (n && fwrite(data, 1, n, f) != n) abort();
  } else {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    uLong bound = deflateBound(&z, (uLong)n) + 32;
    unsigned char *out = pd_xmalloc(bound);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
    if (fwrite(out, 1, z.total_out, f) != z.total_out) abort();
    deflateEnd(&z);
    free(out);
  }
  if (fclose(f) != 0) abort();
}

static void clear_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[512];
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
}

static char fz_dir[64];

static void remove_dir(void) {
  clear_dir(fz_dir);
  rmdir(fz_dir);
}

/* A private folder on tmpfs, removed at exit (not after a crash: findings keep their files). */
static const char *work_dir(void) {
  if (!fz_dir[0]) {
    snprintf(fz_dir, sizeof fz_dir, "/dev/shm/pd-fuzz-trace-%d", (int)getpid());
    if (mkdir(fz_dir, 0700) != 0 && errno != EEXIST) abort();
    atexit(remove_dir);
  }
  return fz_dir;
}

static const uint8_t *find_sep(const uint8_t *d, size_t n) {
  size_t k = strlen(FZ_SEP);
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(d + i, FZ_SEP, k)) return d + i;
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (1u << 18)) return -1;
  uint8_t mode = data[0];
  const uint8_t *p = data + 1, *end = data + size;
  const char *dir = work_dir();
  clear_dir(dir);
  char path[FZ_MAX_FILES][256];
  int nfiles = 0;
  while (nfiles < FZ_MAX_FILES) {
    const uint8_t *s = nfiles + 1 < FZ_MAX_FILES ? find_sep(p, (size_t)(end - p)) : NULL;
    const uint8_t *e = s ? s : end;
    snprintf(path[nfiles], sizeof path[nfiles], "%s/rank%d_trace.json%s", dir, nfiles, (mode & 1) ? ".gz" : "");
    write_file(path[nfiles], p, (size_t)(e - p), mode & 1);
    nfiles++;
    if (!s) break;
    p = s + strlen(FZ_SEP);
  }
  for (int i = 0; i < nfiles; i++) {
    uint64_t n = 0;
    static const char *const wanted[] = {"distributedInfo", "baseTimeNanoseconds", NULL};
    tr_read_sink sink = {.event = on_event, .header = on_header, .ctx = &n,
                         .header_keys = (mode & 8) ? NULL : wanted};
    tr_read_stats st;
    char *err = NULL;
    bool ok = tr_read_file(path[i], &sink, &st, TR_EN, &err);
    if (ok == (err != NULL)) abort(); /* the contract: an error message exactly on failure */
    if (n != st.events) abort();
    free(err);
  }
  tr_options o = {.format = (mode & 2) ? "json" : "md", .jobs = 1, .include_last = (mode & 4) != 0,
                  .lang = (mode & 16) ? "zh" : "en"};
  int failed = 0;
  char *err = NULL;
  char *text = tr_summarize_opts(nfiles == 1 ? path[0] : dir, &o, &failed, &err);
  if (!text && !err) abort();
  free(text);
  free(err);
  clear_dir(dir);
  return 0;
}
