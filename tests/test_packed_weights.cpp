// PackedWeights (inference weights in the GEMM kernels' own layout) against naive loops: the product with and
// without bias and ReLU for one to many rows, column ranges of it, and every element read back through at()
// and row().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/packed_weights.h"
#include "test_util.h"

namespace heptapod {
namespace {

using kernels::PackedWeights;

// y = x W^T (+ b), ReLU when asked, in double.
std::vector<float> naive_linear(const std::vector<float>& x, const std::vector<float>& w, const float* b, int rows,
                                int out, int in, bool relu) {
  std::vector<float> y(static_cast<std::size_t>(rows) * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double s = b ? b[o] : 0.0;
      for (int i = 0; i < in; ++i) s += static_cast<double>(x[r * in + i]) * w[static_cast<std::size_t>(o) * in + i];
      y[static_cast<std::size_t>(r) * out + o] = static_cast<float>(relu ? std::max(s, 0.0) : s);
    }
  return y;
}

TEST(PackedWeights, ForwardMatchesNaiveWithAndWithoutBiasAndRelu) {
  struct Shape {
    int out, in;
  };
  // Odd sizes that do not fill the layout's blocks, model-like ones, and an input width that panel_gemm
  // (up to 128 rows) works through in three chunks, the last one partial.
  for (const Shape s : {Shape{37, 19}, Shape{130, 64}, Shape{512, 256}, Shape{1000, 96}, Shape{200, 600}}) {
    std::vector<float> w(static_cast<std::size_t>(s.out) * s.in), b(s.out);
    test::fill_uniform(w, s.out);
    test::fill_uniform(b, s.in);
    const PackedWeights packed(w.data(), s.out, s.in);
    // Row counts around panel_gemm's 6-row tiles and its 128-row limit, the library's side of it, and counts
    // run in two pieces (200: 192 rows through the library, 8 through panel_gemm; 300: 256 and 44).
    for (int rows : {1, 3, 4, 5, 7, 13, 32, 64, 65, 97, 128, 129, 150, 200, 300}) {
      std::vector<float> x(static_cast<std::size_t>(rows) * s.in);
      test::fill_uniform(x, rows);
      for (bool with_bias : {false, true})
        for (bool relu : {false, true}) {
          const float* bias = with_bias ? b.data() : nullptr;
          std::vector<float> y(static_cast<std::size_t>(rows) * s.out, -7.0f);
          packed.forward(x.data(), rows, bias, relu, y.data());
          const auto want = naive_linear(x, w, bias, rows, s.out, s.in, relu);
          const std::string what = std::to_string(s.out) + "x" + std::to_string(s.in) + " rows=" +
                                   std::to_string(rows) + " bias=" + std::to_string(with_bias) +
                                   " relu=" + std::to_string(relu);
          EXPECT_LE(test::max_rel_error(y.data(), want.data(), y.size()), 1e-5) << what;
        }
    }
  }
}

TEST(PackedWeights, ColumnRangesEqualTheirPartOfTheWholeProduct) {
  const int out = 1000, in = 96;  // 1000 is not a multiple of the 64-column panels: the last range is partial
  std::vector<float> w(static_cast<std::size_t>(out) * in), b(out);
  test::fill_uniform(w, 5);
  test::fill_uniform(b, 6);
  const PackedWeights packed(w.data(), out, in);
  const int align = packed.column_align();
  ASSERT_GE(align, 1);
  for (int width : {align, 4 * align, 320 / align * align + align}) {
    packed.prepare(true, false, width);
    for (int rows : {1, 4, 5, 40, 300}) {
      std::vector<float> x(static_cast<std::size_t>(rows) * in);
      test::fill_uniform(x, rows + width);
      const auto whole = naive_linear(x, w, b.data(), rows, out, in, false);
      // The ranges' outputs put side by side, compared with the whole product at its own scale (one column of
      // one row can sit near zero, where a relative error of its own means nothing).
      std::vector<float> got(whole.size(), -7.0f);
      for (int n0 = 0; n0 < out; n0 += width) {
        const int n = std::min(width, out - n0);
        std::vector<float> y(static_cast<std::size_t>(rows) * n, -7.0f);
        packed.forward_columns(x.data(), rows, n0, n, b.data(), false, y.data());
        for (int r = 0; r < rows; ++r)
          std::copy_n(y.data() + static_cast<std::size_t>(r) * n, n,
                      got.data() + static_cast<std::size_t>(r) * out + n0);
      }
      EXPECT_LE(test::max_rel_error(got.data(), whole.data(), got.size()), 1e-5)
          << "rows=" << rows << " width " << width;
    }
  }
  std::vector<float> x(in), y(out);
  EXPECT_THROW(packed.forward_columns(x.data(), 1, 0, out + 1, nullptr, false, y.data()), Error);
  if (align > 1) {
    EXPECT_THROW(packed.forward_columns(x.data(), 1, 1, 8, nullptr, false, y.data()), Error);
  }
}

TEST(PackedWeights, SharedStorageHoldsMatricesWhileThereIsRoom) {
  const int out = 130, in = 64;
  std::vector<float> w(static_cast<std::size_t>(out) * in), b(out), x(5 * in);
  test::fill_uniform(w, 11);
  test::fill_uniform(b, 12);
  test::fill_uniform(x, 13);
  const PackedWeights alone(w.data(), out, in);
  kernels::PackedWeightsStorage storage(2 * alone.bytes() + 256);
  const PackedWeights first(w.data(), out, in, &storage), second(w.data(), out, in, &storage);
  EXPECT_GE(storage.used(), 2 * alone.bytes());
  std::vector<float> want(5 * out), y(5 * out);
  alone.forward(x.data(), 5, b.data(), false, want.data());
  for (const PackedWeights* p : {&first, &second}) {
    p->forward(x.data(), 5, b.data(), false, y.data());
    EXPECT_EQ(y, want);
  }
  EXPECT_NE(storage.take(8), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(storage.take(4)) % 64, 0u);
  EXPECT_EQ(storage.take(alone.bytes()), nullptr);  // no room: no overrun either
  const PackedWeights elsewhere(w.data(), out, in, &storage);  // lives in memory of its own
  elsewhere.forward(x.data(), 5, b.data(), false, y.data());
  EXPECT_EQ(y, want);
}

TEST(PackedWeights, EveryElementReadsBack) {
  for (auto [out, in] : {std::pair{37, 19}, std::pair{130, 64}, std::pair{300, 512}}) {
    std::vector<float> w(static_cast<std::size_t>(out) * in);
    test::fill_uniform(w, out + in);
    const PackedWeights packed(w.data(), out, in);
    std::vector<float> row(in);
    for (int o = 0; o < out; ++o) {
      packed.row(o, row.data());
      for (int i = 0; i < in; ++i) {
        ASSERT_EQ(packed.at(o, i), w[static_cast<std::size_t>(o) * in + i]) << out << "x" << in << " at " << o << "," << i;
        ASSERT_EQ(row[i], w[static_cast<std::size_t>(o) * in + i]) << out << "x" << in << " row " << o << "," << i;
      }
    }
    EXPECT_GE(packed.bytes(), sizeof(float) * w.size());
  }
}

}  // namespace
}  // namespace heptapod
