// GEMM through the BLAS chosen at build time (see docs/blas.md), for float and double.
// C(M,N) = alpha * op(A) op(B) + beta * C, row-major, with leading dimensions so that a head's column
// block of a (N, C) activation can be passed without copying.
#pragma once

#include <string>

namespace heptapod::kernels {

enum class Trans { No, Yes };

template <typename T>
void gemm(Trans ta, Trans tb, int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta,
          T* C, int ldc);

// "openblas-openmp 0.3.21 (Zen)" or similar.
std::string blas_description();
void blas_set_threads(int n);

}  // namespace heptapod::kernels
