// Serial products of small blocks, for attention's per-(sentence, head) products: called from inside a
// parallel loop, where a BLAS call pays fixed costs (buffers, packing) comparable to the work itself.
#pragma once

#include "heptapod/kernels/blas.h"

namespace heptapod::kernels {

// Whether a block product replaces C or adds to it. Adding continues each element's running sum in the same
// order (C's value, then the terms of K in turn), so that a product split along K into consecutive parts added
// one after another makes exactly the bytes of the whole product.
enum class BlockOutput { Assign, Accumulate };

// C (M, N), leading dimension ldc, assigned (or accumulated) = op(A) op(B); op(A) is (M, K), op(B) is (K, N), stored as
// gemm() stores them (row-major, Trans::Yes meaning the stored matrix is the transpose). Transposed operands
// are copied into per-thread buffers first, so the product itself always streams rows of B: for float, a
// register tile per step of K: 6 x 16 with AVX2, 12 x 32 with AVX-512.
template <typename T>
void block_gemm(Trans ta, Trans tb, int M, int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc,
                BlockOutput out = BlockOutput::Assign);

}  // namespace heptapod::kernels
