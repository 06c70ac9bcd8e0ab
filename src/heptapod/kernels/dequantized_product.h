// Products with a frozen weight matrix held in low precision (LoRA training over a quantized base, as QLoRA
// computes): float32 products with its dequantized rows, made a block of rows at a time into scratch, so that
// the float32 matrix never exists whole. The matrix's rows may come from several parts in turn (a stacked
// q|k|v), each held in low precision (WeightMatrix::row dequantizes) or as float32 rows. Forward and backward
// read the same dequantized values, so the backward is the exact transpose of the forward.
#pragma once

#include <span>

#include "heptapod/kernels/weight_matrix.h"

namespace heptapod::kernels {

// `rows` rows of a frozen matrix: those of `matrix` (low precision), or else float32 `values` (rows, in).
struct RowSource {
  const WeightMatrix* matrix = nullptr;
  const float* values = nullptr;
  int rows = 0;
};

// Rows per dequantized block (4 MB of scratch at d_model 1024): products of 1024 columns, or of depth 1024
// backward, keep the GEMM near its best, where 256 cost it a third or more on this machine's two threads
// (kernels/blas.cpp: oneDNN at depth 256 and 768 columns, 205-234 GFLOP/s against 370-407 at depth 512).
inline constexpr int kDequantizedBlockRows = 1024;

// Columns [n0, n0 + n) of x W^T: x (N, in), y (N, n) assigned; W (sum of the parts' rows, in).
void dequantized_product(std::span<const RowSource> parts, int in, const float* x, int N, int n0, int n, float* y);

// dx (N, in) = dy W, or dx += dy W when `accumulate`: dy (N, out), out the parts' rows.
void dequantized_transposed_product(std::span<const RowSource> parts, int in, const float* dy, int N, float* dx,
                                    bool accumulate);

}  // namespace heptapod::kernels
