/* edits: the mechanical fixes of a finding (private to the audit layer). */
#ifndef PD_AUDIT_EDITS_H
#define PD_AUDIT_EDITS_H

#include "audit/audit.h"
#include "audit/catalog.h"
#include "audit/messages.h"

/* The first of flags[0..n) the script sets, or NULL. */
const sm_flag *au_first_present(const sm_model *m, char *const *flags, size_t n);
/* Adds to f the edits of case c that apply (values rendered in env; an edit whose value is
 * unknown is left out) and replaces f->fix with what they do. `located` is the flag the
 * finding points at (an anchor for added flags). */
void au_build_edits(au_finding *f, const sm_model *m, const ac_case *c, const ax_env *env,
                    const sm_flag *located, const char *lang, const au_messages *ms);

#endif
