/* au_int: what the audit's files share about a loaded rule set (au_rules, defined in
 * engine.c) and nothing outside the audit layer uses. */
#ifndef PD_AUDIT_AU_INT_H
#define PD_AUDIT_AU_INT_H

#include "audit/audit.h"
#include "audit/baseline.h"
#include "audit/catalog.h"
#include "audit/messages.h"

/* Borrowed from the rule set; NULL for NULL. */
const ac_catalog *au_rules_catalog(const au_rules *rules);
const ab_baselines *au_rules_baselines(const au_rules *rules);
const au_messages *au_rules_messages(const au_rules *rules);

#endif
