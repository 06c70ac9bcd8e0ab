// BLAS dispatch. HEPTAPOD_BLAS_KIND: 1 = OpenBLAS, 2 = BLIS (both through CBLAS), 3 = oneDNN's sgemm for
// float with OpenBLAS for double. docs/blas.md has the measurements behind the default.
#include "heptapod/kernels/blas.h"

#include <cblas.h>
#include <omp.h>

#include <string>

#include "heptapod/kernels/few_rows_gemm.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/matmul_precision.h"

#if HEPTAPOD_BLAS_KIND == 2
#include <blis.h>
#elif HEPTAPOD_BLAS_KIND == 3
#include <dnnl.h>
#endif

namespace heptapod::kernels {

namespace {
#if HEPTAPOD_BLAS_KIND == 3
constexpr double kOneDnnMinWork = 64.0 * 64 * 64;  // M * N * K
constexpr int kSplitMinColumns = 256;

// C = alpha A B^T + beta C with each thread running oneDNN's sgemm alone on its own block of C's columns (and
// of B's rows). oneDNN 2.6 divides such products poorly between two threads. 3700 rows, measured on this
// machine (2 threads, GFLOP/s, its own split against this one): N 768, K 256: 205-234 against 380; N 2048,
// K 512: 318-346 against 370-407; N 256, K 1024: 253-256 against 304-315; N 256, K 256: equal; N 128: worse,
// hence the floor of 256 columns. The products with a transposed A or a plain B (backward) it divides well, and
// they stay with it.
void sgemm_nt_by_columns(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                         float* C, int ldc) {
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), threads = omp_get_num_threads();
    const int n0 = static_cast<int>(static_cast<long>(N) * t / threads) / 16 * 16;
    const int n1 = t + 1 == threads ? N : static_cast<int>(static_cast<long>(N) * (t + 1) / threads) / 16 * 16;
    if (n1 > n0)  // inside the parallel region oneDNN runs on the calling thread alone
      dnnl_sgemm('N', 'T', M, n1 - n0, K, alpha, A, lda, B + static_cast<long>(n0) * ldb, ldb, beta, C + n0, ldc);
  }
}
#endif
CBLAS_TRANSPOSE cblas_trans(Trans t) { return t == Trans::Yes ? CblasTrans : CblasNoTrans; }
}  // namespace

template <>
void gemm<float>(Trans ta, Trans tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                 int ldb, float beta, float* C, int ldc) {
  if (M == 0 || N == 0) return;
  if (M <= kFewRows && ta == Trans::No && tb == Trans::Yes && K > 0) {  // a decoding step's x W^T
    few_rows_gemm_nt(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
#if HEPTAPOD_BLAS_KIND == 3
  // oneDNN wins on large products but pays a fixed cost per call that dominates small ones (the per-head
  // attention products, called from inside parallel loops); those go to OpenBLAS.
  if (static_cast<double>(M) * N * K >= kOneDnnMinWork && !omp_in_parallel()) {
    prepare_onednn();  // caps oneDNN's ISA before its first use
    if (matmul_precision() == MatmulPrecision::bfloat16) {
      gemm_bf16_inputs(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
      return;
    }
    if (ta == Trans::No && tb == Trans::Yes && N >= kSplitMinColumns && omp_get_max_threads() > 1) {
      sgemm_nt_by_columns(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
      return;
    }
    dnnl_sgemm(ta == Trans::Yes ? 'T' : 'N', tb == Trans::Yes ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C,
               ldc);
    return;
  }
#endif
  cblas_sgemm(CblasRowMajor, cblas_trans(ta), cblas_trans(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void gemm<double>(Trans ta, Trans tb, int M, int N, int K, double alpha, const double* A, int lda,
                  const double* B, int ldb, double beta, double* C, int ldc) {
  if (M == 0 || N == 0) return;
  cblas_dgemm(CblasRowMajor, cblas_trans(ta), cblas_trans(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

#if HEPTAPOD_BLAS_KIND == 1 || HEPTAPOD_BLAS_KIND == 3
std::string blas_description() {
  std::string s = std::string(HEPTAPOD_BLAS_NAME);
#if HEPTAPOD_BLAS_KIND == 3
  const dnnl_version_t* v = dnnl_version();
  s.append(" ").append(std::to_string(v->major)).append(".").append(std::to_string(v->minor)).append(".");
  s.append(std::to_string(v->patch)).append(" (float); double via");  // (appends: GCC 12 misreads " " + string)
#endif
  return s + " OpenBLAS (" + openblas_get_config() + ", core " + openblas_get_corename() + ")";
}
void blas_set_threads(int n) { openblas_set_num_threads(n); }
#else
std::string blas_description() { return std::string(HEPTAPOD_BLAS_NAME) + " (" + bli_info_get_version_str() + ")"; }
void blas_set_threads(int n) { bli_thread_set_num_threads(n); }
#endif

}  // namespace heptapod::kernels
