// Shared helpers for the tests: error measures and fixture access.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/batch.h"

namespace heptapod::test {

inline std::string fixture(const std::string& name) { return std::string(HEPTAPOD_FIXTURES) + "/" + name; }

// max |a - b| / max(max |b|, floor): one relative error for a whole tensor.
template <typename A, typename B>
double max_rel_error(const A* a, const B* b, std::size_t n, double floor = 1e-30) {
  double diff = 0, scale = floor;
  for (std::size_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return diff / scale;
}

inline Batch fixture_batch(const SafetensorsFile& f) {
  Batch b;
  const TensorEntry& src = f.at("batch/src");
  const TensorEntry& tgt = f.at("batch/tgt_in");
  b.B = static_cast<int>(src.shape[0]);
  b.S = static_cast<int>(src.shape[1]);
  b.T = static_cast<int>(tgt.shape[1]);
  b.src = f.ints("batch/src");
  b.src_len = f.ints("batch/src_len");
  b.tgt_in = f.ints("batch/tgt_in");
  b.tgt_out = f.ints("batch/tgt_out");
  b.tgt_len = f.ints("batch/tgt_len");
  return b;
}

// A fixture's expected logits (B*T, V) with the padding positions zeroed: the model computes only real
// target positions and returns zeros for the rest.
inline std::vector<float> expected_logits(const SafetensorsFile& f, const Batch& b) {
  std::vector<float> expect = f.floats<float>("expect/logits");
  const std::size_t V = expect.size() / (static_cast<std::size_t>(b.B) * b.T);
  for (int i = 0; i < b.B; ++i)
    std::fill(expect.begin() + (static_cast<std::size_t>(i) * b.T + b.tgt_len[i]) * V,
              expect.begin() + static_cast<std::size_t>(i + 1) * b.T * V, 0.0f);
  return expect;
}

// Fills v with reproducible values in [lo, hi).
template <typename T>
void fill_uniform(std::vector<T>& v, unsigned seed, double lo = -1.0, double hi = 1.0) {
  unsigned long long s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<T>(lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0);
  }
}

}  // namespace heptapod::test
