#include "script/bashsym.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const TSLanguage *tree_sitter_bash(void);

/* Filled once by bs_init and read-only after that: a property of the linked grammar. */
static struct {
  uint8_t *kind; /* by symbol id */
  uint32_t nsym;
  TSFieldId field[BSF_COUNT];
} table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static const char *const kind_names[BS_KIND_COUNT] = {
    [BS_OTHER] = "",
#define BS_NAME_(id, name) [BS_##id] = name,
    BS_KINDS(BS_NAME_)
#undef BS_NAME_
};

static const char *const field_names[BSF_COUNT] = {
#define BS_NAME_(id, name) [BSF_##id] = name,
    BS_FIELDS(BS_NAME_)
#undef BS_NAME_
};

static void bs_init(void) {
  const TSLanguage *lang = tree_sitter_bash();
  table.nsym = ts_language_symbol_count(lang);
  table.kind = calloc(table.nsym ? table.nsym : 1, 1);
  if (!table.kind) abort();
  for (uint32_t s = 0; s < table.nsym; s++) {
    const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
    if (!name) continue;
    for (int k = 1; k < BS_KIND_COUNT; k++)
      if (!strcmp(name, kind_names[k])) {
        table.kind[s] = (uint8_t)k;
        break;
      }
  }
  /* ts_node_symbol reports ERROR as ts_builtin_sym_error (65535), outside the table. */
  for (int f = 0; f < BSF_COUNT; f++)
    table.field[f] =
        ts_language_field_id_for_name(lang, field_names[f], (uint32_t)strlen(field_names[f]));
}

bs_kind bs_kind_of(TSNode n) {
  pthread_once(&table_once, bs_init);
  TSSymbol s = ts_node_symbol(n);
  if (s < table.nsym) return (bs_kind)table.kind[s];
  return s == (TSSymbol)-1 ? BS_ERROR : BS_OTHER;
}

TSFieldId bs_field_id(bs_field f) {
  pthread_once(&table_once, bs_init);
  return table.field[f];
}

TSNode bs_child(TSNode n, bs_field f) {
  TSFieldId id = bs_field_id(f);
  if (!id) return (TSNode){{0, 0, 0, 0}, NULL, NULL}; /* ts_node_is_null: id == NULL */
  return ts_node_child_by_field_id(n, id);
}

bool bs_child_in(TSNode n, uint32_t i, bs_field f) {
  const char *name = ts_node_field_name_for_child(n, i);
  return name && !strcmp(name, field_names[f]);
}
