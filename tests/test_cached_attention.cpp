// The decoder's cached attention kernel against double loops: one query row over scattered cached positions,
// every head, float and half storage, head sizes on and off the vector width, every short length. Head sizes
// that are multiples of 16 with rows a multiple of 64 wide take the AVX-512 path where the build has it (rows of
// 256 columns and more in blocks of 256, the rest in blocks of 64: H=5, D=64 has both).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "heptapod/kernels/cached_attention.h"

namespace heptapod {
namespace {

float stored_value(float x) { return x; }
float stored_value(kernels::half x) { return kernels::from_half_scalar(x); }

template <typename E>
void check_against_double_loops() {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  for (int H : {1, 3, 4, 5, 8})
    for (int D : {4, 8, 16, 24, 64, 72})
      for (int count : {1, 2, 3, 4, 5, 7, 8, 13, 37}) {
        const int C = H * D, slots = count + 5;
        std::vector<float> q(C), raw(static_cast<std::size_t>(2) * slots * C);
        for (float& x : q) x = u(rng);
        for (float& x : raw) x = u(rng);
        std::vector<E> keys(static_cast<std::size_t>(slots) * C), values(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
          if constexpr (std::is_same_v<E, float>) {
            keys[i] = raw[i];
            values[i] = raw[keys.size() + i];
          } else {
            keys[i] = kernels::to_half_scalar(raw[i]);
            values[i] = kernels::to_half_scalar(raw[keys.size() + i]);
          }
        }
        // Positions live in shuffled slots, as a beam's history does.
        std::vector<int> slot(slots);
        std::iota(slot.begin(), slot.end(), 0);
        std::shuffle(slot.begin(), slot.end(), rng);
        std::vector<long> offsets(count);
        for (int j = 0; j < count; ++j) offsets[j] = static_cast<long>(slot[j]) * C;

        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        const int stride = count + 3;
        std::vector<float> scores(static_cast<std::size_t>(H) * stride, -9.0f), out(C, -9.0f);
        kernels::attend_cached(q.data(), keys.data(), values.data(), offsets.data(), count, H, H, D, scale,
                               scores.data(), stride, out.data());
        const std::string what = "H=" + std::to_string(H) + " D=" + std::to_string(D) + " count=" + std::to_string(count);
        for (int h = 0; h < H; ++h) {
          std::vector<double> p(count);
          for (int j = 0; j < count; ++j) {
            double s = 0;
            for (int d = 0; d < D; ++d) s += static_cast<double>(q[h * D + d]) * stored_value(keys[offsets[j] + h * D + d]);
            p[j] = s * scale;
          }
          const double m = *std::max_element(p.begin(), p.end());
          double z = 0;
          for (double& x : p) z += (x = std::exp(x - m));
          for (int j = 0; j < count; ++j) {
            p[j] /= z;
            ASSERT_NEAR(scores[h * stride + j], p[j], 1e-5) << what << " head " << h << " score " << j;
          }
          for (int d = 0; d < D; ++d) {
            double o = 0;
            for (int j = 0; j < count; ++j) o += p[j] * stored_value(values[offsets[j] + h * D + d]);
            ASSERT_NEAR(out[h * D + d], o, 1e-5) << what << " head " << h << " column " << d;
          }
        }
      }
}

TEST(CachedAttention, FloatCacheMatchesDoubleLoops) { check_against_double_loops<float>(); }
TEST(CachedAttention, HalfCacheMatchesDoubleLoops) { check_against_double_loops<kernels::half>(); }

}  // namespace
}  // namespace heptapod
