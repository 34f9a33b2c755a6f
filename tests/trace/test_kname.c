/* Kernel names for people (trace/kname.h): the short forms of the names profiler users meet,
 * the demangler, cutting, markdown cells, and a table's names made unique; then the golden file
 * kname_golden.txt: the short name of every distinct GPU row name in the vendored traces, one
 * table per trace file, checked for stability, uniqueness within the table, length, and
 * independence from the rows' order. PD_UPDATE_GOLDEN=1 rewrites the golden file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "trace/messages.h"
#include "trace/event.h"
#include "trace/kname.h"
#include "trace/read.h"
#include "harness.h"

#define GOLDEN PD_TESTS_DIR "/trace/kname_golden.txt"

static void check_short(const char *full, const char *want) {
  char *s = tr_kname_short(full, TR_KNAME_COMPACT);
  CHECK_STR(s, want);
  free(s);
}

static void test_short_forms(void) {
  check_short("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor"
              "<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::"
              "TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::"
              "binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<"
              "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
              "MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
              "c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
              "elementwise_kernel<…MulFunctor<float>…>");
  check_short("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(at::"
              "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::"
              "BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::silu_kernel(at::"
              "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::"
              "BFloat16)#1}, std::array<char*, 2ul>)",
              "vectorized_elementwise_kernel<…silu_kernel…>");
  check_short("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
              "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
              "float>, unsigned int, float, 4>)",
              "reduce_kernel<…MeanOps<float, float, float, float>…>");
  /* short template arguments stay whole; the namespaces and the anonymous namespace go */
  check_short("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float const*, "
              "int, int, int, bool const*, int, bool)",
              "softmax_warp_forward<float, float, float, 10, true, false>");
  /* a cutlass wrapper gives way to the kernel it wraps; vendor GEMMs keep their tile */
  check_short("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(cutlass_80_tensorop_"
              "bf16_s16816gemm_bf16_256x128_64x3_tn_align2::Params)",
              "cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2");
  check_short("cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1", "cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1");
  check_short("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel_"
              "_5x_cublas",
              "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1…");
  check_short("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_"
              "CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB4_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA256_LBSPPB128",
              "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1…");
  /* NCCL kernels keep collective, op, dtype, algorithm and protocol; the argument list goes */
  check_short("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
  check_short("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "ncclKernel_AllReduce_RING_LL_Sum_float");
  /* not C++: only cut */
  check_short("Memcpy DtoD (Device -> Device)", "Memcpy DtoD (Device -> Device)");
  check_short("void f<(<>(int)", "void f<(<>(int)");
  /* a return type that is itself a template */
  check_short("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, "
              "true, false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStrided"
              "Batched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensor"
              "StridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched"
              "<float>, float>)",
              "gemvx::kernel<…>");
  char *s = tr_kname_short("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
                           "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::"
                           "AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::"
                           "Array<char*, 2>)",
                           TR_KNAME_ARGS);
  CHECK_STR(s, "vectorized_elementwise_kernel<4, AUnaryFunctor<float, float, float, MulFunctor<float>>, Array<char*, 2>>");
  free(s);
}

static void test_demangle(void) {
  char *d = tr_kname_demangle("_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIN3c1011FillFunctorIfEEEEvRNS_"
                              "18TensorIteratorBaseERKT_EUliE_EEviT1_");
  CHECK(d == NULL); /* a local (lambda) name inside the template arguments: not read, so left alone */
  free(d);
  d = tr_kname_demangle("_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedINS1_9GemmShapeILi128ELi128ELi8E"
                        "EEEELb0EEEEEvNT_6ParamsE");
  CHECK_STR(d, "cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<cutlass::gemm::"
               "GemmShape<128, 128, 8>>, false>>");
  free(d);
  d = tr_kname_demangle("_ZN2ck16tensor_operation6device12_GLOBAL__N_16kernelINS_8SequenceIJLi8ELi16ELi1EEEELNS1_4SpecE7ES5_EEvv");
  CHECK_STR(d, "ck::tensor_operation::device::(anonymous namespace)::kernel<ck::Sequence<8, 16, 1>, "
               "(ck::tensor_operation::device::Spec)7, ck::Sequence<8, 16, 1>>");
  free(d);
  d = tr_kname_demangle("_Z11matmul_tileIfLj5ELm3ELb1EEvPKT_");
  CHECK_STR(d, "matmul_tile<float, 5u, 3ul, true>");
  free(d);
  CHECK(tr_kname_demangle("_ZN3fooIiE") == NULL); /* cut short */
  CHECK(tr_kname_demangle("_ZN3fooIS5_EEv") == NULL); /* a substitution that does not exist */
  CHECK(tr_kname_demangle("volta_sgemm_128x64_nn") == NULL);
  {
    char *sh = tr_kname_short("_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedINS1_9GemmShapeILi128ELi128"
                              "ELi8EEEEELb0EEEEEvNT_6ParamsE",
                              TR_KNAME_COMPACT);
    CHECK_STR(sh, "cutlass::Kernel<…Gemm<…>…GemmShape<128, 128, 8>…>");
    free(sh);
  }
}

static void test_cut_and_cells(void) {
  char *s = tr_kname_cap("f<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1>>", 24);
  CHECK(tr_kname_chars(s) <= 24);
  CHECK(!strncmp(s, "f<4, ", 5));
  CHECK(strstr(s, "…") && s[strlen(s) - 1] == '>');
  free(s);
  s = tr_kname_cap("short", 24);
  CHECK_STR(s, "short");
  free(s);
  CHECK_INT(tr_kname_chars("a…b"), 3);
  pd_buf b = {0};
  tr_kname_md_code(&b, "a|b\nc");
  CHECK_STR(b.data, "`a\\|b c`");
  pd_buf_free(&b);
  tr_kname_md_code(&b, "x`y");
  CHECK_STR(b.data, "`` x`y ``");
  pd_buf_free(&b);
}

static void test_table(void) {
  const char *names[] = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, float, float, at::native::"
      "binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::BUnaryFunctor<float, float, "
      "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::"
      "binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::AUnaryFunctor<float, float, "
      "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
      "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTLA0_"
      "DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB256_LBSPPM0",
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTLA0_"
      "DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_LBSPPA512_LBSPPB512_LBSPPM0",
  };
  size_t n = sizeof names / sizeof *names;
  char **t = tr_kname_table(names, n);
  CHECK_STR(t[2], "vectorized_elementwise_kernel<…FillFunctor<float>…>"); /* alone: compact */
  CHECK_STR(t[0], "vectorized_elementwise_kernel<4, BUnaryFunctor<float, float, float, MulFunctor<float>>, Array<char*, 2>>");
  CHECK_STR(t[3], "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1… LBSPPA1024_LBSPPB256_LBSPPM0");
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) CHECK(strcmp(t[i], t[j]) != 0);
  /* the same names in another order get the same short names */
  const char *rev[5];
  for (size_t i = 0; i < n; i++) rev[i] = names[n - 1 - i];
  char **r = tr_kname_table(rev, n);
  for (size_t i = 0; i < n; i++) CHECK_STR(r[n - 1 - i], t[i]);
  tr_kname_table_free(r, n);
  tr_kname_table_free(t, n);
  /* names alike to the end of what is shown are numbered in the order of the full names */
  const char *same[] = {"void ns_b::k<int>(int)", "void ns_a::k<int>(int)"};
  t = tr_kname_table(same, 2);
  CHECK(strcmp(t[0], t[1]) != 0);
  tr_kname_table_free(t, 2);
}

