/* audit: runs the rule catalog over the facts of one script and turns matches into findings.
 *
 * For each rule: the skip expression, then the first case whose trigger holds; a case with an
 * error band ("ratio") gives applies / borderline / not applicable; a `# NOTE(...)` on the flag
 * downgrades to info (or silences, per rule); user overrides change severity or disable; the
 * finding gets its location, texts (templates filled from facts), baseline anchor and edits. */
#include "analyzer/audit.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/audit_baseline.h"
#include "analyzer/audit_catalog.h"
#include "analyzer/audit_facts.h"
#include "analyzer/util.h"

/* ---- templates ---- */

static void format_value(pd_buf *b, ax_value v) {
  switch (v.kind) {
  case AX_NUM:
    if (fabs(v.num) >= 1e15) pd_buf_printf(b, "%.3g", v.num);
    else if (v.num == floor(v.num) || fabs(v.num) >= 1000) pd_buf_printf(b, "%.0f", v.num);
    else if (fabs(v.num) >= 10) pd_buf_printf(b, "%.1f", v.num);
    else pd_buf_printf(b, "%.3g", v.num);
    break;
  case AX_BOOL: pd_buf_puts(b, v.b ? "true" : "false"); break;
  case AX_STR: pd_buf_puts(b, v.str); break;
  default: pd_buf_putc(b, '?'); break;
  }
}

/* Fills {expression} placeholders. *unknown is set when one of them was null. Caller frees. */
static char *render(const char *tpl, const ax_env *env, bool *unknown) {
  pd_buf b = {0};
  if (!tpl) tpl = "";
  const char *p = tpl;
  while (*p) {
    if (*p != '{') {
      pd_buf_putc(&b, *p++);
      continue;
    }
    /* find the closing brace outside quotes */
    const char *q = p + 1;
    char quote = 0;
    while (*q && (quote || *q != '}')) {
      if (quote && *q == quote) quote = 0;
      else if (!quote && (*q == '\'' || *q == '"')) quote = *q;
      q++;
    }
    if (!*q) {
      pd_buf_puts(&b, p);
      break;
    }
    char *src = pd_xstrndup(p + 1, (size_t)(q - p - 1));
    ax_expr *e = ax_parse(src, NULL);
    free(src);
    ax_value v = e ? ax_eval(e, env) : ax_null();
    if (v.kind == AX_NULL && unknown) *unknown = true;
    format_value(&b, v);
    ax_free(e);
    p = q + 1;
  }
  return pd_buf_take(&b);
}

/* ---- locations and edits ---- */

static const sm_flag *first_present(const sm_model *m, char *const *flags, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const sm_flag *f = sm_flag_get(m, flags[i]);
    if (f) return f;
  }
  return NULL;
}

static const char *file_text(const sm_model *m, int file, size_t *len) {
  if (file < 0 || (size_t)file >= m->nfiles) return NULL;
  *len = m->files[file].len;
  return m->files[file].text;
}

static void push_edit(au_finding *f, size_t *cap, const sm_model *m, int file, uint32_t start,
                      uint32_t end, char *text) {
  au_edit *e = PD_PUSH(f->edits, f->nedits, *cap);
  e->file = file;
  e->range = sm_range_at(m, file, start, end);
  e->new_text = text;
}

/* Where to add a flag: after the anchor's line inside an array, or right after it on a
 * command line. */
static void add_flag(au_finding *f, size_t *cap, const sm_model *m, const sm_flag *anchor,
                     const char *flag, const char *value) {
  size_t len;
  const char *t = file_text(m, anchor->file, &len);
  if (!t) return;
  char *word = value ? pd_xasprintf("%s %s", flag, value) : pd_xstrdup(flag);
  uint32_t end = anchor->full.end_byte;
  if (end > len) end = (uint32_t)len;
  uint32_t eol = end;
  while (eol < len && t[eol] != '\n') eol++;
  bool closes = memchr(t + end, ')', eol - end) != NULL;
  bool continued = false;
  for (uint32_t i = end; i < eol; i++)
    if (t[i] == '\\') continued = true;
  if (anchor->group && !closes && !continued) {
    uint32_t bol = anchor->full.start_byte;
    while (bol > 0 && t[bol - 1] != '\n') bol--;
    uint32_t ind = bol;
    while (ind < len && (t[ind] == ' ' || t[ind] == '\t')) ind++;
    char *indent = pd_xstrndup(t + bol, ind - bol);
    push_edit(f, cap, m, anchor->file, eol, eol, pd_xasprintf("\n%s%s", indent, word));
    free(indent);
  } else {
    push_edit(f, cap, m, anchor->file, end, end, pd_xasprintf(" %s", word));
  }
  free(word);
}

