#include "audit/baseline.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit/catalog.h"
#include "audit/facts.h"
#include "base/alloc.h"
#include "base/data.h"
#include "base/str.h"

struct ab_baselines {
  json_t *rows; /* array of objects, owned */
};

ab_baselines *ab_load(void) {
  size_t len = 0;
  char *text = pd_data_text("baselines.json", &len);
  if (!text) return NULL;
  json_t *root = json_loadb(text, len, 0, NULL);
  free(text);
  json_t *rows = root ? json_object_get(root, "baselines") : NULL;
  if (!json_is_array(rows)) {
    json_decref(root);
    return NULL;
  }
  ab_baselines *b = pd_xcalloc(1, sizeof *b);
  b->rows = json_incref(rows);
  json_decref(root);
  return b;
}

void ab_free(ab_baselines *b) {
  if (!b) return;
  json_decref(b->rows);
  free(b);
}

static void norm_key(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (; s && *s && n + 1 < cap; s++)
    if (isalnum((unsigned char)*s)) out[n++] = (char)tolower((unsigned char)*s);
  out[n] = '\0';
}

/* Row key "qwen3vl4bpokemon" matches script key "qwen3vl4b" (a dataset suffix), not
 * "qwen35" vs "qwen359b". */
static bool key_match(const char *row, const char *script) {
  size_t n = strlen(script);
  if (!n || strncmp(row, script, n) != 0) return false;
  for (const char *p = row + n; *p; p++)
    if (!isalpha((unsigned char)*p)) return false;
  return true;
}

static const char *device_class(const char *d) {
  if (!d || !strcmp(d, "gpu")) return "gpu";
  if (!strcmp(d, "klx") || !strcmp(d, "P800") || !strcmp(d, "p800") || !strcmp(d, "xpu")) return "klx";
  return d;
}

static const json_t *match(const ab_baselines *b, const au_facts *facts) {
  if (!b) return NULL;
  char keys[2][128];
  const char *model = af_str(facts, AF_MODEL);
  const char *name = af_str(facts, AF_SCRIPT_NAME);
  norm_key(model, keys[0], sizeof keys[0]);
  keys[1][0] = '\0';
  /* run-<model>-<size>-<N>x…: the part before the GPU count */
  if (name && pd_str_starts(name, "run")) {
    const char *p = name + 3;
    if (*p == '-' || *p == '_') p++;
    const char *x = p;
    const char *end = NULL;
    for (; *x; x++)
      if ((*x == '-' || *x == '_') && isdigit((unsigned char)x[1])) {
        const char *y = x + 1;
        while (isdigit((unsigned char)*y)) y++;
        if (*y == 'x') {
          end = x;
          break;
        }
      }
    if (end) {
      char tmp[128];
      size_t n = (size_t)(end - p) < sizeof tmp - 1 ? (size_t)(end - p) : sizeof tmp - 1;
      memcpy(tmp, p, n);
      tmp[n] = '\0';
      norm_key(tmp, keys[1], sizeof keys[1]);
    }
  }
  double gpus = af_num(facts, AF_G_TOTAL, NAN);
  if (isnan(gpus)) gpus = af_num(facts, AF_NAME_GPUS, NAN);
  if (isnan(gpus) || gpus <= 0) return NULL;
  const char *dev = device_class(af_str(facts, AF_DEVICE));
  const char *mode = af_str(facts, AF_MODE);
  const json_t *best = NULL;
  double best_score = 1e9;
  size_t i;
  json_t *row;
  json_array_foreach(b->rows, i, row) {
    const char *rk = json_string_value(json_object_get(row, "key"));
    if (!rk || !((keys[0][0] && key_match(rk, keys[0])) || (keys[1][0] && key_match(rk, keys[1]))))
      continue;
    if (strcmp(device_class(json_string_value(json_object_get(row, "device"))), dev) != 0) continue;
    double rg = json_number_value(json_object_get(row, "gpus"));
    if (rg <= 0) continue;
    double d = fabs(log2(rg / gpus));
    if (d > 2) continue;
    const char *rm = json_string_value(json_object_get(row, "mode"));
    const char *kind = json_string_value(json_object_get(row, "kind"));
    const char *task = json_string_value(json_object_get(row, "task"));
    double score = d * 10 + (rm && mode && !strcmp(rm, mode) ? 0 : 3) +
                   (kind && !strcmp(kind, "reference") ? 0 : 1) + (task && strstr(task, "RL") ? 0 : 2);
    if (score < best_score) {
      best_score = score;
      best = row;
    }
  }
  return best;
}

