// Int8Weights and quantize_rows_int8 against the naive twin, bit for bit: every variant this machine runs
// (int8_variants(): VNNI, the int16-widening paths, scalar), odd shapes, column ranges, extreme values, rows
// whose outputs must not depend on their batch-mates or the thread count, and the errors.
#include <gtest/gtest.h>
#include <omp.h>

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

using kernels::Int8Weights;

// Same bits, NaN equal to NaN.
void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(std::isnan(got[i]) && std::isnan(want[i]))) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
      return;
    }
}

// Reproducible int8 values in [-127, 127] (out, in).
std::vector<std::int8_t> int8_values(std::size_t n, unsigned seed) {
  std::vector<std::int8_t> v(n);
  const auto u = test::uniform<float>(n, seed, -127.49, 127.49);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int8_t>(std::lround(u[i]));
  return v;
}

// A quantized random matrix with its float weights' naive product.
struct Case {
  int out, in;
  std::vector<std::int8_t> values;
  std::vector<float> scales, bias;
  Case(int o, int i, unsigned seed) : out(o), in(i), scales(o), bias(o) {
    const auto w = test::uniform<float>(static_cast<std::size_t>(o) * i, seed);
    values.resize(w.size());
    kernels::quantize_rows_int8(w.data(), o, i, values.data(), scales.data());
    test::fill_uniform(bias, seed + 1);
  }
  std::vector<float> naive(const std::vector<float>& x, int rows, const float* b, bool relu) const {
    std::vector<float> y(static_cast<std::size_t>(rows) * out);
    kernels::naive::int8_linear(values.data(), scales.data(), out, in, x.data(), rows, b, relu, y.data(), nullptr);
    return y;
  }
};

TEST(Int8Weights, EveryVariantGivesTheExactIntegerSums) {
  // Integer inputs holding 127 in every row and unit scales: a_r = 1, so y is the int32 sum itself.
  for (const auto& [out, in] : {std::pair{1, 1}, {37, 19}, {130, 5}, {64, 4}, {200, 131}, {70, 1000}}) {
    const auto values = int8_values(static_cast<std::size_t>(out) * in, out + in);
    const std::vector<float> ones(out, 1.0f);
    const Int8Weights w(values.data(), ones.data(), out, in);
    for (int rows = 1; rows <= 37; rows += (in > 100 ? 6 : 1)) {
      std::vector<float> x(static_cast<std::size_t>(rows) * in);
      const auto q = int8_values(x.size(), rows);
      for (int r = 0; r < rows; ++r)
        for (int i = 0; i < in; ++i) x[r * in + i] = i == r % in ? (r % 2 ? -127.0f : 127.0f) : q[r * in + i];
      std::vector<std::int32_t> acc(static_cast<std::size_t>(rows) * out);
      std::vector<float> want(acc.size());
      kernels::naive::int8_linear(values.data(), ones.data(), out, in, x.data(), rows, nullptr, false, want.data(),
                                  acc.data());
      for (std::size_t i = 0; i < acc.size(); ++i) ASSERT_EQ(want[i], static_cast<float>(acc[i]));
      for (const auto& v : kernels::int8_variants()) {
        std::vector<float> y(acc.size(), -7.0f);
        v.run(w.panels(), x.data(), rows, 0, out, nullptr, false, y.data());
        expect_same_bits(y, want,
                         std::string(v.name) + " " + std::to_string(out) + "x" + std::to_string(in) +
                             " rows=" + std::to_string(rows));
      }
    }
  }
}

TEST(Int8Weights, EveryVariantMatchesTheNaiveProductBitForBit) {
  for (const auto& [out, in] : {std::pair{37, 19}, {130, 64}, {512, 512}, {100, 2050}, {1000, 97}}) {
    const Case c(out, in, out * 7 + in);
    const Int8Weights w(c.values.data(), c.scales.data(), out, in);
    for (int rows : {1, 2, 3, 4, 5, 6, 7, 12, 13, 31, 32, 37, 100, 200}) {
      const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * in, rows, -3.0, 3.0);
      for (bool with_bias : {false, true})
        for (bool relu : {false, true}) {
          const float* b = with_bias ? c.bias.data() : nullptr;
          const auto want = c.naive(x, rows, b, relu);
          const std::string what = std::to_string(out) + "x" + std::to_string(in) + " rows=" + std::to_string(rows) +
                                   " bias=" + std::to_string(with_bias) + " relu=" + std::to_string(relu);
          std::vector<float> y(want.size(), -7.0f);
          w.forward(x.data(), rows, b, relu, y.data());
          expect_same_bits(y, want, "selected " + what);
          for (const auto& v : kernels::int8_variants()) {
            std::fill(y.begin(), y.end(), -7.0f);
            v.run(w.panels(), x.data(), rows, 0, out, b, relu, y.data());
            expect_same_bits(y, want, std::string(v.name) + " " + what);
          }
        }
    }
  }
}