static void remove_flag(au_finding *f, size_t *cap, const sm_model *m, const char *flag) {
  for (size_t i = 0; i < m->nflags; i++) {
    const sm_flag *fl = &m->flags[i];
    if (strcmp(fl->name, flag) != 0) continue;
    size_t len;
    const char *t = file_text(m, fl->file, &len);
    if (!t) continue;
    uint32_t s = fl->full.start_byte, e = fl->full.end_byte;
    if (e > len || s > e) continue;
    uint32_t bol = s, eol = e;
    while (bol > 0 && (t[bol - 1] == ' ' || t[bol - 1] == '\t')) bol--;
    while (eol < len && (t[eol] == ' ' || t[eol] == '\t')) eol++;
    bool alone = (bol == 0 || t[bol - 1] == '\n') && (eol == len || t[eol] == '\n' || t[eol] == '#');
    if (alone) {
      /* the flag is the line's only word: drop the line, with a trailing comment that can
       * only be about the flag */
      while (eol < len && t[eol] != '\n') eol++;
      push_edit(f, cap, m, fl->file, bol, eol < len ? eol + 1 : eol, pd_xstrdup(""));
    } else {
      while (s > 0 && (t[s - 1] == ' ' || t[s - 1] == '\t') && !(s > 1 && t[s - 2] == '\n')) s--;
      push_edit(f, cap, m, fl->file, s, e, pd_xstrdup(""));
    }
  }
}

/* The anchor for an added flag: the first present `near` flag, else the finding's flag, else
 * the last flag of the script itself (not of the model config). */
static const sm_flag *anchor_for(const sm_model *m, const ac_edit *ed, const sm_flag *located) {
  const sm_flag *a = first_present(m, ed->near, ed->nnear);
  if (a) return a;
  if (located) return located;
  for (size_t i = m->nflags; i-- > 0;)
    if (m->flags[i].file == 0 && !m->flags[i].conditional) return &m->flags[m->flags[i].final_index];
  return NULL;
}

static void build_edits(au_finding *f, const sm_model *m, const ac_case *c, const ax_env *env,
                        const sm_flag *located, const char *lang) {
  size_t cap = 0;
  pd_buf sum = {0};
  bool zh = lang && !strcmp(lang, "zh");
  for (size_t i = 0; i < c->nedits; i++) {
    const ac_edit *ed = &c->edits[i];
    if (ed->cond && ax_truth(ax_eval(ed->cond, env)) != 1) continue;
    bool unknown = false;
    char *value = ed->value ? render(ed->value, env, &unknown) : NULL;
    if (unknown) {
      /* a value that cannot be computed is not offered as a mechanical fix */
      free(value);
      continue;
    }
    const sm_flag *cur = sm_flag_get(m, ed->flag);
    size_t before = f->nedits;
    if (ed->op == AC_REMOVE) {
      if (cur) remove_flag(f, &cap, m, ed->flag);
    } else if (cur && ed->op == AC_SET && value) {
      /* setting a flag to the value it already has is not a fix */
      if (cur->nvalues == 1 && !strcmp(cur->values[0].text, value)) {
        free(value);
        continue;
      }
      if (cur->nvalues) {
        push_edit(f, &cap, m, cur->file, cur->values[0].range.start_byte,
                  cur->values[cur->nvalues - 1].range.end_byte, pd_xstrdup(value));
      } else {
        push_edit(f, &cap, m, cur->file, cur->range.end_byte, cur->range.end_byte,
                  pd_xasprintf(" %s", value));
      }
    } else if (!cur || (ed->op == AC_SET && !value)) {
      const sm_flag *anchor = anchor_for(m, ed, located);
      if (anchor && !cur) add_flag(f, &cap, m, anchor, ed->flag, value);
    }
    if (f->nedits > before) {
      if (sum.len) pd_buf_puts(&sum, zh ? "；" : "; ");
      const char *verb = ed->op == AC_REMOVE ? (zh ? "删除" : "remove")
                         : cur ? (zh ? "设置" : "set") : (zh ? "添加" : "add");
      pd_buf_printf(&sum, "%s `%s%s%s`", verb, ed->flag, value ? " " : "", value ? value : "");
    }
    free(value);
  }
  if (sum.len) {
    char *s = pd_buf_take(&sum);
    s[0] = (char)toupper((unsigned char)s[0]);
    free(f->fix);
    f->fix = s;
  }
  pd_buf_free(&sum);
}

