// Bf16Weights and the bfloat16 rounding: to_bfloat16 against its naive twin and on the rounding cases
// (ties to even, overflow, NaN, inf, subnormals); every variant this machine runs (bf16_variants():
// vdpbf16ps, the FMA paths, scalar) against the inputs rounded to bfloat16 and multiplied in double; column
// ranges, rows independent of their batch-mates, the stored form and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/kernels/naive/naive.h"
#include "test_util.h"

namespace heptapod {
namespace {

using kernels::Bf16Weights;

float float_of(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t bf16(float f) {
  std::uint16_t b;
  kernels::to_bfloat16(&f, 1, &b);
  return b;
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16(float_of(0x3f808000)), 0x3f80);  // tie, even below
  EXPECT_EQ(bf16(float_of(0x3f818000)), 0x3f82);  // tie, odd below: up
  EXPECT_EQ(bf16(float_of(0x3f808001)), 0x3f81);  // just above the tie
  EXPECT_EQ(bf16(float_of(0x3f807fff)), 0x3f80);  // just below
  EXPECT_EQ(bf16(-0.0f), 0x8000);
  EXPECT_EQ(bf16(INFINITY), 0x7f80);
  EXPECT_EQ(bf16(-INFINITY), 0xff80);
  EXPECT_EQ(bf16(float_of(0x7f7fffff)), 0x7f80);  // the float maximum rounds to inf
  EXPECT_EQ(bf16(float_of(0x7f7f7fff)), 0x7f7f);  // the bfloat16 maximum
  EXPECT_EQ(bf16(float_of(0x00008000)), 0x0000);  // subnormal tie, even below
  EXPECT_EQ(bf16(float_of(0x00018000)), 0x0002);
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffffffffu, 0x7f80ffffu}) {
    const std::uint16_t b = bf16(float_of(nan));
    EXPECT_TRUE(std::isnan(kernels::from_bfloat16(b))) << std::hex << nan << " -> " << b;
    EXPECT_EQ(b & 0x8000, (nan >> 16) & 0x8000);
  }
  EXPECT_EQ(kernels::from_bfloat16(0x3fc0), 1.5f);
  EXPECT_EQ(kernels::from_bfloat16(0xc000), -2.0f);
}

TEST(BFloat16, MatchesTheNaiveRoundingOverManyBitPatterns) {
  // Every 4099th bit pattern plus the neighbourhood of every tie of a few exponents.
  std::vector<float> x;
  for (std::uint64_t b = 0; b < (1ull << 32); b += 4099) x.push_back(float_of(static_cast<std::uint32_t>(b)));
  for (std::uint32_t e : {0u, 1u, 126u, 127u, 200u, 254u})
    for (std::uint32_t m = 0; m < 64; ++m)
      for (int d = -1; d <= 1; ++d) x.push_back(float_of((e << 23) + (m << 16) + 0x8000u + d));
  std::vector<std::uint16_t> got(x.size());
  std::vector<float> want(x.size());
  kernels::to_bfloat16(x.data(), static_cast<long>(x.size()), got.data());
  kernels::naive::round_to_bfloat16(x.data(), static_cast<long>(x.size()), want.data());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float g = kernels::from_bfloat16(got[i]);
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(g)) << i;
    } else {
      ASSERT_EQ(std::memcmp(&g, &want[i], 4), 0) << std::hexfloat << x[i] << " -> " << g << ", want " << want[i];
    }
  }
}

// A random bfloat16 matrix and its bias.
struct Case {
  int out, in;
  std::vector<std::uint16_t> values;
  std::vector<float> bias;
  Case(int o, int i, unsigned seed) : out(o), in(i), values(static_cast<std::size_t>(o) * i), bias(o) {
    const auto w = test::uniform<float>(values.size(), seed);
    kernels::to_bfloat16(w.data(), static_cast<long>(w.size()), values.data());
    test::fill_uniform(bias, seed + 1);
  }
  std::vector<double> naive(const std::vector<float>& x, int rows, const float* b, bool relu) const {
    std::vector<double> y(static_cast<std::size_t>(rows) * out);
    kernels::naive::bf16_linear(values.data(), out, in, x.data(), rows, b, relu, y.data());
    return y;
  }
};

// Float sums of `in` products: within 1e-5 of the largest output (the rounding of up to ~2000 float additions
// of O(1) terms, the worst order included, is far below).
constexpr double kTolerance = 1e-5;