TEST(Int8Weights, ColumnRangesAreTheirPartOfTheWholeProduct) {
  const Case c(1000, 131, 3);
  const Int8Weights w(c.values.data(), c.scales.data(), c.out, c.in);
  const int align = w.column_align();
  ASSERT_EQ(align, 64);
  for (int rows : {1, 5, 37}) {
    const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * c.in, rows + 40);
    const auto whole = c.naive(x, rows, c.bias.data(), true);
    for (const auto& [n0, n] : {std::pair{0, 1}, {64, 64}, {128, 65}, {192, 808}, {960, 40}, {0, 1000}, {512, 7}}) {
      for (const auto& v : kernels::int8_variants()) {
        std::vector<float> y(static_cast<std::size_t>(rows) * n, -7.0f), want(y.size());
        v.run(w.panels(), x.data(), rows, n0, n, c.bias.data(), true, y.data());
        for (int r = 0; r < rows; ++r)
          for (int j = 0; j < n; ++j) want[r * n + j] = whole[static_cast<std::size_t>(r) * c.out + n0 + j];
        expect_same_bits(y, want, std::string(v.name) + " columns " + std::to_string(n0) + "+" + std::to_string(n));
      }
    }
  }
}

TEST(Int8Weights, ExtremeValuesZeroRowsAndNonFiniteRows) {
  const int out = 70, in = 301, rows = 8;
  // Weights at the ends of the range (the largest sums a row can reach), one all-zero weight row.
  std::vector<std::int8_t> values(static_cast<std::size_t>(out) * in);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = (i / 3) % 2 ? 127 : -127;
  std::fill_n(values.begin() + 5 * in, in, std::int8_t{0});
  std::vector<float> scales(out, 0.01f);
  scales[9] = 0.0f;
  const Int8Weights w(values.data(), scales.data(), out, in);
  std::vector<float> x(static_cast<std::size_t>(rows) * in);
  for (int i = 0; i < in; ++i) {
    x[0 * in + i] = i % 3 ? 1.0f : -1.0f;            // every element at +-127 once quantized
    x[1 * in + i] = 0.0f;                            // all zero
    x[2 * in + i] = i == 17 ? 1e30f : 0.5f;          // one huge value: the rest quantize to 0
    x[3 * in + i] = i == 200 ? NAN : 1.0f;           // NaN
    x[4 * in + i] = i == 3 ? -INFINITY : 1.0f;       // inf
    x[5 * in + i] = 1e-40f * (i % 5 - 2);            // subnormal
    x[6 * in + i] = 3e38f * (i % 2 ? 1 : -1);        // near the float maximum
    x[7 * in + i] = i == 0 ? 127.0f : i % 8 - 3.5f;  // scale 1: ties, rounded to even
  }
  std::vector<float> bias(out, 0.5f);
  for (bool relu : {false, true}) {
    std::vector<float> want(static_cast<std::size_t>(rows) * out);
    kernels::naive::int8_linear(values.data(), scales.data(), out, in, x.data(), rows, bias.data(), relu, want.data(),
                                nullptr);
    for (int o = 0; o < out; ++o) {
      EXPECT_EQ(want[1 * out + o], 0.5f);
      EXPECT_TRUE(std::isnan(want[3 * out + o]));
      EXPECT_TRUE(std::isnan(want[4 * out + o]));
    }
    for (const auto& v : kernels::int8_variants()) {
      std::vector<float> y(want.size(), -7.0f);
      v.run(w.panels(), x.data(), rows, 0, out, bias.data(), relu, y.data());
      expect_same_bits(y, want, std::string(v.name) + " relu=" + std::to_string(relu));
    }
  }
}

TEST(Int8Weights, ARowsOutputDependsOnNothingElse) {
  const Case c(700, 512, 11);
  const Int8Weights w(c.values.data(), c.scales.data(), c.out, c.in);
  const int rows = 37;
  const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * c.in, 12, -2.0, 2.0);
  std::vector<float> batch(static_cast<std::size_t>(rows) * c.out);
  w.forward(x.data(), rows, c.bias.data(), false, batch.data());
  const int threads = omp_get_max_threads();
  for (int t : {1, threads}) {
    omp_set_num_threads(t);
    for (int r : {0, 5, 36}) {
      std::vector<float> alone(c.out);
      w.forward(x.data() + static_cast<std::size_t>(r) * c.in, 1, c.bias.data(), false, alone.data());
      expect_same_bits(alone, std::vector<float>(batch.begin() + r * c.out, batch.begin() + (r + 1) * c.out),
                       "row " + std::to_string(r) + " threads " + std::to_string(t));
    }
  }
  omp_set_num_threads(threads);
}

