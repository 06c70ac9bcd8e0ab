// Few-rows GEMM: AVX2 dot products over weight rows, weight rows split between threads when there are many.
#include "heptapod/kernels/few_rows_gemm.h"

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

void few_rows_gemm_nt(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                      float* C, int ldc) {
  const bool parallel = static_cast<long>(N) * K >= (1L << 17);  // below ~512 KB of weights one thread streams them
#pragma omp parallel for schedule(static) if (parallel)
  for (int n = 0; n < N; ++n) {
    const float* b = B + static_cast<long>(n) * ldb;
    for (int m = 0; m < M; ++m) {
      float& c = C[static_cast<long>(m) * ldc + n];
      const float v = alpha * dot(A + static_cast<long>(m) * lda, b, K);
      c = beta == 0.0f ? v : v + beta * c;
    }
  }
}

void register_few_rows_gemm(KernelTable& t) {
  t.few_rows_gemm_nt = &few_rows_gemm_nt;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