TEST(Bf16Weights, EveryVariantMatchesRoundedInputsMultipliedInDouble) {
  for (const auto& [out, in] : {std::pair{37, 19}, {130, 64}, {512, 512}, {100, 2049}, {1000, 97}}) {
    const Case c(out, in, out * 3 + in);
    const Bf16Weights w(c.values.data(), out, in);
    for (int rows : {1, 2, 3, 5, 6, 7, 13, 32, 37, 100, 200}) {
      const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * in, rows + 1);
      for (bool with_bias : {false, true})
        for (bool relu : {false, true}) {
          const float* b = with_bias ? c.bias.data() : nullptr;
          const auto want = c.naive(x, rows, b, relu);
          const std::string what = std::to_string(out) + "x" + std::to_string(in) + " rows=" + std::to_string(rows) +
                                   " bias=" + std::to_string(with_bias) + " relu=" + std::to_string(relu);
          std::vector<float> y(want.size(), -7.0f);
          w.forward(x.data(), rows, b, relu, y.data());
          EXPECT_LE(test::max_rel_error(y.data(), want.data(), y.size()), kTolerance) << "selected " << what;
          for (const auto& v : kernels::bf16_variants()) {
            std::fill(y.begin(), y.end(), -7.0f);
            v.run(w.panels(), x.data(), rows, 0, out, b, relu, y.data());
            EXPECT_LE(test::max_rel_error(y.data(), want.data(), y.size()), kTolerance) << v.name << " " << what;
          }
        }
    }
  }
}

TEST(Bf16Weights, ColumnRangesAreTheirPartOfTheWholeProduct) {
  const Case c(1000, 131, 3);
  const Bf16Weights w(c.values.data(), c.out, c.in);
  ASSERT_EQ(w.column_align(), 64);
  for (const auto& v : kernels::bf16_variants())
    for (int rows : {1, 5, 37}) {
      const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * c.in, rows + 40);
      std::vector<float> whole(static_cast<std::size_t>(rows) * c.out);
      v.run(w.panels(), x.data(), rows, 0, c.out, c.bias.data(), true, whole.data());
      for (const auto& [n0, n] : {std::pair{0, 1}, {64, 64}, {128, 65}, {192, 808}, {960, 40}, {512, 7}}) {
        std::vector<float> y(static_cast<std::size_t>(rows) * n, -7.0f);
        v.run(w.panels(), x.data(), rows, n0, n, c.bias.data(), true, y.data());
        for (int r = 0; r < rows; ++r)
          for (int j = 0; j < n; ++j)
            ASSERT_EQ(y[r * n + j], whole[static_cast<std::size_t>(r) * c.out + n0 + j])
                << v.name << " columns " << n0 << "+" << n << " row " << r << " column " << j;
      }
    }
}

TEST(Bf16Weights, ARowsOutputDependsOnNothingElse) {
  const Case c(700, 512, 11);
  const Bf16Weights w(c.values.data(), c.out, c.in);
  const int rows = 37;
  const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * c.in, 12, -2.0, 2.0);
  for (const auto& v : kernels::bf16_variants()) {
    std::vector<float> batch(static_cast<std::size_t>(rows) * c.out);
    v.run(w.panels(), x.data(), rows, 0, c.out, c.bias.data(), false, batch.data());
    for (int r : {0, 5, 36}) {
      std::vector<float> alone(c.out);
      v.run(w.panels(), x.data() + static_cast<std::size_t>(r) * c.in, 1, 0, c.out, c.bias.data(), false, alone.data());
      for (int o = 0; o < c.out; ++o) ASSERT_EQ(alone[o], batch[r * c.out + o]) << v.name << " row " << r;
    }
  }
}

TEST(Bf16Weights, StoredFormReadsBackAndLivesInStorage) {
  const Case c(130, 21, 5);
  kernels::PackedWeightsStorage storage(1 << 20);
  const Bf16Weights w(c.values.data(), c.out, c.in, &storage);
  EXPECT_GT(storage.used(), 0u);
  EXPECT_EQ(w.type(), kernels::ComputeType::BFloat16);
  EXPECT_GE(w.bytes(), c.values.size() * 2);
  std::vector<std::uint16_t> v(c.in);
  std::vector<float> row(c.in);
  for (int o = 0; o < c.out; ++o) {
    w.values(o, v.data());
    w.row(o, row.data());
    for (int i = 0; i < c.in; ++i) {
      ASSERT_EQ(v[i], c.values[o * c.in + i]);
      ASSERT_EQ(row[i], kernels::from_bfloat16(v[i]));
    }
  }
}

TEST(Bf16Weights, BadShapesAndRangesAreErrors) {
  const std::vector<std::uint16_t> values(64 * 4, 0x3f80);
  EXPECT_THROW(Bf16Weights(values.data(), 0, 4), Error);
  EXPECT_THROW(Bf16Weights(values.data(), 64, 0), Error);
  const Bf16Weights w(values.data(), 64, 4);
  std::vector<float> x(4, 1.0f), y(64);
  EXPECT_THROW(w.forward_columns(x.data(), 1, 32, 32, nullptr, false, y.data()), Error);
  EXPECT_THROW(w.forward_columns(x.data(), 1, 0, 65, nullptr, false, y.data()), Error);
  w.forward(x.data(), 1, nullptr, false, y.data());
  for (float v : y) EXPECT_EQ(v, 4.0f);
}

}  // namespace
}  // namespace heptapod
