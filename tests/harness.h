/* harness: the few assertion macros the C tests share. A failed check prints where and why and
 * counts; main returns pd_test_exit(). */
#ifndef PD_TEST_HARNESS_H
#define PD_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

static int pd_test_failures;
static int pd_test_checks;

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    pd_test_checks++;                                                                   \
    if (!(cond)) {                                                                      \
      pd_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);          \
    }                                                                                   \
  } while (0)

#define CHECK_STR(got, want)                                                            \
  do {                                                                                  \
    const char *g_ = (got), *w_ = (want);                                               \
    pd_test_checks++;                                                                   \
    if (!g_ || !w_ ? g_ != w_ : strcmp(g_, w_) != 0) {                                  \
      pd_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: %s == \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got,    \
              g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                  \
    }                                                                                   \
  } while (0)

#define CHECK_INT(got, want)                                                            \
  do {                                                                                  \
    long long g_ = (long long)(got), w_ = (long long)(want);                            \
    pd_test_checks++;                                                                   \
    if (g_ != w_) {                                                                     \
      pd_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: %s == %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
    }                                                                                   \
  } while (0)

static inline int pd_test_exit(const char *name) {
  printf("%s: %d checks, %d failed\n", name, pd_test_checks, pd_test_failures);
  return pd_test_failures ? 1 : 0;
}

#endif