/* ---- findings ---- */

static char *setting_text(const sm_model *m, const sm_flag *fl, const char *flag_name,
                          const char *lang) {
  bool zh = lang && !strcmp(lang, "zh");
  if (!fl) {
    if (!flag_name) return pd_xstrdup(zh ? "（脚本整体）" : "(the script as a whole)");
    return pd_xasprintf(zh ? "`%s`（未设置）" : "`%s` (not set)", flag_name);
  }
  pd_buf b = {0};
  pd_buf_printf(&b, "`%s", fl->name);
  for (size_t i = 0; i < fl->nvalues && i < 8; i++) pd_buf_printf(&b, " %s", fl->values[i].text);
  if (fl->nvalues > 8) pd_buf_puts(&b, " …");
  pd_buf_puts(&b, "`");
  const char *path = fl->file >= 0 && (size_t)fl->file < m->nfiles ? m->files[fl->file].path : "";
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  pd_buf_puts(&b, "（");
  if (fl->file != 0) pd_buf_printf(&b, "%s ", base);
  if (zh) pd_buf_printf(&b, "第 %u 行", fl->full.start_line + 1);
  else pd_buf_printf(&b, "line %u", fl->full.start_line + 1);
  if (fl->group) pd_buf_printf(&b, zh ? "，%s" : ", %s", fl->group);
  if (fl->conditional) pd_buf_puts(&b, zh ? "，条件分支" : ", conditional");
  pd_buf_puts(&b, "）");
  return pd_buf_take(&b);
}

static bool overridden_severity(const au_config *cfg, const char *id, int *sev) {
  bool found = false;
  for (size_t i = 0; i < cfg->noverrides; i++)
    if (cfg->overrides[i].rule && !strcmp(cfg->overrides[i].rule, id)) {
      *sev = cfg->overrides[i].severity;
      found = true;
    }
  return found;
}

typedef struct {
  au_finding *items;
  size_t n, cap;
} finding_list;

