/* trace_kname: kernel names as a profiler user writes them, for every place a person reads one
 * (markdown tables, the comparison, the editor's previews); the JSON keeps the full names.
 *
 * Kineto writes a kernel's name as the compiler has it: mostly an already demangled C++
 * signature ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<…>
 * >(int, …)", up to a few thousand characters), sometimes an Itanium-mangled one ("_ZN2ck…",
 * HIP), often a plain vendor name ("Cijk_Alik_Bljk_…_MT128x128x32_…", "sm90_xmma_gemm_…",
 * "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"). The short form drops the return type, the
 * argument list and the namespaces, elides template arguments but keeps what says what the kernel
 * does (the functor, the op a lambda belongs to, the tile shape), and cuts long vendor names after
 * their last tile-shape part:
 *   elementwise_kernel<…MulFunctor<float>…>
 *   vectorized_elementwise_kernel<…direct_copy_kernel_cuda…>
 *   cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2   (cutlass::Kernel2<…> unwrapped)
 *   Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1…
 *   kernel_grouped_conv_fwd_xdl_cshuffle_v3<…GridwiseGemm_xdl_cshuffle_v3<…128, 16, 32, 64…>…>
 * A table's names are made unique together (tr_kname_table). Everything here is a pure function
 * of its arguments. */
#ifndef PD_TRACE_KNAME_H
#define PD_TRACE_KNAME_H

#include <stddef.h>

#include "base/alloc.h"

/* Characters (not bytes: "…" is one) a short name never exceeds, so that a markdown cell holding
 * one in backticks stays under 160. */
#define TR_KNAME_MAX 150

/* Levels of detail of tr_kname_short. */
enum {
  TR_KNAME_COMPACT = 0, /* the forms above */
  TR_KNAME_ARGS = 1     /* every template argument (namespaces dropped, lambdas as their owner and
                           parameter types), or the argument list when there is no template */
};

/* The demangled form of an Itanium-mangled name (`_Z…`): the qualified name with its template
 * arguments (types, integer, bool and enum literals, packs, substitutions, template parameters).
 * The function's parameter types are not decoded (a short name never shows them), nor are
 * expressions in template arguments, local names, function and array types: for those, and for
 * anything that is not a mangled name, NULL. Fresh string. */
char *tr_kname_demangle(const char *name);

/* The short form of a kernel name at a level of detail, at most TR_KNAME_MAX characters. A name
 * that is not a C++ signature (a memcpy row, unbalanced brackets) is only cut. Fresh string. */
char *tr_kname_short(const char *name, int level);

/* The short names of one table's rows, unique whenever the full names are: out[i] names names[i].
 * Rows whose compact forms coincide get the detailed form; those still alike get the part of the
 * full name where it differs from the others ("… LBSPPA1024_LBSPPB256…"), and any left alike a
 * number (" #2"), given in the order of the full names, so the result does not depend on the
 * rows' order. Fresh array of fresh strings; release with tr_kname_table_free. */
char **tr_kname_table(const char *const *names, size_t n);
void tr_kname_table_free(char **v, size_t n);

/* text cut to at most max characters at a boundary (after "<", "(", ", ", "_", ":" or a space),
 * with "…" and the brackets open there closed ("f<4, …>"); whole when it fits. Fresh string. */
char *tr_kname_cap(const char *text, size_t max);

/* Appends text as a markdown code span that is safe in a table cell: "|" escaped, line breaks as
 * spaces, and double backticks around a text that holds a backtick. */
void tr_kname_md_code(pd_buf *b, const char *text);

/* Characters of a UTF-8 string (bytes that do not continue a sequence). */
size_t tr_kname_chars(const char *s);

#endif
