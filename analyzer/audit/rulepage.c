/* rulepage: a rule of the catalog as a markdown page (`perf-doctor explain`, docs/rules/) and the
 * index of them all (`perf-doctor rules`), in en or zh, from the rule as its catalog writes it. */
#include <stdlib.h>
#include <string.h>

#include "audit/au_int.h"
#include "audit/messages.h"
#include "base/alloc.h"

static const char *tr(json_t *text, const char *lang) {
  const char *zh = json_string_value(json_object_get(text, "zh"));
  const char *en = json_string_value(json_object_get(text, "en"));
  return !strcmp(lang, "zh") && zh ? zh : en ? en : "";
}

static char *m(const au_rules *rs, au_msg_id id, const char *lang, const ax_value *a) {
  return au_msg(au_rules_messages(rs), id, lang, NULL, a);
}

/* "rl, genrm jobs; only where a rollout engine runs" */
static char *applies(const au_rules *rs, json_t *rule, const char *lang) {
  pd_buf b = {0};
  json_t *modes = json_object_get(rule, "modes");
  if (json_array_size(modes)) {
    pd_buf list = {0};
    size_t i;
    json_t *v;
    json_array_foreach(modes, i, v) pd_buf_printf(&list, "%s%s", i ? ", " : "", json_string_value(v));
    ax_value a = ax_str(list.data);
    char *s = m(rs, AU_MSG_PAGE_JOBS, lang, &a);
    pd_buf_puts(&b, s);
    free(s);
    pd_buf_free(&list);
  } else {
    char *s = m(rs, AU_MSG_PAGE_ALL_JOBS, lang, NULL);
    pd_buf_puts(&b, s);
    free(s);
  }
  static const struct {
    const char *need;
    au_msg_id id;
  } needs[] = {{"engine", AU_MSG_PAGE_NEEDS_ENGINE}, {"train", AU_MSG_PAGE_NEEDS_TRAIN},
               {"megatron", AU_MSG_PAGE_NEEDS_MEGATRON}};
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(rule, "needs"), i, v) {
    for (size_t k = 0; k < sizeof needs / sizeof *needs; k++)
      if (!strcmp(json_string_value(v), needs[k].need)) {
        char *s = m(rs, needs[k].id, lang, NULL);
        pd_buf_printf(&b, "%s%s", !strcmp(lang, "zh") ? "；" : "; ", s);
        free(s);
      }
  }
  return pd_buf_take(&b);
}

static void row(pd_buf *b, const au_rules *rs, au_msg_id label, const char *value, const char *lang) {
  if (!value || !*value) return;
  char *l = m(rs, label, lang, NULL);
  ax_value a[2] = {ax_str(l), ax_str(value)};
  au_msg_append(b, au_rules_messages(rs), AU_MSG_PAGE_ROW, lang, NULL, a);
  free(l);
}

static void section(pd_buf *b, const au_rules *rs, au_msg_id name, const char *text, const char *lang) {
  if (!text || !*text) return;
  char *n = m(rs, name, lang, NULL);
  ax_value a[2] = {ax_str(n), ax_str(text)};
  au_msg_append(b, au_rules_messages(rs), AU_MSG_PAGE_SECTION, lang, NULL, a);
  free(n);
}

static char *joined(json_t *arr, const char *sep, const char *quote) {
  pd_buf b = {0};
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) pd_buf_printf(&b, "%s%s%s%s", i ? sep : "", quote, json_string_value(v), quote);
  return b.data ? pd_buf_take(&b) : NULL;
}

static char *cases_text(const au_rules *rs, json_t *rule, const char *lang) {
  pd_buf b = {0};
  const char *rule_sev = json_string_value(json_object_get(rule, "severity"));
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(rule, "cases"), i, c) {
    const char *sev = json_string_value(json_object_get(c, "severity"));
    ax_value a[3] = {ax_str(json_string_value(json_object_get(c, "when"))),
                     ax_str(sev ? sev : rule_sev), ax_str(tr(json_object_get(c, "cost"), lang))};
    au_msg_append(&b, au_rules_messages(rs), AU_MSG_PAGE_CASE, lang, NULL, a);
  }
  if (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
  return b.data ? pd_buf_take(&b) : NULL;
}

