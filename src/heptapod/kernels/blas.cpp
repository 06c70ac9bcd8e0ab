// BLAS dispatch. HEPTAPOD_BLAS_KIND: 1 = OpenBLAS, 2 = BLIS (both expose the CBLAS interface).
#include "heptapod/kernels/blas.h"

#include <cblas.h>

#include <string>

#if HEPTAPOD_BLAS_KIND == 2
#include <blis.h>
#endif

namespace heptapod::kernels {

namespace {
CBLAS_TRANSPOSE cblas_trans(Trans t) { return t == Trans::Yes ? CblasTrans : CblasNoTrans; }
}  // namespace

template <>
void gemm<float>(Trans ta, Trans tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                 int ldb, float beta, float* C, int ldc) {
  if (M == 0 || N == 0) return;
  cblas_sgemm(CblasRowMajor, cblas_trans(ta), cblas_trans(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void gemm<double>(Trans ta, Trans tb, int M, int N, int K, double alpha, const double* A, int lda,
                  const double* B, int ldb, double beta, double* C, int ldc) {
  if (M == 0 || N == 0) return;
  cblas_dgemm(CblasRowMajor, cblas_trans(ta), cblas_trans(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

#if HEPTAPOD_BLAS_KIND == 1
std::string blas_description() {
  return std::string(HEPTAPOD_BLAS_NAME) + " (" + openblas_get_config() + ", core " + openblas_get_corename() +
         ")";
}
void blas_set_threads(int n) { openblas_set_num_threads(n); }
#else
std::string blas_description() { return std::string(HEPTAPOD_BLAS_NAME) + " (" + bli_info_get_version_str() + ")"; }
void blas_set_threads(int n) { bli_thread_set_num_threads(n); }
#endif

}  // namespace heptapod::kernels
