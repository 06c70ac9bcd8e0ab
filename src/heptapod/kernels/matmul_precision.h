// The precision of the float GEMM's large products (gemm<float> in kernels/blas.h): float32, or bfloat16
// inputs with float32 accumulation, the mixed precision PyTorch calls set_float32_matmul_precision("medium").
// With bfloat16, A and B are rounded to bfloat16 (nearest even) and multiplied by oneDNN's bfloat16 matmul
// (vdpbf16ps on CPUs with AVX512_BF16); C, and everything outside the products, stays float32. Training
// chooses it (`train --matmul-precision bfloat16`): about twice the products' speed on such CPUs.
#pragma once

#include <string>

#include "heptapod/kernels/blas.h"

namespace heptapod::kernels {

enum class MatmulPrecision { float32, bfloat16 };

const char* matmul_precision_name(MatmulPrecision p);

struct MatmulPrecisionChoice {
  MatmulPrecision precision = MatmulPrecision::float32;  // what runs from now on
  std::string reason;  // why bfloat16, asked for, is not what runs; empty when the request is met
};

// Sets the precision of the large products from now on, for the whole process. bfloat16 runs only with oneDNN
// as the float GEMM, the avx512 ISA selected (kernels/isa.h), a CPU with AVX512_BF16, and before oneDNN's
// first primitive (its ISA cap is raised to avx512_core_bf16 here); otherwise float32 stays and the answer
// says why. float32 is always met.
MatmulPrecisionChoice set_matmul_precision(MatmulPrecision p);
MatmulPrecision matmul_precision();

// C (M, N) = alpha op(A) op(B) + beta C, row-major as gemm<float>, with op(A) and op(B) rounded to bfloat16
// and float32 accumulation. Needs the bfloat16 precision in effect (set_matmul_precision); gemm<float> calls
// it for its large products then.
void gemm_bf16_inputs(Trans ta, Trans tb, int M, int N, int K, float alpha, const float* A, int lda,
                      const float* B, int ldb, float beta, float* C, int ldc);

}  // namespace heptapod::kernels
