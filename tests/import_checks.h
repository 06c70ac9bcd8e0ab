// Checks the tests of converted checkpoints share (test_import*.cpp): a reference's search outputs read back
// from their padded tensor, and every parameter's gradient against the reference's.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/transformer.h"
#include "test_util.h"

namespace heptapod::test {

// Row i of a (B, L) tensor padded with -1, cut to its length (the tensor "<name>_len", (B)).
inline std::vector<std::vector<int>> length_rows(const SafetensorsFile& f, const std::string& name) {
  const std::vector<int> all = f.ints(name), len = f.ints(name + "_len");
  const std::size_t L = all.size() / len.size();
  std::vector<std::vector<int>> out;
  for (std::size_t i = 0; i < len.size(); ++i) out.emplace_back(all.begin() + i * L, all.begin() + i * L + len[i]);
  return out;
}

// Every parameter's gradient in `p` against `want` (the model's layout): each tensor within 1e-4, relative to
// its own largest value or, at the least, 1e-3 of the largest gradient of all.
inline void expect_gradients(const ParameterStore<float>& p, const std::vector<float>& want, const std::string& what) {
  double scale = 0;
  for (float g : want) scale = std::max(scale, static_cast<double>(std::abs(g)));
  for (std::size_t i = 0; i < p.specs().size(); ++i) {
    const std::size_t off = p.offset(i), n = static_cast<std::size_t>(p.specs()[i].numel());
    EXPECT_LT(max_rel_error(p.grads() + off, want.data() + off, n, 1e-3 * scale), 1e-4)
        << what << " gradient of " << p.specs()[i].name;
  }
}

}  // namespace heptapod::test
