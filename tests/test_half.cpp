// Half-precision cache storage (kernels/half.h) against independent references: every one of the 65536 half
// values decoded by the IEEE 754 formula, float-to-half rounding checked as "nearest, ties to even" against
// the neighbouring half values, the vector paths against the scalar ones, and the attention products against
// double loops. Also the running top-token list search keeps while it scores the vocabulary block by block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "heptapod/kernels/half.h"
#include "heptapod/kernels/logits_top.h"
#include "heptapod/kernels/naive/naive.h"

namespace heptapod {
namespace {

using kernels::half;

// The value of a binary16 bit pattern by the standard's formula.
double half_value(half h) {
  const int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v;
  if (e == 0) v = std::ldexp(m, -24);
  else if (e == 31) v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(1024 + m, e - 25);
  return sign ? -v : v;
}

TEST(Half, EveryHalfValueDecodesAndRoundTrips) {
  for (int i = 0; i < 65536; ++i) {
    const half h = static_cast<half>(i);
    const double want = half_value(h);
    const float got = kernels::from_half_scalar(h);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << i;
      EXPECT_TRUE(std::isnan(kernels::from_half_scalar(kernels::to_half_scalar(got)))) << i;
      continue;
    }
    ASSERT_EQ(static_cast<double>(got), want) << "bits " << i;
    ASSERT_EQ(std::signbit(got), (i & 0x8000) != 0) << "bits " << i;
    ASSERT_EQ(kernels::to_half_scalar(got), h) << "bits " << i;
  }
}

// Floats that exercise the rounding: random magnitudes over the whole half range and beyond, values exactly
// halfway between two halves (ties), the overflow threshold, subnormals and specials.
std::vector<float> awkward_floats() {
  std::vector<float> v = {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e9f, 6.1035156e-05f,
                          6.0975552e-05f, 5.9604645e-08f, 2.9802322e-08f, 2.98023259e-08f, 1e-12f, 1.0f, -1.0f,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (int i = 0; i < 30000; i += 7) {  // halfway between halves i and i + 1 (same sign, finite)
    const double a = half_value(static_cast<half>(i)), b = half_value(static_cast<half>(i + 1));
    if (std::isfinite(a) && std::isfinite(b)) v.push_back(static_cast<float>((a + b) / 2));
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> exponent(-30.0f, 17.0f), unit(-1.0f, 1.0f);
  for (int i = 0; i < 20000; ++i) v.push_back(unit(rng) * std::exp2(exponent(rng)));
  return v;
}

TEST(Half, FloatsRoundToTheNearestHalfTiesToEven) {
  for (const float x : awkward_floats()) {
    const half h = kernels::to_half_scalar(x);
    const double got = half_value(h), ax = std::fabs(static_cast<double>(x));
    if (ax >= 65520.0) {  // beyond the largest half plus half an ulp
      EXPECT_TRUE(std::isinf(got) && std::signbit(got) == std::signbit(x)) << x;
      continue;
    }
    // No other half is nearer; at a tie the even one wins.
    const double err = std::fabs(got - x);
    for (int step : {-1, 1}) {
      const int other = (h & 0x7fff) + step;
      if (other < 0 || other > 0x7bff) continue;
      const double o = half_value(static_cast<half>((h & 0x8000) | other));
      const double other_err = std::fabs(o - x);
      ASSERT_LE(err, other_err) << x;
      if (err == other_err) {
        ASSERT_EQ(h & 1, 0) << "tie not to even at " << x;
      }
    }
  }
}

TEST(Half, VectorConversionEqualsTheScalarOne) {
  std::vector<float> x = awkward_floats();
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  std::vector<half> y(x.size());
  kernels::to_half(x.data(), y.data(), static_cast<long>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(kernels::from_half_scalar(y[i])));
      continue;
    }
    ASSERT_EQ(y[i], kernels::to_half_scalar(x[i])) << "at " << i << ": " << x[i];
  }
}

TEST(Half, AttentionProductsEqualDoubleLoopsOnEveryLength) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (int n = 1; n <= 70; ++n) {
    std::vector<float> a(n), stored_f(n), out(n), want_out(n);
    std::vector<half> stored(n);
    for (int i = 0; i < n; ++i) {
      a[i] = u(rng);
      stored_f[i] = u(rng);
      out[i] = want_out[i] = u(rng);
    }
    kernels::to_half(stored_f.data(), stored.data(), n);
    double dot = 0;
    const float w = u(rng);
    for (int i = 0; i < n; ++i) {
      const double s = kernels::from_half_scalar(stored[i]);
      dot += a[i] * s;
      want_out[i] = static_cast<float>(want_out[i] + static_cast<double>(w) * s);
    }
    EXPECT_NEAR(kernels::dot(a.data(), stored.data(), n), dot, 1e-5 * n) << n;
    kernels::add_scaled(w, stored.data(), out.data(), n);
    for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], want_out[i], 1e-6) << n << " at " << i;
  }
}

// logits_top over a row cut into blocks keeps the same best tokens as one stable sort of the whole row, and
// each block's log-sum-exp equals the naive one.
TEST(TopTokens, BlockByBlockEqualsOneSortOfTheWholeRow) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> level(0, 40);  // few distinct values: many ties
  for (int V : {1, 7, 100, 1000}) {
    std::vector<float> x(V);
    for (float& v : x) v = static_cast<float>(level(rng)) * 0.25f;
    std::vector<int> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return x[a] > x[b]; });
    for (int top : {1, 3, 8}) {
      if (top > V) continue;
      for (int block : {1, 5, 64, V}) {
        std::vector<float> values(top);
        std::vector<int> ids(top);
        int count = 0;
        for (int v0 = 0; v0 < V; v0 += block) {
          const int n = std::min(block, V - v0);
          const float log_sum = kernels::logits_top(x.data() + v0, n, v0, top, count, values.data(), ids.data());
          const float m = *std::max_element(x.begin() + v0, x.begin() + v0 + n);
          ASSERT_NEAR(log_sum, m + std::log(kernels::naive::exp_sum(x.data() + v0, n, m, 1.0f, nullptr)), 1e-5);
        }
        ASSERT_EQ(count, top);
        for (int i = 0; i < top; ++i) {
          ASSERT_EQ(ids[i], order[i]) << "V=" << V << " top=" << top << " block=" << block << " rank " << i;
          ASSERT_EQ(values[i], x[order[i]]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace heptapod
