/* 10,000 random edits (seed 20261129; PD_SEED, PD_EDITS and PD_SCRIPT override) through the document store, each checked three ways:
 *  - the document's text equals an independent model of it (code points, edited at positions
 *    computed by this test in UTF-16, UTF-8 or UTF-32 units): the position conversion is right;
 *  - the incrementally reparsed tree equals a fresh parse of the same text (every node's type
 *    and byte range);
 *  - the analysis on the incremental tree, resuming its model's build from the last checkpoint
 *    as the server does (sm_resume), gives the same model (its whole JSON, with the
 *    definitions and uses navigation reads, sm_refs_to_json) and the same
 *    diagnostics as a fresh parse and build.
 * Edits insert and delete across lines, with CJK and astral (surrogate-pair) characters, flag
 * fragments, quotes and brackets that break the script. As in tree-sitter's own randomized
 * test, edits are undone again (newest first, at most 4 applied at a time), so broken texts get
 * repaired; every 100 edits the whole text is replaced by the original through one range edit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/alloc.h"
#include "base/path.h"
#include "harness.h"
#include "lsp/diagnostics.h"
#include "lsp/document.h"
#include "lsp/filemap.h"

#define MAX_DEPTH 4 /* edits applied before they are undone, newest first */

typedef struct {
  uint32_t *cp;
  size_t n, cap;
} cps;

typedef struct {
  size_t start, inserted; /* code points */
  cps removed;
} undo;

static uint64_t rng_state = 20261129;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return n ? (uint32_t)((rng_state >> 33) % n) : 0;
}

static void decode(const char *s, size_t len, cps *out) {
  out->n = 0;
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < len;) {
    uint32_t c;
    size_t k;
    if (u[i] < 0x80) c = u[i], k = 1;
    else if ((u[i] & 0xE0) == 0xC0) c = u[i] & 0x1F, k = 2;
    else if ((u[i] & 0xF0) == 0xE0) c = u[i] & 0x0F, k = 3;
    else c = u[i] & 0x07, k = 4;
    for (size_t j = 1; j < k; j++) c = (c << 6) | (u[i + j] & 0x3F);
    *PD_PUSH(out->cp, out->n, out->cap) = c;
    i += k;
  }
}