static void eval_rule(finding_list *out, const ac_rule *r, const sm_model *m, const au_facts *facts,
                      const ax_env *env, const au_config *cfg, const ab_baselines *bl) {
  const char *lang = cfg->lang ? cfg->lang : "en";
  int ov = 0;
  bool has_ov = overridden_severity(cfg, r->id, &ov);
  if (has_ov && ov < 0) return;
  if (r->skip && ax_truth(ax_eval(r->skip, env)) == 1) return;
  for (size_t ci = 0; ci < r->ncases; ci++) {
    const ac_case *c = &r->cases[ci];
    if (ax_truth(ax_eval(c->when, env)) != 1) continue;
    bool borderline = false;
    if (c->ratio) {
      ax_value rv = ax_eval(c->ratio, env);
      if (rv.kind != AX_NUM) continue;
      if (rv.num <= 1 - c->band) continue;
      borderline = rv.num <= 1 + c->band;
    }
    const sm_flag *loc = first_present(m, c->at, c->nat);
    const sm_var *var = NULL;
    if (!loc && c->at_env) {
      var = sm_var_get(m, c->at_env);
      if (var && (var->file < 0 || (size_t)var->file >= m->nfiles)) var = NULL;
    }
    if (!loc && !var) loc = first_present(m, r->at, r->nat);
    /* the flag the finding is about even when absent (for the Setting line) */
    const char *flag_name = c->nat ? c->at[0] : r->nat ? r->at[0] : NULL;
    bool noted = loc && loc->note;
    if (noted && r->note_skips) {
      if (r->each) continue;
      return;
    }

    au_finding *f = PD_PUSH(out->items, out->n, out->cap);
    memset(f, 0, sizeof *f);
    f->rule = pd_xstrdup(r->id);
    f->category = pd_xstrdup(r->category);
    int sev = c->severity >= 0 ? c->severity : (int)r->severity;
    if (has_ov) sev = ov;
    /* a flag set only in an if/case branch may not be passed at all: say so, at info */
    bool conditional = loc && loc->conditional;
    /* without a train command the arrays were only assumed to be passed: nothing is certain */
    bool no_train = !m->train_line_found;
    if (borderline || noted || conditional || no_train) sev = AU_INFO;
    f->severity = (au_severity)sev;
    f->borderline = borderline;
    f->title = pd_xstrdup(ac_tr(&r->title, lang));
    f->why = pd_xstrdup(ac_tr(&r->why, lang));
    f->fix = pd_xstrdup(ac_tr(&r->fix, lang));
    f->skip_if = pd_xstrdup(ac_tr(&r->skip_if, lang));
    f->cost = render(ac_tr(&c->cost, lang), env, NULL);
    f->flag = loc ? pd_xstrdup(loc->name) : flag_name ? pd_xstrdup(flag_name) : NULL;
    f->setting = setting_text(m, loc, flag_name, lang);
    if (loc) {
      f->file = loc->file;
      f->range = loc->full;
    } else if (var) {
      free(f->setting);
      f->setting = pd_xasprintf(lang[0] == 'z' ? "`%s=%s`（第 %u 行）" : "`%s=%s`（line %u）", var->name,
                                var->value, var->range.start_line + 1);
      f->file = var->file;
      f->range = var->range;
    } else if (r->anchor_source && m->source_file >= 0) {
      f->file = m->source_file;
      f->range = m->source_range;
    } else {
      f->file = m->train_line_found ? m->train_file : 0;
      f->range = m->train_line_found ? m->train_range : sm_range_at(m, 0, 0, 0);
      if (m->train_line_found) {
        /* point at the first line of the command, not the whole pipeline */
        f->range.end_line = f->range.start_line;
        f->range.end_col = f->range.start_col + 1;
        f->range.end_byte = f->range.start_byte + 1;
      }
    }
    size_t relcap = 0;
    if (noted) {
      au_related *rel = PD_PUSH(f->related, f->nrelated, relcap);
      rel->file = loc->note_file;
      rel->range = loc->note_range;
      rel->message = pd_xasprintf("NOTE: %s", loc->note);
      char *cost = pd_xasprintf(lang[0] == 'z' ? "%s（脚本 NOTE 说明了理由，降为 info：%s）"
                                               : "%s (downgraded to info: the script's NOTE gives a reason: %s)",
                                f->cost, loc->note);
      free(f->cost);
      f->cost = cost;
    }
    if (conditional) {
      char *cost = pd_xasprintf(lang[0] == 'z' ? "%s（该参数只在条件分支中设置：仅当该分支执行时成立，降为 info）"
                                               : "%s (the flag is set only in a conditional branch: applies when that branch runs; shown as info)",
                                f->cost);
      free(f->cost);
      f->cost = cost;
    }
    if (no_train) {
      char *cost = pd_xasprintf(lang[0] == 'z' ? "%s（未找到训练命令：按所有 *_ARGS 数组都被传入来审查，降为 info）"
                                               : "%s (no train command found: audited as if every *_ARGS array were passed; shown as info)",
                                f->cost);
      free(f->cost);
      f->cost = cost;
    }
    if (borderline) {
      char *cost = pd_xasprintf(lang[0] == 'z' ? "%s（处于估算误差带内：borderline）"
                                               : "%s (within the estimate's error band: borderline)",
                                f->cost);
      free(f->cost);
      f->cost = cost;
    }
    /* the model config's flags this finding rests on */
    if (m->source_file >= 0 && (!strcmp(r->category, "memory") || !strncmp(r->id, "R-C0", 4))) {
      const sm_flag *arch = sm_flag_get(m, "--num-experts");
      if (!arch) arch = sm_flag_get(m, "--num-layers");
      if (arch && arch->file != f->file) {
        au_related *rel = PD_PUSH(f->related, f->nrelated, relcap);
        rel->file = arch->file;
        rel->range = arch->full;
        rel->message = pd_xasprintf("model architecture: %s", arch->name);
      }
    }
    char *anchor = bl ? ab_anchor(bl, facts, f->flag, lang) : NULL;
    if (anchor) {
      char *cost = pd_xasprintf(lang[0] == 'z' ? "%s；%s" : "%s; %s", f->cost, anchor);
      free(f->cost);
      f->cost = cost;
      free(anchor);
    }
    build_edits(f, m, c, env, loc, lang);
    f->safe = c->safe && f->nedits > 0;
    f->preferred = f->nedits > 0;
    if (f->nedits) {
      f->fix_title = c->fix_title.en ? render(ac_tr(&c->fix_title, lang), env, NULL)
                                     : pd_xasprintf("%s: %s", r->id, f->title);
    }
    /* rules whose triggers are independent ("any of") report every case that holds */
    if (!r->each) return;
  }
}

