/* The corpus test (issue 13): every fixture launch script under tests/fixtures/audit/scripts/
 * training, in every mode the fixtures cover, audited in English and Chinese. Over all of them:
 *   - no unfilled placeholder in any text a user reads ("?", "nan", "inf", braces, empty values),
 *     and no full-width punctuation in English;
 *   - no critical finding that rests on an input less certain than a script default;
 *   - no finding of a rule that needs a rollout engine in a job that runs none;
 *   - the fixtures cover every job kind (rl, genrm, diffusion, sft, cpt, dpo, reward-model). */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "audit/facts.h"
#include "base/str.h"
#include "tests/audit/fixture.h"
#include "tests/harness.h"

static const char *const jobs[] = {"rl", "genrm", "diffusion", "sft", "cpt", "dpo", "reward-model"};
#define NJOBS (sizeof jobs / sizeof *jobs)

/* Removes the one legitimate question mark: a typo's likely intent, "(a typo?)". */
static char *without_typo_marks(const char *s) {
  static const char *const marks[] = {"(a typo?)", "（拼写错误？）"};
  char *t = pd_xstrdup(s);
  for (size_t k = 0; k < 2; k++)
    for (char *p; (p = strstr(t, marks[k])) != NULL;) memset(p, ' ', strlen(marks[k]));
  return t;
}

static bool has_word(const char *s, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) {
    bool start = p == s || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z'));
    char e = p[n];
    bool end = !((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z'));
    if (start && end) return true;
  }
  return false;
}

/* "{name": a template part left in the text (JSON values start "{\"", variables "${"). */
static bool unrendered(const char *s) {
  for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
    char c = p[1];
    bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (ident && (p == s || p[-1] != '$')) return true;
  }
  return false;
}

/* What is wrong with a user-visible text, or NULL. */
static const char *placeholder(const char *text, bool english) {
  if (!text || !*text) return "empty";
  char *t = without_typo_marks(text);
  const char *why = NULL;
  if (strchr(t, '?') || strstr(t, "？")) why = "a question mark";
  else if (has_word(t, "nan") || has_word(t, "NaN")) why = "nan";
  else if (has_word(t, "inf")) why = "inf";
  else if (unrendered(t)) why = "an unrendered {expression}";
  else if (strstr(t, "``") || strstr(t, "= ,") || strstr(t, "= ;") || strstr(t, "= )") ||
           strstr(t, "=  ") || strstr(t, "()") || strstr(t, "（）"))
    why = "an empty value";
  else if (english && (strstr(t, "（") || strstr(t, "）") || strstr(t, "，") || strstr(t, "：")))
    why = "full-width punctuation in English";
  free(t);
  return why;
}

typedef struct {
  int scripts;
  bool seen[NJOBS];
} tally;

static void check_result(const char *path, au_result *r, const char *lang, tally *t) {
  bool english = !strcmp(lang, "en");
  double engine = af_num(r->facts, AF_ROLLOUT_ENGINE, 0);
  for (size_t i = 0; i < r->nfindings; i++) {
    const au_finding *f = &r->findings[i];
    const char *texts[] = {f->title, f->setting, f->cost, f->fix};
    for (size_t k = 0; k < 4; k++) {
      const char *why = placeholder(texts[k], english);
      pd_test_checks++;
      if (why) {
        pd_test_failures++;
        fprintf(stderr, "%s [%s] %s: %s in \"%s\"\n", path, lang, f->rule, why, texts[k] ? texts[k] : "");
      }
    }
    pd_test_checks++;
    if (f->severity == AU_CRITICAL && f->certainty < SM_CERT_DEFAULT) {
      pd_test_failures++;
      fprintf(stderr, "%s: %s is critical but rests on a %s input\n", path, f->rule,
              sm_cert_name(f->certainty));
    }
    pd_test_checks++;
    if (!engine && au_rule_needs_engine(r->rules, f->rule)) {
      pd_test_failures++;
      fprintf(stderr, "%s: %s needs a rollout engine; this job runs none\n", path, f->rule);
    }
  }
  char *md = au_report_markdown(r, lang);
  const char *why = placeholder(md, english);
  pd_test_checks++;
  if (why) {
    pd_test_failures++;
    fprintf(stderr, "%s [%s] report: %s\n", path, lang, why);
  }
  free(md);
  const char *job = af_str(r->facts, AF_JOB);
  for (size_t k = 0; job && k < NJOBS; k++)
    if (!strcmp(job, jobs[k])) t->seen[k] = true;
}

static void audit_file(const char *path, tally *t) {
  size_t len = 0;
  char *text = pd_read_file(path, 1 << 24, &len);
  CHECK(text != NULL);
  static const char *const langs[] = {"en", "zh"};
  for (size_t k = 0; text && k < 2; k++) {
    au_config cfg = {.lang = langs[k]};
    au_result *r = au_run(path, text, len, NULL, &cfg);
    CHECK(r->model->launch_script);
    CHECK(af_order_errors(r->facts) == 0); /* every fact computed in its declared step */
    check_result(path, r, langs[k], t);
    au_result_free(r);
  }
  t->scripts++;
  free(text);
}

static void walk(const char *dir, tally *t) {
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = pd_xasprintf("%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) walk(p, t);
    else if (pd_str_ends(e->d_name, ".sh")) audit_file(p, t);
    free(p);
  }
  if (d) closedir(d);
}

int main(void) {
  tally t = {0};
  walk(PD_TESTS_DIR "/fixtures/audit/scripts/training", &t);
  CHECK(t.scripts >= 30);
  for (size_t k = 0; k < NJOBS; k++) {
    pd_test_checks++;
    if (!t.seen[k]) {
      pd_test_failures++;
      fprintf(stderr, "no fixture launches a %s job\n", jobs[k]);
    }
  }
  printf("%d scripts\n", t.scripts);
  return pd_test_exit("audit_corpus");
}
