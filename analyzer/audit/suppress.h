/* suppress: inline suppression comments. `# perf-doctor: disable=R-P04[,R-M12]` on the line of a
 * finding, or on the line above it, suppresses those rules' findings there;
 * `# perf-doctor: disable-file=R-P04` anywhere in a file suppresses them in the whole file (and
 * in the script: a model config's directive covers the findings in that config). A suppressed
 * finding stays in the result, marked, so reports can count and list it. */
#ifndef PD_AUDIT_SUPPRESS_H
#define PD_AUDIT_SUPPRESS_H

#include "audit/audit.h"

/* Marks the findings of r that a directive in the model's files suppresses. */
void as_apply(au_result *r);

#endif
