// Frozen low-precision products: each block of kDequantizedBlockRows rows is dequantized (rows shared by the
// threads) into a thread-local scratch, or read in place when it is one part's float32 rows, then multiplied by
// the BLAS GEMM.
#include "heptapod/kernels/dequantized_product.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/blas.h"

namespace heptapod::kernels {

namespace {

// Rows [o0, o0 + count) of the parts' stacked matrix: in place when they are all one part's float32 rows, else
// dequantized (or copied) into `scratch` (count, in).
const float* block_rows(std::span<const RowSource> parts, int in, int o0, int count, float* scratch) {
  int first = o0;
  std::size_t p = 0;
  while (first >= parts[p].rows) first -= parts[p++].rows;
  if (parts[p].values && first + count <= parts[p].rows) return parts[p].values + static_cast<std::size_t>(first) * in;
  float* out = scratch;
#pragma omp parallel for schedule(static) if (static_cast<long>(count) * in > 65536)
  for (int r = 0; r < count; ++r) {
    int o = o0 + r;
    std::size_t p = 0;
    while (o >= parts[p].rows) o -= parts[p++].rows;
    float* row = out + static_cast<std::size_t>(r) * in;
    if (parts[p].matrix) {
      parts[p].matrix->row(o, row);
    } else {
      const float* from = parts[p].values + static_cast<std::size_t>(o) * in;
      std::copy_n(from, in, row);
    }
  }
  return out;
}

int total_rows(std::span<const RowSource> parts) {
  int rows = 0;
  for (const RowSource& p : parts) {
    require((p.matrix != nullptr) != (p.values != nullptr) && p.rows > 0,
            "dequantized product: a part needs a matrix or float rows, and rows");
    rows += p.rows;
  }
  return rows;
}

std::vector<float>& block_scratch(int in) {
  thread_local std::vector<float> scratch;  // (kDequantizedBlockRows, in)
  scratch.resize(static_cast<std::size_t>(kDequantizedBlockRows) * in);
  return scratch;
}

}  // namespace

void dequantized_product(std::span<const RowSource> parts, int in, const float* x, int N, int n0, int n, float* y) {
  require(n0 >= 0 && n > 0 && n0 + n <= total_rows(parts), "dequantized product: bad column range");
  std::vector<float>& w = block_scratch(in);
  for (int c0 = 0; c0 < n; c0 += kDequantizedBlockRows) {
    const int rows = std::min(kDequantizedBlockRows, n - c0);
    const float* w_rows = block_rows(parts, in, n0 + c0, rows, w.data());  // (rows, in)
    gemm<float>(Trans::No, Trans::Yes, N, rows, in, 1.0f, x, in, w_rows, in, 0.0f, y + c0, n);
  }
}

void dequantized_transposed_product(std::span<const RowSource> parts, int in, const float* dy, int N, float* dx,
                                    bool accumulate) {
  const int out = total_rows(parts);
  std::vector<float>& w = block_scratch(in);
  for (int o0 = 0; o0 < out; o0 += kDequantizedBlockRows) {
    const int rows = std::min(kDequantizedBlockRows, out - o0);
    const float* w_rows = block_rows(parts, in, o0, rows, w.data());  // (rows, in)
    gemm<float>(Trans::No, Trans::No, N, in, rows, 1.0f, dy + o0, out, w_rows, in,
                accumulate || o0 > 0 ? 1.0f : 0.0f, dx, in);
  }
}

}  // namespace heptapod::kernels
