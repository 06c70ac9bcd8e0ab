// GEMM for a handful of rows against a weight matrix, C(M,N) = alpha A(M,K) B(N,K)^T + beta C with M small:
// the shape of every product in a batch-1 decoding step. Each row of B is read once and dotted with all M rows
// of A (kept in L1), so the product streams the weights at memory speed, without the packing and thread
// start-up a general BLAS pays per call.
#pragma once

namespace heptapod::kernels {

inline constexpr int kFewRows = 4;  // at most this many rows of A

void few_rows_gemm_nt(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                      float* C, int ldc);

}  // namespace heptapod::kernels
