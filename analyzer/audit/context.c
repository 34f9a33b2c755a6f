/* context: the `perf-doctor context` view of a script: what the model holds (script/out.c) with
 * the context derived from it in the facts (mode, layout, GPU totals) put in front. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/facts.h"
#include "base/alloc.h"
#include "base/path.h"

/* A fact as JSON: integers as integers, null when unknown. */
static json_t *fact_json(const au_facts *f, af_id id) {
  ax_value v = af_value(f, id);
  switch (v.kind) {
  case AX_NUM: return v.num == floor(v.num) && fabs(v.num) < 9e15 ? json_integer((json_int_t)v.num) : json_real(v.num);
  case AX_BOOL: return json_boolean(v.b);
  case AX_STR: return json_string(v.str);
  default: return json_null();
  }
}

json_t *au_context_json(const sm_model *m, const au_facts *f) {
  json_t *own = sm_to_json(m), *o = json_object();
  json_object_set(o, "script", json_object_get(own, "script"));
  json_object_set(o, "model", json_object_get(own, "model"));
  json_object_set_new(o, "arch", json_string(!af_num(f, AF_ARCH_KNOWN, 0) ? "unknown"
                                             : af_num(f, AF_MOE, 0)   ? "moe"
                                                                      : "dense"));
  static const struct {
    const char *key;
    af_id id;
  } derived[] = {
      {"num_experts", AF_E},      {"modality", AF_MODALITY},     {"gpus", AF_GPUS},
      {"nodes", AF_NODES},        {"gpus_per_node", AF_GPUS_PER_NODE}, {"actor_gpus", AF_G_A},
      {"rollout_gpus", AF_G_R},   {"job", AF_JOB},               {"mode", AF_MODE},
      {"rollout_engine", AF_ROLLOUT_ENGINE}, {"intent", AF_INTENT}, {"tp", AF_TP},
      {"pp", AF_PP},              {"cp", AF_CP},                 {"ep", AF_EP},
      {"etp", AF_ETP},            {"max_response_len", AF_RESP}, {"gpu", AF_GPU},
      {"gpu_assumed", AF_GPU_ASSUMED},
  };
  for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++)
    json_object_set_new(o, derived[i].key, fact_json(f, derived[i].id));
  const char *key;
  json_t *v;
  json_object_foreach(own, key, v) {
    if (!json_object_get(o, key)) json_object_set(o, key, v);
  }
  json_decref(own);
  return o;
}

/* A number fact as text, "unknown" when it is not known. */
static void put_num(pd_buf *b, const au_facts *f, af_id id) {
  double x = af_num(f, id, NAN);
  if (isnan(x)) pd_buf_puts(b, "unknown");
  else pd_buf_printf(b, "%.0f", x);
}

char *au_context_text(const sm_model *m, const au_facts *f) {
  pd_buf b = {0};
  bool moe = af_num(f, AF_MOE, 0) != 0;
  const char *modality = af_str(f, AF_MODALITY);
  pd_buf_printf(&b, "script: %s\n", pd_path_base(m->files[0].path));
  pd_buf_printf(&b, "model: %s (%s, %s)\n", m->ctx.model ? m->ctx.model : "unknown",
                moe ? "MoE" : "dense", modality ? modality : "text");
  if (moe) pd_buf_printf(&b, "experts: %.0f\n", af_num(f, AF_E, 0));
  if (af_num(f, AF_GPUS, -1) > 0) {
    pd_buf_puts(&b, "GPUs: ");
    put_num(&b, f, AF_GPUS);
    pd_buf_puts(&b, " (");
    put_num(&b, f, AF_NODES);
    pd_buf_puts(&b, " x ");
    put_num(&b, f, AF_GPUS_PER_NODE);
    pd_buf_puts(&b, ")\n");
  } else {
    pd_buf_puts(&b, "GPUs: unknown\n");
  }
  pd_buf_printf(&b, "job: %s, rollout engine: %s\n", af_str(f, AF_JOB) ? af_str(f, AF_JOB) : "unknown",
                af_num(f, AF_ROLLOUT_ENGINE, 0) ? "yes" : "no");
  pd_buf_printf(&b, "mode: %s\n", af_str(f, AF_MODE) ? af_str(f, AF_MODE) : "unknown");
  const char *intent = af_str(f, AF_INTENT);
  if (intent && *intent) pd_buf_printf(&b, "stated intent: %s\n", intent);
  static const af_id layout[] = {AF_TP, AF_PP, AF_CP, AF_EP, AF_ETP};
  static const char *const labels[] = {"TP", "PP", "CP", "EP", "ETP"};
  pd_buf_puts(&b, "layout: ");
  for (int i = 0; i < 5; i++) {
    pd_buf_printf(&b, "%s%s", i ? "/" : "", labels[i]);
    if (isnan(af_num(f, layout[i], NAN))) pd_buf_putc(&b, ' '); /* "TP unknown" */
    put_num(&b, f, layout[i]);
  }
  pd_buf_putc(&b, '\n');
  if (!isnan(af_num(f, AF_RESP, NAN))) pd_buf_printf(&b, "max-resp-len: %.0f\n", af_num(f, AF_RESP, 0));
  pd_buf_printf(&b, "GPU type: %s%s\n", af_str(f, AF_GPU), af_num(f, AF_GPU_ASSUMED, 1) ? " (assumed)" : "");
  char *rest = sm_to_text(m);
  pd_buf_puts(&b, rest);
  free(rest);
  return pd_buf_take(&b);
}