typedef struct {
  const char *flag, *field;
  af_id fact;
  const char *label;
  bool fraction;
} field_map;

static const field_map fields[] = {
    {"--tensor-model-parallel-size", "tp", AF_TP, "TP", false},
    {"--pipeline-model-parallel-size", "pp", AF_PP, "PP", false},
    {"--context-parallel-size", "cp", AF_CP, "CP", false},
    {"--expert-model-parallel-size", "ep", AF_EP, "EP", false},
    {"--expert-tensor-parallel-size", "etp", AF_ETP, "ETP", false},
    {"--max-tokens-per-gpu", "T", AF_T, "max-tok/GPU", false},
    {"--rollout-num-gpus-per-engine", "gpe", AF_GPE, "engine GPUs", false},
    {"--sglang-mem-fraction-static", "frac", AF_FRAC, "sglang mem", true},
    {"--rollout-max-response-len", "resp", AF_RESP, "max resp len", false},
};

static const field_map *field_of(const char *flag) {
  for (size_t i = 0; flag && i < sizeof fields / sizeof fields[0]; i++)
    if (!strcmp(fields[i].flag, flag)) return &fields[i];
  return NULL;
}

/* A row's field as a message argument: a number, a word, or unknown ("-" is none). */
static ax_value row_arg(const json_t *row, const char *key) {
  const json_t *v = json_object_get(row, key);
  if (json_is_number(v)) return ax_num(json_number_value(v));
  const char *s = json_string_value(v);
  return s && strcmp(s, "-") ? ax_str(s) : ax_null();
}

static void row_summary(pd_buf *b, const au_messages *ms, const json_t *row, const char *lang) {
  static const char *const head[] = {"model", "gpus", "recipe", "fork", "other_copy_differs"};
  static const char *const layout[] = {"tp", "pp", "cp", "ep", "etp", "mode", "T", "gpe", "frac", "recompute"};
  ax_value a[10];
  for (size_t i = 0; i < 5; i++) a[i] = row_arg(row, head[i]);
  au_msg_append(b, ms, AU_MSG_BASELINE_ROW, lang, NULL, a);
  for (size_t i = 0; i < 10; i++) a[i] = row_arg(row, layout[i]);
  au_msg_append(b, ms, AU_MSG_BASELINE_SUMMARY, lang, NULL, a);
}

/* How far apart two values of a field are: 0.05 steps for fractions, doublings otherwise. */
static double field_steps(const field_map *fm, double a, double b) {
  if (fm->fraction) return fabs(a - b) / 0.05;
  return a > 0 && b > 0 ? fabs(log2(a / b)) : 0;
}

char *ab_anchor(const ab_baselines *b, const au_messages *ms, const au_facts *facts, const char *flag,
                double fix, const char *lang) {
  const field_map *fm = field_of(flag);
  if (!fm || isnan(fix)) return NULL;
  const json_t *row = match(b, facts);
  if (!row) return NULL;
  json_t *bv = json_object_get(row, fm->field);
  double mine = af_num(facts, fm->fact, NAN);
  if (!json_is_number(bv) || isnan(mine)) return NULL;
  double theirs = json_number_value(bv);
  if (field_steps(fm, mine, theirs) < 2 - 1e-9) return NULL;
  /* the row must be nearer the fix than the script is, or it argues against the fix */
  if (field_steps(fm, theirs, fix) >= field_steps(fm, mine, fix)) return NULL;
  pd_buf out = {0};
  row_summary(&out, ms, row, lang);
  return pd_buf_take(&out);
}

char *ab_describe(const ab_baselines *b, const au_messages *ms, const au_facts *facts,
                  const char *flag, const char *lang) {
  const json_t *row = match(b, facts);
  if (!row) return NULL;
  pd_buf out = {0};
  const field_map *fm = field_of(flag);
  if (fm) {
    json_t *bv = json_object_get(row, fm->field);
    if (json_is_number(bv)) {
      ax_value args[2] = {ax_str(fm->label), ax_num(json_number_value(bv))};
      au_msg_append(&out, ms, AU_MSG_BASELINE_VALUE, lang, NULL, args);
    }
  }
  row_summary(&out, ms, row, lang);
  return pd_buf_take(&out);
}