/* ---- the golden file ---- */

typedef struct {
  char **v;
  size_t n, cap;
} names;

static const char *const TRACES[] = {
    "tracelens/h100_bert.json.gz",          "tracelens/mi300_bert.json.gz",
    "tracelens/h100_qwen.json.gz",          "tracelens/torch_compile.json.gz",
    "tracelens/mi300_resnet_rank0.json.gz", "hta/hta-trace-filter-2rank/sampled_rank-0.json.gz",
    "hta/hta-trace-filter-2rank/sampled_rank-1.json.gz", "hta/hta-nccl-parser-config/nccl_data.json.gz",
    "hta/hta-trace-diff-control/control.json.gz", "hta/hta-trace-diff-test/test.json.gz",
};

static void on_event(void *ctx, const tr_event *ev, uint64_t off) {
  (void)off;
  static const char *const gpu[] = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"};
  bool is_gpu = false;
  for (size_t i = 0; i < sizeof gpu / sizeof *gpu && !is_gpu; i++) is_gpu = tr_slice_eq(&ev->cat, gpu[i]);
  if (!is_gpu || !ev->name.p) return;
  names *l = ctx;
  char *s = pd_xmalloc(ev->name.n + 1);
  tr_slice_decode(&ev->name, s);
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i], s)) {
      free(s);
      return;
    }
  *PD_PUSH(l->v, l->n, l->cap) = s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One trace's section of the golden file. */
