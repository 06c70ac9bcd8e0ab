// Timing inference products of WeightMatrix types for the kernel benchmarks (low_precision_gemm,
// block_gemm): reproducible inputs, enough distinct copies of a matrix that its weights come from memory as in
// a decoding step, and ms per product over those copies, the output projection in the decoder's column blocks.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#include "heptapod/kernels/packed_weights.h"
#include "heptapod/kernels/weight_matrix.h"

namespace heptapod::bench {

// The decoder's column block of a wide output projection.
inline constexpr int kColumnBlock = 8192;

// (n) reproducible values in [-1, 1).
inline std::vector<float> uniform(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned long long s = seed * 6364136223846793005ull + 1;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<double>(s >> 11) / 4503599627370496.0 - 1.0);
  }
  return v;
}

// One weight type's copies of a matrix, in one huge-page storage.
struct Copies {
  std::unique_ptr<kernels::PackedWeightsStorage> storage;
  std::vector<std::unique_ptr<kernels::WeightMatrix>> matrices;
};

// `count` matrices of about bytes_each, each from make(storage).
template <typename Make>
Copies make_copies(int count, std::size_t bytes_each, Make&& make) {
  Copies c;
  c.storage = std::make_unique<kernels::PackedWeightsStorage>(count * (bytes_each + (1 << 16)));
  for (int i = 0; i < count; ++i) c.matrices.push_back(make(c.storage.get()));
  return c;
}

// x (rows, in) W^T for one matrix, in column blocks as the decoder's output projection runs.
inline void product(const kernels::WeightMatrix& w, const float* x, int rows, float* y) {
  for (int n0 = 0; n0 < w.out(); n0 += kColumnBlock) {
    const int n = std::min(kColumnBlock, w.out() - n0);
    w.forward_columns(x, rows, n0, n, nullptr, false, y + static_cast<std::size_t>(rows) * n0);
  }
}

// Milliseconds per product, cycling over the copies for about `seconds` after one warm-up pass.
inline double time_ms(const Copies& c, const float* x, int rows, float* y, double seconds) {
  using Clock = std::chrono::steady_clock;
  for (const auto& w : c.matrices) product(*w, x, rows, y);
  long calls = 0;
  const auto t0 = Clock::now();
  double elapsed = 0;
  do {
    for (const auto& w : c.matrices) product(*w, x, rows, y);
    calls += static_cast<long>(c.matrices.size());
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (elapsed < seconds);
  return 1e3 * elapsed / calls;
}

// The benchmarks' arguments: [seconds per case, default 0.25] [MB of weights per shape, default `mb`].
struct Arguments {
  double seconds, mb;
};
inline Arguments arguments(int argc, char** argv, double mb) {
  return {argc > 1 ? std::atof(argv[1]) : 0.25, argc > 2 ? std::atof(argv[2]) : mb};
}

}  // namespace heptapod::bench