static void encode(const cps *in, pd_buf *b) {
  b->len = 0;
  for (size_t i = 0; i < in->n; i++) {
    uint32_t c = in->cp[i];
    char t[4];
    size_t k;
    if (c < 0x80) t[0] = (char)c, k = 1;
    else if (c < 0x800) t[0] = (char)(0xC0 | c >> 6), t[1] = (char)(0x80 | (c & 0x3F)), k = 2;
    else if (c < 0x10000)
      t[0] = (char)(0xE0 | c >> 12), t[1] = (char)(0x80 | ((c >> 6) & 0x3F)), t[2] = (char)(0x80 | (c & 0x3F)), k = 3;
    else
      t[0] = (char)(0xF0 | c >> 18), t[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
      t[2] = (char)(0x80 | ((c >> 6) & 0x3F)), t[3] = (char)(0x80 | (c & 0x3F)), k = 4;
    pd_buf_append(b, t, k);
  }
  if (!b->data) pd_buf_puts(b, "");
}

static uint32_t units(uint32_t c, doc_encoding enc) {
  if (enc == DOC_UTF32) return 1;
  if (enc == DOC_UTF16) return c >= 0x10000 ? 2 : 1;
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* The LSP position (lines split at '\n'; the fragments never contain '\r') of code point i. */
static doc_pos pos_of(const cps *t, size_t i, doc_encoding enc) {
  doc_pos p = {0, 0};
  for (size_t k = 0; k < i; k++) {
    if (t->cp[k] == '\n') {
      p.line++;
      p.character = 0;
    } else {
      p.character += units(t->cp[k], enc);
    }
  }
  return p;
}

static const char *fragments[] = {
    "中文", "😀", "\n", " \\\n", "--tensor-model-parallel-size 4", "\"", "'", "(", ")", "${X}",
    "# 注释 🚀", "PERF_ARGS=(", "--sequence-parallel", " ", "\n   --lr 1e-5\n", "$(", "`", "{",
    "}", "--resource '{\"actor\": [1, 4]}'", "source \"${MODEL_CONFIG_DIR}/qwen3-4B.sh\"\n",
    "if [ -z \"$A\" ]; then\n", "fi\n", "# NOTE(perf-doctor): 保持\n", "\"${MISC_ARGS[@]}\"", "=",
    "é", "\t", "--max-tokens-per-gpu 4096 \\\n", ";", "|", "&&", "<<", "𝔘",
};

/* Every node as "type start-end", depth first. */
static void dump(TSNode n, pd_buf *b) {
  pd_buf_printf(b, "%s%s %u-%u\n", ts_node_is_missing(n) ? "MISSING " : "", ts_node_type(n),
                ts_node_start_byte(n), ts_node_end_byte(n));
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) dump(ts_node_child(n, i), b);
}

static char *uri_of(void *ctx, const char *path) {
  (void)ctx;
  return doc_path_to_uri(path);
}

/* The diagnostics and, after a NUL, the model's JSON. */
static char *diagnostics(const au_rules *rules, const char *path, const char *uri, const char *text,
                         size_t len, const TSTree *t, sm_resume *rs) {
  au_config cfg = {.rules = rules, .resume = rs};
  au_result *r = au_run(path, text, len, t, &cfg);
  json_t *mj = sm_to_json(r->model);
  json_object_set_new(mj, "refs", sm_refs_to_json(r->model)); /* navigation keeps up too */
  char *ms = json_dumps(mj, JSON_SORT_KEYS | JSON_COMPACT);
  json_decref(mj);
  fm_map m;
  fm_init(&m, r->model, uri, DOC_UTF16, uri_of, NULL);
  dg_options o = {true, NULL, "en"};
  json_t *j = dg_build(r, &m, &o);
  char *ds = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
  json_decref(j);
  fm_free(&m);
  au_result_free(r);
  char *s = pd_xasprintf("%s%c%s", ds, 0, ms);
  free(ds);
  free(ms);
  return s;
}

/* Both parts of a diagnostics() answer equal. */
static bool same_answer(const char *a, const char *b) {
  return !strcmp(a, b) && !strcmp(a + strlen(a) + 1, b + strlen(b) + 1);
}

int main(void) {
  /* PD_EDITS shortens a local run; the test as registered runs 10,000. */
  const size_t EDITS = getenv("PD_EDITS") ? strtoul(getenv("PD_EDITS"), NULL, 10) : 10000;
  const char *seed = getenv("PD_SEED");
  if (seed) rng_state = strtoull(seed, NULL, 10);
  /* PD_SCRIPT: another script (ctest also runs a generated one with functions, loops, appends) */
  char *path = getenv("PD_SCRIPT") ? pd_xstrdup(getenv("PD_SCRIPT"))
                                   : pd_xasprintf("%s/lsp/fixtures/ws/scripts/training/text/run-qwen3-4B-8xgpu.sh", PD_TESTS_DIR);
  /* the catalog is compiled once, as the server does */
  char **rule_errors = NULL;
  size_t nrule_errors = 0;
  au_rules *rules = au_rules_load(NULL, &rule_errors, &nrule_errors);
  CHECK_INT(nrule_errors, 0);
  for (size_t i = 0; i < nrule_errors; i++) free(rule_errors[i]);
  free(rule_errors);
  size_t len;
  char *orig = pd_read_file(path, 1 << 20, &len);
  CHECK(orig != NULL);
  if (!orig) return pd_test_exit("lsp_random_edits");
  char *uri = doc_path_to_uri(path);
  doc_document *d = doc_new(uri, "shellscript", 1, orig, len);
  TSParser *p = sm_parser_new();
  cps ref = {0}, ins = {0};
  undo undos[MAX_DEPTH] = {0};
  int depth = 0;
  decode(orig, len, &ref);
  pd_buf text = {0}, a = {0}, b = {0};
  int failures = 0, tree_diffs = 0, diag_diffs = 0;
  size_t with_errors = 0, findings_seen = 0, resumed = 0, replayed = 0;
  sm_checkpoint *ck = NULL; /* as the server keeps it per document */
  pd_buf prev = {0};        /* the text of the last analysis, for PD_DUMP */
  size_t prev_focus = 0;
  unsigned long long ck_gen = 0;
  doc_parse(d, p);
  for (size_t e = 1; e <= EDITS && failures < 50; e++) {
    doc_encoding enc = (doc_encoding)rnd(3);
    size_t start, end;
    bool undoing = false;
    if (e % 100 == 0) { /* back to the original, as one edit over the whole text */
      start = 0;
      end = ref.n;
      decode(orig, len, &ins);
      depth = 0;
    } else if (depth > 0 && (depth == MAX_DEPTH || rnd(2) == 0)) {
      /* Undo the newest edit still applied: every break gets repaired again. */
      undo *u = &undos[--depth];
      start = u->start;
      end = u->start + u->inserted;
      ins.n = 0;
      for (size_t i = 0; i < u->removed.n; i++) *PD_PUSH(ins.cp, ins.n, ins.cap) = u->removed.cp[i];
      undoing = true;
    } else {
      start = rnd((uint32_t)ref.n + 1);
      end = start + (rnd(2) == 0 ? 0 : rnd(12));
      if (end > ref.n) end = ref.n;
      pd_buf frag = {0};
      int pieces = 1 + (int)rnd(2);
      for (int i = 0; i < pieces; i++) pd_buf_puts(&frag, fragments[rnd(sizeof fragments / sizeof *fragments)]);
      decode(frag.data ? frag.data : "", frag.len, &ins);
      pd_buf_free(&frag);
    }
    if (!undoing && e % 100 != 0) { /* remember how to undo it */
      undo *u = &undos[depth++];
      u->removed.n = 0;
      for (size_t i = start; i < end; i++) *PD_PUSH(u->removed.cp, u->removed.n, u->removed.cap) = ref.cp[i];
      u->start = start;
      u->inserted = ins.n;
    }
    doc_pos ps = pos_of(&ref, start, enc), pe = pos_of(&ref, end, enc);
    pd_buf insb = {0};
    encode(&ins, &insb);
    CHECK(doc_edit(d, enc, ps, pe, insb.data, insb.len));
    pd_buf_free(&insb);
    /* The model: replace code points [start, end) by ins. */
    size_t n = ref.n - (end - start) + ins.n;
    pd_grow((void **)&ref.cp, &ref.cap, n + 1, sizeof *ref.cp);
    memmove(ref.cp + start + ins.n, ref.cp + end, (ref.n - end) * sizeof *ref.cp);
    memcpy(ref.cp + start, ins.cp, ins.n * sizeof *ref.cp);
    ref.n = n;
    encode(&ref, &text);
    if (d->len != text.len || memcmp(d->text, text.data, text.len) != 0) {
      fprintf(stderr, "edit %zu: document text diverged from the model (encoding %d)\n", e, (int)enc);
      failures++;
      pd_test_failures++;
      break;
    }
    pd_test_checks++;

    const TSTree *inc = doc_parse(d, p);
    /* The reference: a parser that has never parsed anything (see doc_parse on why). */
    TSParser *fresh_parser = sm_parser_new();
    TSTree *fresh = ts_parser_parse_string(fresh_parser, NULL, d->text, (uint32_t)d->len);
    ts_parser_delete(fresh_parser);
    a.len = b.len = 0;
    dump(ts_tree_root_node(inc), &a);
    dump(ts_tree_root_node(fresh), &b);
    pd_test_checks++;
    if (strcmp(a.data, b.data) != 0) {
      tree_diffs++;
      failures++;
      pd_test_failures++;
      if (getenv("PD_DUMP")) {
        FILE *fa = fopen("/tmp/inc.txt", "w"), *fb = fopen("/tmp/fresh.txt", "w"), *ft = fopen("/tmp/text.sh", "w");
        fputs(a.data, fa), fputs(b.data, fb), fwrite(d->text, 1, d->len, ft);
        fclose(fa), fclose(fb), fclose(ft);
        abort();
      }
      const char *x = a.data, *y = b.data;
      while (*x && *x == *y) x++, y++;
      while (x > a.data && x[-1] != '\n') x--, y--;
      fprintf(stderr, "edit %zu: incremental tree differs from a fresh parse (errors: %d/%d) at\n  incremental: %.60s\n  fresh:       %.60s\n",
              e, ts_node_has_error(ts_tree_root_node(inc)), ts_node_has_error(ts_tree_root_node(fresh)), x, y);
    }
    if (ts_node_has_error(ts_tree_root_node(fresh))) with_errors++;
    sm_resume rs = {.checkpoint = ck, .focus = (uint32_t)d->edit_at, .verify = true};
    if (ck && ck_gen + 1 == d->gen) rs.unchanged_before = (uint32_t)(d->same_before < UINT32_MAX ? d->same_before : UINT32_MAX);
    char *da = diagnostics(rules, path, uri, d->text, d->len, inc, &rs);
    ck = rs.checkpoint;
    ck_gen = d->gen;
    if (rs.resumed) resumed++;
    replayed += rs.replayed;
    /* the invariant itself: a resumed or replayed walk leaves the state a fresh walk leaves */
    if (rs.resumed || rs.replayed) {
      pd_test_checks++;
      if (!rs.verified_same) {
        pd_test_failures++;
        failures++;
        fprintf(stderr, "edit %zu: the resumed walk state differs from a fresh walk's\n", e);
      }
    }
    char *db = diagnostics(rules, path, uri, d->text, d->len, NULL, NULL);
    pd_test_checks++;
    if (!same_answer(da, db)) {
      diag_diffs++;
      failures++;
      pd_test_failures++;
      char *da2 = diagnostics(rules, path, uri, d->text, d->len, inc, NULL);
      char *db2 = diagnostics(rules, path, uri, d->text, d->len, NULL, NULL);
      fprintf(stderr, "edit %zu: analyses differ (resumed: %d; again with the same tree, from the top: %s; again fresh: %s)\n incremental: %.2000s\n model: %.3000s\n fresh: %.2000s\n model: %.3000s\n",
              e, rs.resumed, same_answer(da, da2) ? "same" : "differs", same_answer(db, db2) ? "same" : "differs", da, da + strlen(da) + 1, db, db + strlen(db) + 1);
      if (getenv("PD_DUMP")) {
        FILE *ft = fopen("/tmp/text.sh", "w");
        fwrite(d->text, 1, d->len, ft);
        fclose(ft);
        ft = fopen("/tmp/prev.sh", "w");
        fwrite(prev.data, 1, prev.len, ft);
        fclose(ft);
        fprintf(stderr, "unchanged_before %u focus %u prev_focus %zu\n", rs.unchanged_before, rs.focus, prev_focus);
        ft = fopen("/tmp/inc.json", "w");
        fprintf(ft, "%s\n%s\n", da, da + strlen(da) + 1);
        fclose(ft);
        ft = fopen("/tmp/fresh.json", "w");
        fprintf(ft, "%s\n%s\n", db, db + strlen(db) + 1);
        fclose(ft);
        abort();
      }
      free(da2);
      free(db2);
    }
    if (strstr(da, "\"code\":\"R-")) findings_seen++;
    prev.len = 0;
    pd_buf_append(&prev, d->text, d->len);
    prev_focus = d->edit_at;
    free(da);
    free(db);
    ts_tree_delete(fresh);
  }
  printf("lsp_random_edits: %d edits; %zu texts with syntax errors; %zu with rule findings; "
         "%zu analyses resumed at a checkpoint, %zu statements replayed; %d tree and %d analysis "
         "mismatches\n", (int)EDITS, with_errors, findings_seen, resumed, replayed, tree_diffs, diag_diffs);
  /* The walk must have visited broken and repaired states, or it proved little. */
  CHECK(with_errors > EDITS / 10);
  CHECK(with_errors < EDITS - EDITS / 10);
  CHECK(findings_seen > EDITS / 10);
  CHECK(resumed > EDITS / 10); /* the resumed path was exercised, not just allowed */
  CHECK(replayed > EDITS / 10);
  sm_checkpoint_free(ck);
  free(ref.cp);
  free(ins.cp);
  for (int i = 0; i < MAX_DEPTH; i++) free(undos[i].removed.cp);
  pd_buf_free(&text);
  pd_buf_free(&prev);
  pd_buf_free(&a);
  pd_buf_free(&b);
  doc_free(d);
  ts_parser_delete(p);
  free(uri);
  free(orig);
  free(path);
  au_rules_free(rules);
  return pd_test_exit("lsp_random_edits");
}
