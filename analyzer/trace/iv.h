/* trace_iv: sets of time intervals (ns or µs, the caller's choice) and the few set operations
 * the trace analyses need: merge, union, intersection, difference, measure within a window,
 * and HTA's exclusive overlap sweep.
 *
 * A tr_ivs is "merged" when sorted by start with no two intervals overlapping or touching;
 * every operation below except tr_ivs_push requires merged inputs and yields merged output. */
#ifndef PD_TRACE_IV_H
#define PD_TRACE_IV_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int64_t b, e;
} tr_iv;

/* Zero-initialise; release with tr_ivs_free. */
typedef struct {
  tr_iv *v;
  size_t n, cap;
} tr_ivs;

void tr_ivs_push(tr_ivs *s, int64_t b, int64_t e);
void tr_ivs_free(tr_ivs *s);
/* Sorts by start and merges in place with HTA's rule: a new group starts when an interval
 * starts after the running maximum of all previous ends; a group is (min start, max end).
 * Touching intervals merge. Negative-length input (HTA's rounding can make them) is kept as
 * HTA keeps it. */
void tr_ivs_merge(tr_ivs *s);
/* Sum of (e - b). */
int64_t tr_ivs_total(const tr_ivs *s);
/* Merges gaps shorter than or equal to `gap` between consecutive intervals (merged input). */
void tr_ivs_bridge(tr_ivs *s, int64_t gap);
/* out := a ∪ b, a ∩ b, a \ b. `out` must be empty and distinct from the inputs. */
void tr_ivs_union(const tr_ivs *a, const tr_ivs *b, tr_ivs *out);
void tr_ivs_intersect(const tr_ivs *a, const tr_ivs *b, tr_ivs *out);
void tr_ivs_subtract(const tr_ivs *a, const tr_ivs *b, tr_ivs *out);
/* Length of s ∩ [b, e). */
int64_t tr_ivs_len_in(const tr_ivs *s, int64_t b, int64_t e);

/* HTA's cumulative sweep over up to 3 merged sets with bit values 1, 2, 4: time[m] receives
 * the time during which the running sum equals m (m = 1..7); time[0] is unused. */
void tr_ivs_sweep(const tr_ivs *const *sets, int nsets, int64_t time[8]);

#endif