static int severity_rank(const au_finding *f) { return (int)f->severity; }

static int cmp_findings(const void *a, const void *b) {
  const au_finding *x = a, *y = b;
  if (severity_rank(x) != severity_rank(y)) return severity_rank(y) - severity_rank(x);
  if (x->file != y->file) return x->file - y->file;
  if (x->range.start_line != y->range.start_line)
    return x->range.start_line < y->range.start_line ? -1 : 1;
  return strcmp(x->rule, y->rule);
}

struct au_rules {
  int refs; /* the loader's plus one per au_result using them */
  ac_catalog *cat;
  ab_baselines *bl;
};

au_rules *au_rules_load(const char *extra_rules, char ***errors, size_t *nerrors) {
  au_rules *rs = pd_xcalloc(1, sizeof *rs);
  rs->refs = 1;
  size_t cap = *nerrors; /* the caller's array may be full: grow from its length */
  rs->cat = ac_new();
  size_t blen = 0;
  char *builtin = ac_data_text("rules.json", &blen);
  if (builtin) ac_load(rs->cat, builtin, blen, "built-in rules", errors, nerrors, &cap);
  else *PD_PUSH(*errors, *nerrors, cap) = pd_xstrdup("built-in rule catalog not found");
  free(builtin);
  if (extra_rules) {
    size_t n = 0;
    char *user = pd_read_file(extra_rules, 16u << 20, &n);
    if (!user) {
      *PD_PUSH(*errors, *nerrors, cap) = pd_xasprintf("%s: cannot read rule file", extra_rules);
    } else {
      ac_load(rs->cat, user, n, extra_rules, errors, nerrors, &cap);
      free(user);
    }
  }
  rs->bl = ab_load();
  return rs;
}

const ab_baselines *au_rules_baselines(const au_rules *rs) { return rs ? rs->bl : NULL; }

void au_rules_free(au_rules *rs) {
  if (!rs || --rs->refs > 0) return;
  ab_free(rs->bl);
  ac_free(rs->cat);
  free(rs);
}

au_result *au_run(const char *path, const char *text, size_t len, const TSTree *tree,
                  const au_config *cfg) {
  static const au_config defaults = {0};
  if (!cfg) cfg = &defaults;
  sm_options opt = {0};
  opt.model_config_dir = cfg->model_config_dir;
  opt.gpu = cfg->gpu;
  opt.reader = cfg->reader;
  opt.workspace_root = cfg->workspace_root;
  opt.cache = cfg->cache;
  opt.resume = cfg->resume;
  au_result *r = pd_xcalloc(1, sizeof *r);
  r->model = sm_build(path, text, len, tree, &opt);
  r->facts = af_compute(r->model, cfg->gpu);

  au_rules *rules = (au_rules *)cfg->rules; /* only the reference count changes */
  if (rules) rules->refs++;
  else rules = au_rules_load(cfg->extra_rules, &r->errors, &r->nerrors);
  r->rules = rules;
  ax_env env = af_env(r->facts);
  finding_list out = {0};
  /* a shell file that passes no flag at all is not a launch script: nothing to say */
  bool launch = r->model->train_line_found || r->model->nflags > 0;
  for (size_t i = 0; launch && i < rules->cat->n; i++)
    eval_rule(&out, &rules->cat->rules[i], r->model, r->facts, &env, cfg, rules->bl);
  if (out.n) qsort(out.items, out.n, sizeof *out.items, cmp_findings);
  r->findings = out.items;
  r->nfindings = out.n;
  return r;
}

static void finding_free(au_finding *f) {
  free(f->rule);
  free(f->category);
  free(f->title);
  free(f->why);
  free(f->setting);
  free(f->cost);
  free(f->fix);
  free(f->skip_if);
  free(f->flag);
  free(f->fix_title);
  for (size_t i = 0; i < f->nrelated; i++) free(f->related[i].message);
  free(f->related);
  for (size_t i = 0; i < f->nedits; i++) free(f->edits[i].new_text);
  free(f->edits);
}

void au_result_free(au_result *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nfindings; i++) finding_free(&r->findings[i]);
  free(r->findings);
  for (size_t i = 0; i < r->nerrors; i++) free(r->errors[i]);
  free(r->errors);
  af_free(r->facts);
  if (r->model) sm_model_free(r->model);
  au_rules_free(r->rules);
  free(r);
}
