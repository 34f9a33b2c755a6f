/* The message mechanism of the trace layer: base/msgcat's templates (arguments by name and type,
 * printf conversions, plural choices, literal braces, and what compiling refuses), the catalog
 * loader's refusals (a language missing, an unknown key or argument), the compiled form read back,
 * and every message of the built-in catalog rendered in both languages with arguments of its
 * types. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/msgcat.h"
#include "tests/harness.h"
#include "trace/messages.h"

static const pd_msg_spec SPECS[] = {
    {"t.str", "who:s"}, {"t.num", "x:f,n:i"}, {"t.none", ""}, {"t.bad", "x:q"},
};

/* Renders message id of c with args as a fresh string. */
static char *render(const pd_msgcat *c, size_t id, size_t lang, const pd_marg *a, size_t n) {
  pd_buf b = {0};
  pd_msgcat_render(&b, c, id, lang, a, n);
  return pd_buf_take(&b);
}

static void expect(pd_msgcat *c, size_t id, const char *tpl, const pd_marg *a, size_t n, const char *want) {
  char *why = NULL;
  CHECK(pd_msgcat_set(c, id, 0, tpl, &why));
  if (why) fprintf(stderr, "%s: %s\n", tpl, why);
  free(why);
  char *got = render(c, id, 0, a, n);
  CHECK_STR(got, want);
  free(got);
}

static void refused(pd_msgcat *c, size_t id, const char *tpl, const char *reason) {
  char *why = NULL;
  CHECK(!pd_msgcat_set(c, id, 0, tpl, &why));
  CHECK(why && strstr(why, reason));
  if (why && !strstr(why, reason)) fprintf(stderr, "%s: %s\n", tpl, why);
  CHECK(!pd_msgcat_has(c, id, 0));
  free(why);
}

static void test_templates(void) {
  pd_msgcat *c = pd_msgcat_new(SPECS, 4, 2);
  CHECK_INT(pd_msgcat_find(c, "t.num"), 1);
  CHECK_INT(pd_msgcat_find(c, "t.nope"), -1);
  pd_marg who[] = {PD_MS("rank 3")};
  expect(c, 0, "On {who}: done", who, 1, "On rank 3: done");
  pd_marg num[] = {PD_MF(12.345), PD_MI(1)};
  expect(c, 1, "{x:%.1f} % in {n} step{n?|s}", num, 2, "12.3 % in 1 step");
  pd_marg num2[] = {PD_MF(-0.5), PD_MI(3)};
  expect(c, 1, "{x:%+.2f} pts, {n} step{n?|s}, {n:%4d}|{x}", num2, 2, "-0.50 pts, 3 steps,    3|-0.5");
  expect(c, 2, "needs `_pp{{P}}` {{and}} more", NULL, 0, "needs `_pp{P}` {and} more");
  CHECK_STR(pd_msgcat_text(c, 2, 0), "needs `_pp{{P}}` {{and}} more");
  /* what compiling refuses */
  refused(c, 0, "hello {whom}", "names no argument");
  refused(c, 0, "{who:%d}", "printf conversion");
  refused(c, 1, "{x:%d}", "printf conversion");
  refused(c, 1, "{n:%.1f}", "printf conversion");
  refused(c, 1, "{x:%.1f%%}", "printf conversion");
  refused(c, 0, "{who?a|b}", "integer");
  refused(c, 1, "{n?only}", "plural");
  refused(c, 0, "an {unclosed", "unclosed");
  refused(c, 0, "a lone } brace", "lone");
  refused(c, 3, "anything", "argument list");
  /* rendering never reads past the arguments: wrong count or type shows in the text */
  pd_marg wrong[] = {PD_MI(1), PD_MI(2)};
  expect(c, 0, "On {who}", who, 1, "On rank 3");
  char *got = render(c, 0, 0, wrong, 1);
  CHECK_STR(got, "{?t.str}");
  free(got);
  got = render(c, 0, 0, NULL, 0);
  CHECK_STR(got, "{?t.str}");
  free(got);
  pd_msgcat_set_checked(c, 0, 1, "bad {nope} template"); /* not checked: unsound, said so when rendered */
  got = render(c, 0, 1, who, 1);
  CHECK_STR(got, "bad {?t.str}");
  free(got);
  got = render(c, 2, 1, NULL, 0); /* no template in language 1: the key */
  CHECK_STR(got, "t.none");
  free(got);
  pd_msgcat_free(c);
}

static size_t errors_with(char **errs, size_t n, const char *what) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += strstr(errs[i], what) != NULL;
  return k;
}

static void free_errs(char **errs, size_t n) {
  for (size_t i = 0; i < n; i++) free(errs[i]);
  free(errs);
}

