/* au_int: what the audit's files share about a loaded rule set (au_rules, defined in
 * engine.c) and nothing outside the audit layer uses. */
#ifndef PD_AUDIT_AU_INT_H
#define PD_AUDIT_AU_INT_H

#include "audit/audit.h"
#include "audit/baseline.h"
#include "audit/catalog.h"
#include "audit/messages.h"

/* The curated flag notes (data/flag_notes.json), loaded with the rule set (flagdoc.c). */
typedef struct au_flag_notes au_flag_notes;
au_flag_notes *au_flag_notes_load(char ***errs, size_t *nerrs, size_t *cap);
void au_flag_notes_free(au_flag_notes *n);

/* Borrowed from the rule set; NULL for NULL. */
const ac_catalog *au_rules_catalog(const au_rules *rules);
const ab_baselines *au_rules_baselines(const au_rules *rules);
const au_flag_notes *au_rules_notes(const au_rules *rules);

/* The sentence a finding adds when it rests on a value known only as surely as cert (its flag:
 * why): "to verify: it rests on `--x`, which is set only in a branch ..."; NULL when the value
 * is the script's own (engine.c). Caller frees. */
char *au_cert_text(const au_result *r, sm_cert cert, const sm_flag *why, const char *lang);

#endif