static char *example_text(const au_rules *rs, json_t *rule, const char *lang) {
  json_t *ex = json_object_get(rule, "example");
  const char *lines = json_string_value(json_object_get(ex, "lines"));
  if (!lines) return NULL;
  ax_value a = ax_str(json_string_value(json_object_get(ex, "base")));
  char *intro = m(rs, AU_MSG_PAGE_EXAMPLE_TEXT, lang, &a);
  char *s = pd_xasprintf("%s\n\n```bash\n%s\n```", intro, lines);
  free(intro);
  return s;
}

static void page_table(pd_buf *b, const au_rules *rs, json_t *rule, const char *lang) {
  pd_buf_puts(b, "| | |\n|---|---|\n");
  row(b, rs, AU_MSG_PAGE_SEVERITY, json_string_value(json_object_get(rule, "severity")), lang);
  row(b, rs, AU_MSG_PAGE_CATEGORY, json_string_value(json_object_get(rule, "category")), lang);
  char *ap = applies(rs, rule, lang);
  row(b, rs, AU_MSG_PAGE_APPLIES, ap, lang);
  free(ap);
  char *intents = joined(json_object_get(rule, "intent"), ", ", "`");
  row(b, rs, AU_MSG_PAGE_INTENTS, intents, lang);
  free(intents);
  const char *skip = json_string_value(json_object_get(rule, "skip"));
  char *sk = skip ? pd_xasprintf("`%s`", skip) : NULL;
  row(b, rs, AU_MSG_PAGE_SKIP, sk, lang);
  free(sk);
  row(b, rs, AU_MSG_PAGE_VERIFIED, json_string_value(json_object_get(rule, "verified")), lang);
  pd_buf_putc(b, '\n');
}

char *au_rule_page(const au_rules *rs, const char *id, const char *lang) {
  json_t *rule = NULL;
  for (size_t i = 0; !rule && i < au_rules_count(rs); i++)
    if (!strcmp(au_rule_id(rs, i), id)) rule = au_rule_json(rs, i);
  if (!rule) return NULL;
  pd_buf b = {0};
  ax_value t[2] = {ax_str(id), ax_str(tr(json_object_get(rule, "title"), lang))};
  au_msg_append(&b, au_rules_messages(rs), AU_MSG_PAGE_TITLE, lang, NULL, t);
  page_table(&b, rs, rule, lang);
  section(&b, rs, AU_MSG_PAGE_WHY, tr(json_object_get(rule, "why"), lang), lang);
  char *cases = cases_text(rs, rule, lang);
  section(&b, rs, AU_MSG_PAGE_WHEN, cases, lang);
  free(cases);
  section(&b, rs, AU_MSG_PAGE_FIX, tr(json_object_get(rule, "fix"), lang), lang);
  section(&b, rs, AU_MSG_PAGE_SKIP_IF, tr(json_object_get(rule, "skip_if"), lang), lang);
  char *ex = example_text(rs, rule, lang);
  section(&b, rs, AU_MSG_PAGE_EXAMPLE, ex, lang);
  free(ex);
  ax_value a = ax_str(id);
  char *ctl = m(rs, AU_MSG_PAGE_CONTROL_TEXT, lang, &a);
  section(&b, rs, AU_MSG_PAGE_CONTROL, ctl, lang);
  free(ctl);
  json_decref(rule);
  while (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
  pd_buf_putc(&b, '\n');
  return pd_buf_take(&b);
}

char *au_rules_index(const au_rules *rs, const char *lang, const char *link_fmt) {
  pd_buf b = {0};
  au_msg_append(&b, au_rules_messages(rs), AU_MSG_PAGE_INDEX_TITLE, lang, NULL, NULL);
  au_msg_append(&b, au_rules_messages(rs), AU_MSG_PAGE_INDEX_HEAD, lang, NULL, NULL);
  for (size_t i = 0; i < au_rules_count(rs); i++) {
    json_t *rule = au_rule_json(rs, i);
    const char *id = au_rule_id(rs, i);
    char *link = pd_xasprintf(link_fmt ? link_fmt : "%s.md", id);
    char *ap = applies(rs, rule, lang);
    ax_value a[6] = {ax_str(id), ax_str(link), ax_str(json_string_value(json_object_get(rule, "severity"))),
                     ax_str(json_string_value(json_object_get(rule, "category"))), ax_str(ap),
                     ax_str(tr(json_object_get(rule, "title"), lang))};
    au_msg_append(&b, au_rules_messages(rs), AU_MSG_PAGE_INDEX_ROW, lang, NULL, a);
    free(ap);
    free(link);
    json_decref(rule);
  }
  return pd_buf_take(&b);
}
