/* budget: the memory budget at a glance (audit.h: au_budget_line, au_budget_markdown,
 * au_budget_json): the estimated peak per GPU against the device, its parts (static weights,
 * gradients and optimizer; activations; logits; runtime), the rollout engine's weights and KV
 * cache, and the smallest actor GPU count that fits the layout, with the certainty words the
 * findings use. The numbers are the facts' (facts_mem.c); the words are messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/au_int.h"
#include "audit/facts.h"
#include "base/alloc.h"

static bool known(const au_facts *f, af_id id) { return !isnan(af_num(f, id, NAN)); }

static const struct {
  const char *code;
  au_msg_id id;
} skip_reasons[] = {{"no-training", AU_MSG_MEM_SKIP_NO_TRAINING}, {"backend", AU_MSG_MEM_SKIP_BACKEND},
                    {"architecture", AU_MSG_MEM_SKIP_ARCH},       {"device", AU_MSG_MEM_SKIP_DEVICE},
                    {"layout", AU_MSG_MEM_SKIP_LAYOUT},           {"inputs", AU_MSG_MEM_SKIP_INPUTS}};

/* Why the estimate is missing (caller frees), or NULL when it was made. */
static char *skipped(const au_result *r, const char *lang) {
  const char *code = af_str(r->facts, AF_MEMORY_SKIPPED);
  if (!code && known(r->facts, AF_PEAK)) return NULL;
  for (size_t i = 0; code && i < sizeof skip_reasons / sizeof *skip_reasons; i++)
    if (!strcmp(code, skip_reasons[i].code)) return au_say(r, skip_reasons[i].id, lang, NULL);
  return au_say(r, AU_MSG_MEM_SKIP_INPUTS, lang, NULL);
}

/* The findings' words: "estimate" when the peak rests on values the script fixes (or its own
 * defaults), "to verify" otherwise; *why the sentence naming the uncertain input. */
static char *cert_word(const au_result *r, const char *lang, char **why) {
  const sm_flag *fl = NULL;
  sm_cert c = af_cert(r->facts, AF_PEAK, &fl);
  *why = c < SM_CERT_DEFAULT ? au_cert_text(r, c, fl, lang) : NULL;
  return au_say(r, *why ? AU_MSG_BUDGET_CERT_VERIFY : AU_MSG_BUDGET_CERT_ESTIMATE, lang, NULL);
}

static bool engine(const au_result *r) {
  ax_value v = af_value(r->facts, AF_ROLLOUT_ENGINE);
  return v.kind == AX_BOOL && v.b && known(r->facts, AF_ROLLOUT_WEIGHTS);
}

char *au_budget_line(const au_result *r, const char *lang) {
  if (!r || !r->model || !r->model->launch_script || !r->facts) return NULL;
  char *reason = skipped(r, lang);
  if (reason) {
    ax_value a = ax_str(reason);
    char *s = au_say(r, AU_MSG_BUDGET_SKIPPED, lang, &a);
    free(reason);
    return s;
  }
  char *why;
  char *word = cert_word(r, lang, &why);
  ax_value a = ax_str(word);
  pd_buf b = {0};
  char *part = au_say(r, AU_MSG_BUDGET_LINE, lang, &a);
  pd_buf_puts(&b, part);
  free(part);
  if (engine(r)) {
    part = au_say(r, AU_MSG_BUDGET_ROLLOUT, lang, NULL);
    pd_buf_puts(&b, part);
    free(part);
  }
  part = au_say(r, known(r->facts, AF_MIN_GPUS_FIT) ? AU_MSG_BUDGET_FIT : AU_MSG_BUDGET_NO_FIT, lang, NULL);
  pd_buf_puts(&b, part);
  free(part);
  free(word);
  free(why);
  return pd_buf_take(&b);
}

static void say(pd_buf *b, const au_result *r, au_msg_id id, const char *lang, const ax_value *args) {
  char *s = au_say(r, id, lang, args);
  pd_buf_puts(b, s);
  free(s);
}