TEST(Int8Weights, QuantizeRoundsToNearestEvenPerRow) {
  // Row 0's largest magnitude is 127, so its scale is 1 and the values are the weights rounded.
  const std::vector<float> w = {127.0f,  2.5f,     3.5f,    -2.5f,    -0.5f, 0.49f, 1.5f, -127.0f,    // row 0
                                0.0f,    0.0f,     0.0f,    0.0f,     0.0f,  0.0f,  0.0f, 0.0f,       // row 1: all zero
                                15.875f, -0.0625f, 0.1875f, -0.3125f, 0.0f,  0.0f,  0.0f, -15.875f};  // row 2
  std::vector<std::int8_t> values(w.size());
  std::vector<float> scales(3);
  kernels::quantize_rows_int8(w.data(), 3, 8, values.data(), scales.data());
  EXPECT_EQ(scales[0], 1.0f);
  EXPECT_EQ(scales[1], 0.0f);
  EXPECT_EQ(scales[2], 0.125f);
  const std::vector<std::int8_t> want = {127, 2, 4, -2, 0,   0, 2, -127, 0, 0, 0, 0,
                                         0,   0, 0, 0,  127, 0, 2, -2,   0, 0, 0, -127};
  EXPECT_EQ(values, want);
  const std::vector<float> bad = {1.0f, NAN};
  EXPECT_THROW(kernels::quantize_rows_int8(bad.data(), 1, 2, values.data(), scales.data()), Error);
}

TEST(Int8Weights, StoredFormReadsBackAndLivesInStorage) {
  const Case c(130, 21, 5);
  kernels::PackedWeightsStorage storage(1 << 20);
  const Int8Weights w(c.values.data(), c.scales.data(), c.out, c.in, &storage);
  EXPECT_GT(storage.used(), 0u);
  EXPECT_EQ(w.type(), kernels::ComputeType::Int8);
  EXPECT_GE(w.bytes(), c.values.size());
  std::vector<std::int8_t> v(c.in);
  std::vector<float> row(c.in);
  for (int o = 0; o < c.out; ++o) {
    w.values(o, v.data());
    w.row(o, row.data());
    EXPECT_EQ(w.scale(o), c.scales[o]);
    for (int i = 0; i < c.in; ++i) {
      ASSERT_EQ(v[i], c.values[o * c.in + i]);
      ASSERT_EQ(row[i], v[i] * c.scales[o]);
    }
  }
}

TEST(Int8Weights, BadShapesScalesAndRangesAreErrors) {
  const std::vector<std::int8_t> values(64 * 4, 1);
  std::vector<float> scales(64, 1.0f);
  EXPECT_THROW(Int8Weights(values.data(), scales.data(), 0, 4), Error);
  EXPECT_THROW(Int8Weights(values.data(), scales.data(), 64, 0), Error);
  for (float bad : {-1.0f, NAN, INFINITY}) {
    scales[7] = bad;
    EXPECT_THROW(Int8Weights(values.data(), scales.data(), 64, 4), Error) << bad;
  }
  scales[7] = 1.0f;
  const Int8Weights w(values.data(), scales.data(), 64, 4);
  std::vector<float> x(4, 1.0f), y(64);
  EXPECT_THROW(w.forward_columns(x.data(), 1, 32, 32, nullptr, false, y.data()), Error);  // not on a panel
  EXPECT_THROW(w.forward_columns(x.data(), 1, 0, 65, nullptr, false, y.data()), Error);   // past out
  EXPECT_THROW(w.forward_columns(x.data(), 1, 0, 0, nullptr, false, y.data()), Error);    // empty
  const Case big(4096, 64, 1);  // enough weights for several threads: no rows still runs nothing
  const Int8Weights wide(big.values.data(), big.scales.data(), big.out, big.in);
  wide.forward(nullptr, 0, nullptr, false, nullptr);
}

TEST(Int8Weights, PathsAreNamed) {
  const std::string paths = kernels::low_precision_paths();
  EXPECT_EQ(paths.rfind("int8 ", 0), 0u) << paths;
  EXPECT_NE(paths.find(kernels::selected_int8_variant().name), std::string::npos) << paths;
  EXPECT_FALSE(kernels::int8_variants().empty());
}

}  // namespace
}  // namespace heptapod
