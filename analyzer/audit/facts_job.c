/* facts_job: what kind of job the script launches, whether it runs a rollout engine, and the
 * intent its file name or flags state. Relax has one entrypoint; the job follows from the flags
 * the way Relax resolves its roles (relax/core/registry.py process_role and the service plan):
 * --debug-rollout-only runs the rollout only, --debug-train-only the actor only, --loss-type sft
 * (or --sft) an SFT producer and the actor (CPT and the preference objectives are SFT variants),
 * everything else RL. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "audit/facts_int.h"
#include "base/alloc.h"
#include "base/path.h"

/* The job kind: the first of the knowledge's job triggers that holds (the flags Relax resolves
 * the roles from: --loss-type, --sft-objective, --sft-training-mode, --train-backend, ...); "rl"
 * when the knowledge is missing. */
static const char *job_kind(au_facts *f) {
  ax_env env = af_env(f);
  for (size_t i = 0; f->k && i < ak_njobs(f->k); i++) {
    const ax_expr *when;
    const char *job = ak_job(f->k, i, &when);
    if (ax_truth(ax_eval(when, &env)) == 1) return job;
  }
  return "rl";
}

static bool is_rl(const au_facts *f, const char *job) {
  return f->k ? ak_is_rl(f->k, job) : !strcmp(job, "rl");
}

/* An SFT job starts SGLang only for its periodic predictions, on the `rollout` GPUs of
 * --resource (the controller skips the role, with a warning, when the entry is missing). */
static bool sft_engine(au_facts *f) {
  if (!af_flag_has(f, "--sft-predict-interval")) return false;
  const sm_flag *res = sm_flag_get(f->m, "--resource");
  af_note_flag(f, res);
  if (!res || !res->json) return true; /* unresolved: Relax may well start it */
  return json_object_get(res->json, "rollout") != NULL;
}

/* The intents a file name states: the words of its name without .sh, with the compound
 * no-<word> kept whole ("run-x-no-sp-no-recompute" -> "no-sp,no-recompute"). */
static char *name_intents(const au_facts *f, const char *base) {
  static const char *const none[] = {NULL};
  const char *const *words = f->k ? ak_intent_words(f->k) : none;
  pd_buf b = {0};
  size_t n = strlen(base);
  if (n > 3 && !strcmp(base + n - 3, ".sh")) n -= 3;
  for (size_t w = 0; words[w]; w++) {
    size_t k = strlen(words[w]);
    for (size_t i = 0; i + k <= n; i++) {
      bool start = i == 0 || base[i - 1] == '-' || base[i - 1] == '_' || base[i - 1] == '.';
      bool end = i + k == n || base[i + k] == '-' || base[i + k] == '_' || base[i + k] == '.';
      if (start && end && !strncmp(base + i, words[w], k)) {
        pd_buf_printf(&b, "%s%s", b.len ? "," : "", words[w]);
        break;
      }
    }
  }
  return b.data ? pd_buf_take(&b) : pd_xstrdup("");
}

/* Adds to b the intents the script's opening comment states ("validation script", "for CI",
 * "smoke test"): the author's own words, like a NOTE. Only the comment block before the first
 * command counts; words are compared whole (or with a plural s), case-insensitively. */
static void header_intents(const au_facts *f, pd_buf *b) {
  static const char *const none[] = {NULL};
  const char *const *words = f->k ? ak_intent_words(f->k) : none;
  const char *t = f->m->nfiles ? f->m->files[0].text : NULL;
  for (const char *line = t; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    const char *p = line;
    while (p < line + n && (*p == ' ' || *p == '\t')) p++;
    if (p < line + n && *p != '#') break; /* the first command ends the header */
    for (const char *w = p; w < line + n;) {
      while (w < line + n && !isalnum((unsigned char)*w)) w++;
      const char *we = w;
      while (we < line + n && (isalnum((unsigned char)*we) || *we == '-')) we++;
      for (size_t i = 0; words[i] && we > w; i++) {
        size_t k = strlen(words[i]), len = (size_t)(we - w);
        /* prose states intent in the plural too ("correctness tests") */
        bool plural = len == k + 1 && (w[k] == 's' || w[k] == 'S');
        if ((len != k && !plural) || strncasecmp(w, words[i], k)) continue;
        bool have = false; /* already stated by the file name */
        for (const char *q = b->data ? strstr(b->data, words[i]) : NULL; q; q = strstr(q + 1, words[i]))
          if ((q == b->data || q[-1] == ',') && (q[k] == ',' || !q[k])) have = true;
        if (!have) pd_buf_printf(b, "%s%s", b->len ? "," : "", words[i]);
      }
      w = we;
    }
    line = end ? end + 1 : NULL;
  }
}

void af_compute_job(au_facts *f) {
  af_begin(f);
  const char *job = job_kind(f);
  af_sets(f, AF_JOB, job);
  af_begin(f);
  job_kind(f);
  bool rollout_only = af_flag_on(f, "--debug-rollout-only");
  bool train_only = af_flag_on(f, "--debug-train-only");
  bool engine = !train_only && (is_rl(f, job) || (strcmp(job, "dpo") && strcmp(job, "reward-model") &&
                                               sft_engine(f)));
  af_setb(f, AF_ROLLOUT_ENGINE, engine || rollout_only);
  af_setb(f, AF_TRAINS, !rollout_only);
  af_begin(f);
  bool pref = !strcmp(job_kind(f), "dpo") || !strcmp(job_kind(f), "reward-model");
  af_setb(f, AF_PREFERENCE, pref);
  /* a preference pair is packed as one unit: both prompt+answer copies, each capped */
  double pml = pref ? af_flag_num(f, "--preference-max-length", NAN) : NAN;
  af_setu(f, AF_PAIR_MAX, 2 * pml);
  af_begin(f);
  const char *backend = af_flag_str(f, "--train-backend");
  af_setb(f, AF_MEGATRON, !backend || !strcmp(backend, "megatron"));
  af_begin(f);
  const sm_model *m = f->m;
  pd_buf stated = {0};
  char *from_name = name_intents(f, pd_path_base(m->nfiles ? m->files[0].path : ""));
  pd_buf_printf(&stated, "%s", from_name);
  free(from_name);
  header_intents(f, &stated);
  char *intents = stated.data ? pd_buf_take(&stated) : pd_xstrdup("");
  if ((rollout_only || train_only) && !strstr(intents, "debug")) {
    char *more = pd_xasprintf("%s%sdebug", intents, *intents ? "," : "");
    free(intents);
    intents = more;
  }
  af_sets(f, AF_INTENT, intents);
  free(intents);
}