static void test_loader(void) {
  char **errs = NULL;
  size_t n = 0;
  const char *doc = "{\"messages\": {\"sum.title\": {\"en\": \"t {name}\"}, \"cmp.title\": {\"en\": \"a\", \"zh\": \"{bogus}\"},"
                    " \"no.such\": {\"en\": \"x\", \"zh\": \"y\"}}}";
  tr_msgs *m = tr_msgs_load(doc, strlen(doc), &errs, &n);
  CHECK(errors_with(errs, n, "sum.title has no zh text") == 1);
  CHECK(errors_with(errs, n, "cmp.title (zh): {bogus} names no argument") == 1);
  CHECK(errors_with(errs, n, "no.such is not a message") == 1);
  CHECK(errors_with(errs, n, "sum.source is missing") == 1);
  tr_text zh = {m, TR_ZH}, en = {m, TR_EN};
  char *s = TR_SAID(&en, TM_SUM_TITLE, PD_MS("x"));
  CHECK_STR(s, "t x");
  free(s);
  s = TR_SAID0(&zh, TM_CMP_TITLE); /* refused: rendered as its key */
  CHECK_STR(s, "cmp.title");
  free(s);
  tr_msgs_free(m);
  free_errs(errs, n);
  errs = NULL;
  n = 0;
  m = tr_msgs_load("not json", 8, &errs, &n);
  CHECK(n == 1 && errors_with(errs, n, "not {\"messages\""));
  tr_msgs_free(m);
  free_errs(errs, n);
}

/* The built-in catalog: no errors, every message in both languages renders with arguments of its
 * types, not as its key and without a mismatch marker; the compiled form reads back the same. */
static void test_builtin(void) {
  static const char *const args[TM_COUNT] = {
#define ARGS_(id, key, a) a,
      TR_MESSAGES(ARGS_)
#undef ARGS_
  };
  static const char *const keys[TM_COUNT] = {
#define KEYS_(id, key, a) key,
      TR_MESSAGES(KEYS_)
#undef KEYS_
  };
  char **errs = NULL;
  size_t n = 0;
  tr_msgs *m = tr_msgs_builtin(&errs, &n);
  CHECK_INT(n, 0);
  for (size_t i = 0; i < n; i++) fprintf(stderr, "%s\n", errs[i]);
  free_errs(errs, n);
  for (int id = 0; id < TM_COUNT; id++) {
    pd_marg a[16];
    size_t na = 0;
    for (const char *p = args[id]; *p && na < 16; p++)
      if (*p == ':') a[na++] = p[1] == 's' ? PD_MS("S") : p[1] == 'i' ? PD_MI(2) : PD_MF(2.5);
    for (int l = 0; l < TR_NLANGS; l++) {
      tr_text t = {m, l};
      char *s = tr_said(&t, (tr_msg_id)id, a, na);
      CHECK(strcmp(s, keys[id]) != 0 && !strstr(s, "{?"));
      if (!strcmp(s, keys[id]) || strstr(s, "{?")) fprintf(stderr, "%s (%d): %s\n", keys[id], l, s);
      free(s);
    }
  }
  pd_buf bin = {0};
  tr_msgs_to_binary(m, &bin);
  errs = NULL;
  n = 0;
  tr_msgs *back = tr_msgs_from_binary((const unsigned char *)bin.data, bin.len, &errs, &n);
  CHECK_INT(n, 0);
  for (int id = 0; id < TM_COUNT; id++)
    for (int l = 0; l < TR_NLANGS; l++) CHECK_STR(tr_msgs_text(back, (tr_msg_id)id, l), tr_msgs_text(m, (tr_msg_id)id, l));
  tr_msgs_free(back);
  free_errs(errs, n);
  /* a compiled form that does not match the list is refused: a key out of place, another count,
   * cut short */
  uint32_t first_key;
  memcpy(&first_key, bin.data + 4 * sizeof(uint32_t), sizeof first_key);
  size_t pool = (4 + (size_t)TM_COUNT * (1 + TR_NLANGS)) * sizeof(uint32_t);
  bin.data[pool + first_key] ^= 1;
  errs = NULL;
  n = 0;
  back = tr_msgs_from_binary((const unsigned char *)bin.data, bin.len, &errs, &n);
  CHECK(n == 1 && errors_with(errs, n, "belongs"));
  tr_msgs_free(back);
  free_errs(errs, n);
  bin.data[pool + first_key] ^= 1;
  bin.data[2 * sizeof(uint32_t)] ^= 1;
  errs = NULL;
  n = 0;
  back = tr_msgs_from_binary((const unsigned char *)bin.data, bin.len, &errs, &n);
  CHECK(n == 1 && errors_with(errs, n, "not one of this build's list"));
  tr_msgs_free(back);
  free_errs(errs, n);
  bin.data[2 * sizeof(uint32_t)] ^= 1;
  errs = NULL;
  n = 0;
  back = tr_msgs_from_binary((const unsigned char *)bin.data, pool / 2, &errs, &n);
  CHECK(n == 1);
  tr_msgs_free(back);
  free_errs(errs, n);
  pd_buf_free(&bin);
  tr_msgs_free(m);
}

int main(void) {
  test_templates();
  test_loader();
  test_builtin();
  return pd_test_exit("trace_messages");
}