char *au_budget_markdown(const au_result *r, const char *lang) {
  if (!r || !r->model || !r->model->launch_script || !r->facts) return NULL;
  pd_buf b = {0};
  char *reason = skipped(r, lang);
  if (reason) {
    ax_value a = ax_str(reason);
    say(&b, r, AU_MSG_BUDGET_MD_SKIPPED, lang, &a);
    free(reason);
    return pd_buf_take(&b);
  }
  char *why;
  char *word = cert_word(r, lang, &why);
  ax_value a = ax_str(word);
  say(&b, r, AU_MSG_BUDGET_MD_TITLE, lang, &a);
  static const au_msg_id rows[] = {AU_MSG_BUDGET_MD_HEAD, AU_MSG_BUDGET_MD_STATIC, AU_MSG_BUDGET_MD_ACT,
                                   AU_MSG_BUDGET_MD_LOGITS, AU_MSG_BUDGET_MD_RUNTIME, AU_MSG_BUDGET_MD_PEAK};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) say(&b, r, rows[i], lang, NULL);
  if (engine(r)) say(&b, r, AU_MSG_BUDGET_MD_ROLLOUT, lang, NULL);
  say(&b, r, known(r->facts, AF_MIN_GPUS_FIT) ? AU_MSG_BUDGET_MD_FIT : AU_MSG_BUDGET_MD_NO_FIT, lang, NULL);
  if (why) {
    ax_value w = ax_str(why);
    say(&b, r, AU_MSG_BUDGET_MD_CERT, lang, &w);
  }
  free(word);
  free(why);
  return pd_buf_take(&b);
}

static json_t *num(const au_facts *f, af_id id, int digits) {
  double v = af_num(f, id, NAN);
  if (isnan(v)) return json_null();
  if (!digits) return json_integer((json_int_t)llround(v));
  double k = pow(10, digits);
  return json_real(round(v * k) / k);
}

json_t *au_budget_json(const au_result *r) {
  if (!r || !r->model || !r->model->launch_script || !r->facts) return json_null();
  const au_facts *f = r->facts;
  const char *code = af_str(f, AF_MEMORY_SKIPPED);
  if (code || !known(f, AF_PEAK)) return json_pack("{s:s}", "skipped", code ? code : "inputs");
  const sm_flag *fl = NULL;
  sm_cert c = af_cert(f, AF_PEAK, &fl);
  json_t *j = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s}", "peak_gib", num(f, AF_PEAK, 2),
                        "device_gib", num(f, AF_M, 2), "static_gib", num(f, AF_STATIC, 2), "activations_gib",
                        num(f, AF_ACT, 2), "logits_gib", num(f, AF_LOGITS, 2), "runtime_gib",
                        num(f, AF_OVERHEAD, 2), "min_gpus_fit", num(f, AF_MIN_GPUS_FIT, 0), "certainty",
                        sm_cert_name(c));
  if (c < SM_CERT_DEFAULT && fl) json_object_set_new(j, "rests_on", json_string(fl->name));
  if (engine(r))
    json_object_set_new(j, "rollout", json_pack("{s:o,s:o}", "weights_gib", num(f, AF_ROLLOUT_WEIGHTS, 2),
                                                "kv_tokens_per_engine", num(f, AF_KV_TOKENS, 0)));
  return j;
}

char *au_layout_hint(const au_result *r, const char *flag, const char *lang) {
  static const struct {
    const char *flag;
    au_msg_id id;
    af_id need[2];
  } t[] = {{"--tensor-model-parallel-size", AU_MSG_INLAY_DP, {AF_DP, AF_G_A}},
           {"--pipeline-model-parallel-size", AU_MSG_INLAY_DP, {AF_DP, AF_G_A}},
           {"--context-parallel-size", AU_MSG_INLAY_DP, {AF_DP, AF_G_A}},
           {"--resource", AU_MSG_INLAY_WORLD, {AF_G_TOTAL, AF_G_A}},
           {"--actor-num-gpus-per-node", AU_MSG_INLAY_WORLD, {AF_G_TOTAL, AF_G_A}},
           {"--rollout-num-gpus-per-engine", AU_MSG_INLAY_ENGINES, {AF_ENGINES, AF_GPE}}};
  if (!r || !r->facts || !flag) return NULL;
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    if (strcmp(flag, t[i].flag)) continue;
    if (!known(r->facts, t[i].need[0]) || !known(r->facts, t[i].need[1])) return NULL;
    return au_say(r, t[i].id, lang, NULL);
  }
  return NULL;
}
