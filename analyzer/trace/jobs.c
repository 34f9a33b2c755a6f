#include "trace/jobs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

typedef struct {
  int world;
  int64_t b, e;
  const char *dir; /* the first member's file, for its folder */
} job;

typedef struct {
  tr_rank *const *ranks;
  size_t i;
} by_start;

/* Files that state their world size first (they anchor the jobs), then by start. */
static int start_cmp(const void *pa, const void *pb) {
  const by_start *a = pa, *b = pb;
  const tr_rank *x = a->ranks[a->i], *y = b->ranks[b->i];
  if ((x->world_size < 0) != (y->world_size < 0)) return x->world_size < 0 ? 1 : -1;
  if (x->t_begin != y->t_begin) return x->t_begin < y->t_begin ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Whether rank r may join job j: no other world size (an unstated one agrees with any),
 * overlapping span, its rank not yet taken. */
static bool fits(tr_rank *const *ranks, size_t n, const int *job_of, const job *j, int ji, const tr_rank *r) {
  if (j->world >= 0 && r->world_size >= 0 && j->world != r->world_size) return false;
  if (r->t_begin > j->e || r->t_end < j->b) return false;
  for (size_t k = 0; k < n; k++)
    if (job_of[k] == ji && ranks[k]->rank == r->rank) return false;
  return true;
}

static bool same_dir(const char *a, const char *b) {
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
  return na == nb && !strncmp(a, b, na);
}

size_t tr_jobs_split(tr_rank *const *ranks, size_t n, int *job_of) {
  by_start *o = pd_xmalloc((n + 1) * sizeof *o);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    job_of[i] = -1;
    if (!ranks[i]->err) o[m++] = (by_start){ranks, i};
  }
  qsort(o, m, sizeof *o, start_cmp);
  job *jobs = pd_xmalloc((m + 1) * sizeof *jobs);
  size_t nj = 0;
  for (size_t k = 0; k < m; k++) {
    const tr_rank *r = ranks[o[k].i];
    /* the first job it fits, one in its own folder preferred */
    size_t j = nj;
    for (size_t t = 0; t < nj; t++) {
      if (!fits(ranks, n, job_of, &jobs[t], (int)t, r)) continue;
      if (j == nj) j = t;
      if (same_dir(jobs[t].dir, r->file)) {
        j = t;
        break;
      }
    }
    if (j == nj) jobs[nj++] = (job){r->world_size, r->t_begin, r->t_end, r->file};
    if (r->t_end > jobs[j].e) jobs[j].e = r->t_end;
    if (jobs[j].world < 0) jobs[j].world = r->world_size;
    job_of[o[k].i] = (int)j;
  }
  free(jobs);
  free(o);
  return nj;
}
