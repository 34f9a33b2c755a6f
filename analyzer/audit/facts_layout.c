/* facts_layout: the nearest valid sizes around an invalid parallel layout, for the fixes of the
 * layout rules (R-C01, R-C02, R-C05): for each of TP, PP and CP the nearest value below and above
 * the current one that Megatron would accept with the other two unchanged. The constraints are
 * the start-up validators': TP·PP·CP divides the actor GPUs (validate_args), TP divides the
 * attention heads and either divides the KV groups or is a multiple of them (TransformerConfig,
 * KV heads replicated when TP > groups), and PP divides the layers unless the stages are set by
 * hand. An unknown number constrains nothing; no candidate is looked for above 256. */
#include "audit/facts_int.h"

#define LAYOUT_MAX 256

typedef struct {
  double ga, tp, pp, cp, heads, groups, L;
  bool pp_by_hand; /* first/last-stage counts or a layout: L % PP does not apply */
} layout;

static bool divides(double d, double n) { return !isfinite(n) || (d >= 1 && fmod(n, d) == 0); }

static bool valid(const layout *l, double tp, double pp, double cp) {
  if (!divides(tp * pp * cp, l->ga)) return false;
  if (!divides(tp, l->heads)) return false;
  if (isfinite(l->groups) && !divides(tp, l->groups) && fmod(tp, l->groups) != 0) return false;
  return l->pp_by_hand || divides(pp, l->L);
}

/* The nearest value v != cur of one dimension (dim 0 TP, 1 PP, 2 CP) in direction step (-1, +1)
 * that makes the layout valid; NAN when there is none. */
static double nearest(const layout *l, int dim, int step) {
  double cur = dim == 0 ? l->tp : dim == 1 ? l->pp : l->cp;
  if (!isfinite(cur)) return NAN;
  for (double v = cur + step; v >= 1 && v <= LAYOUT_MAX; v += step) {
    bool ok = dim == 0 ? valid(l, v, l->pp, l->cp) : dim == 1 ? valid(l, l->tp, v, l->cp)
                                                              : valid(l, l->tp, l->pp, v);
    if (ok) return v;
  }
  return NAN;
}

void af_compute_layout_fixes(au_facts *f) {
  static const af_id ids[3][2] = {{AF_TP_LO, AF_TP_HI}, {AF_PP_LO, AF_PP_HI}, {AF_CP_LO, AF_CP_HI}};
  for (int dim = 0; dim < 3; dim++) {
    for (int k = 0; k < 2; k++) {
      af_begin(f);
      layout l = {af_input(f, AF_G_A), af_input(f, AF_TP), af_input(f, AF_PP), af_input(f, AF_CP),
                  af_input(f, AF_HEADS), af_input(f, AF_GROUPS), af_input(f, AF_L), false};
      l.pp_by_hand = af_flag_has(f, "--decoder-first-pipeline-num-layers") ||
                     af_flag_has(f, "--decoder-last-pipeline-num-layers") ||
                     af_flag_has(f, "--pipeline-model-parallel-layout");
      af_setu(f, ids[dim][k], nearest(&l, dim, k ? 1 : -1));
    }
  }
}