static void golden_section(pd_buf *out, const char *rel) {
  char *path = pd_xasprintf("%s/fixtures/traces/%s", PD_TESTS_DIR, rel), *err = NULL;
  names l = {0};
  tr_read_sink sink = {.event = on_event, .ctx = &l};
  tr_read_stats st;
  CHECK(tr_read_file(path, &sink, &st, TR_EN, &err));
  free(err);
  qsort(l.v, l.n, sizeof *l.v, cmp_str);
  char **t = tr_kname_table((const char *const *)l.v, l.n);
  pd_buf_printf(out, "## %s (%zu)\n", rel, l.n);
  for (size_t i = 0; i < l.n; i++) {
    pd_buf_printf(out, "%016llx\t%s\n", (unsigned long long)pd_hash_str(l.v[i]), t[i]);
    CHECK(tr_kname_chars(t[i]) <= TR_KNAME_MAX);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(t[i], t[j])) {
        fprintf(stderr, "%s: two kernels shown as %s:\n  %s\n  %s\n", rel, t[i], l.v[j], l.v[i]);
        CHECK(!"short names unique within a table");
      }
  }
  /* reversed, the table is the same */
  char **rev = pd_xmalloc((l.n ? l.n : 1) * sizeof *rev);
  for (size_t i = 0; i < l.n; i++) rev[i] = l.v[l.n - 1 - i];
  char **r = tr_kname_table((const char *const *)rev, l.n);
  for (size_t i = 0; i < l.n; i++) CHECK(!strcmp(r[l.n - 1 - i], t[i]));
  tr_kname_table_free(r, l.n);
  free(rev);
  tr_kname_table_free(t, l.n);
  for (size_t i = 0; i < l.n; i++) free(l.v[i]);
  free(l.v);
  free(path);
}

static void test_golden(void) {
  pd_buf got = {0};
  pd_buf_puts(&got, "# Short kernel names (analyzer/trace/kname.h) of every distinct GPU row name in the vendored traces:\n"
                    "# one table per trace file, rows in the order of the full names. Columns: FNV-1a of the full name,\n"
                    "# the short name. Checked by tests/trace/test_kname.c; PD_UPDATE_GOLDEN=1 build/tests/trace_kname rewrites it.\n");
  for (size_t i = 0; i < sizeof TRACES / sizeof *TRACES; i++) golden_section(&got, TRACES[i]);
  if (getenv("PD_UPDATE_GOLDEN")) {
    FILE *f = fopen(GOLDEN, "w");
    CHECK(f != NULL);
    if (f) {
      fputs(got.data, f);
      fclose(f);
    }
    printf("wrote %s\n", GOLDEN);
  } else {
    FILE *f = fopen(GOLDEN, "r");
    CHECK(f != NULL);
    pd_buf want = {0};
    char line[4096];
    while (f && fgets(line, sizeof line, f)) pd_buf_puts(&want, line);
    if (f) fclose(f);
    bool same = want.data && !strcmp(want.data, got.data);
    if (!same) { /* the first line that differs */
      const char *a = got.data, *b = want.data ? want.data : "";
      while (*a && *a == *b) a++, b++;
      while (a > got.data && a[-1] != '\n') a--, b--;
      fprintf(stderr, "kname golden differs:\n  got  %.*s\n  want %.*s\n", (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    }
    CHECK(same);
    pd_buf_free(&want);
  }
  pd_buf_free(&got);
}

int main(void) {
  test_short_forms();
  test_demangle();
  test_cut_and_cells();
  test_table();
  test_golden();
  return pd_test_exit("trace_kname");
}
