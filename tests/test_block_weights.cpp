// The ggml block products (kernels/block_weights.h) against a naive float64 loop over dequantize_row's values:
// every type on every variant this machine runs (block_gemm_variants()), random blocks with finite float16
// scales from 1e-7 to 6e4 and all-zero blocks, row counts around the register tiles, both block sizes, column
// ranges not starting at 0, bias and ReLU; BlockWeights' stacked parts of different types over the threads,
// its stored rows and sizes; NaN and infinity in the input; Q4_0 from quantize_row_q4_0 against the float
// product within the quantisation's bound; and the errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/half.h"
#include "test_util.h"

namespace heptapod {
namespace {

using kernels::BlockPart;
using kernels::BlockWeights;
using kernels::GgmlType;

constexpr GgmlType kTypes[] = {GgmlType::F16,  GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0,
                               GgmlType::Q5_1, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};

long block_values(GgmlType type) { return kernels::ggml_type_info(type).block_elements; }

// Byte offsets of a block's float16 scale fields (d, and m or dmin where the type has one).
std::vector<int> scale_fields(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_1:
    case GgmlType::Q5_1:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K: return {0, 2};
    case GgmlType::Q6_K: return {208};
    default: return {0};
  }
}

void put_half(float v, std::uint8_t* p) {
  const kernels::half h = kernels::to_half_scalar(v);
  p[0] = static_cast<std::uint8_t>(h & 0xff);
  p[1] = static_cast<std::uint8_t>(h >> 8);
}

// A finite scale: mostly +-[1e-3, 0.1], sometimes 1e-7 (a float16 subnormal), 6e4 or 0.
float random_scale(std::mt19937& rng) {
  const int pick = static_cast<int>(rng() % 16);
  const float sign = rng() % 2 ? 1.0f : -1.0f;
  if (pick == 0) return sign * 1e-7f;
  if (pick == 1) return sign * 6e4f;
  if (pick == 2) return 0.0f;
  return sign * std::uniform_real_distribution<float>(1e-3f, 0.1f)(rng);
}

// (out) rows of `in` values of `type`: random bytes with every scale field finite, one block in nine all zeros.
std::vector<std::uint8_t> random_rows(GgmlType type, int out, int in, unsigned seed) {
  std::mt19937 rng(seed);
  const long row_bytes = kernels::ggml_row_bytes(type, in);
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(out) * row_bytes);
  for (auto& b : rows) b = static_cast<std::uint8_t>(rng());
  if (type == GgmlType::F16) {
    for (std::size_t i = 0; i < rows.size(); i += 2) put_half(random_scale(rng), &rows[i]);
    return rows;
  }
  const long block_bytes = kernels::ggml_type_info(type).block_bytes;
  for (std::size_t at = 0; at < rows.size(); at += block_bytes) {
    if (rng() % 9 == 0) {
      std::fill_n(rows.begin() + static_cast<long>(at), block_bytes, 0);
      continue;
    }
    for (int field : scale_fields(type)) put_half(random_scale(rng), &rows[at + field]);
  }
  return rows;
}

// The float64 product of x (rows, in) with the dequantized rows W (out, in), columns [n0, n0 + n) (+ bias)
// (ReLU), and each output's sum of |terms| (the scale of its rounding error). y, size: (rows, n).
struct Reference {
  std::vector<double> y, size;
};
Reference reference(const std::vector<float>& w, int in, const std::vector<float>& x, int rows, int n0, int n,
                    const float* bias, bool relu) {
  Reference ref{std::vector<double>(static_cast<std::size_t>(rows) * n), std::vector<double>(static_cast<std::size_t>(rows) * n)};
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < n; ++o) {
      double s = bias ? bias[n0 + o] : 0.0, a = bias ? std::fabs(bias[n0 + o]) : 0.0;
      for (int i = 0; i < in; ++i) {
        const double t = static_cast<double>(x[static_cast<std::size_t>(r) * in + i]) *
                         w[static_cast<std::size_t>(n0 + o) * in + i];
        s += t;
        a += std::fabs(t);
      }
      ref.y[static_cast<std::size_t>(r) * n + o] = relu && s < 0 ? 0.0 : s;
      ref.size[static_cast<std::size_t>(r) * n + o] = a;
    }
  return ref;
}

std::vector<float> dequantized(GgmlType type, const std::vector<std::uint8_t>& rows, int out, int in) {
  std::vector<float> w(static_cast<std::size_t>(out) * in);
  const long row_bytes = kernels::ggml_row_bytes(type, in);
  for (int o = 0; o < out; ++o)
    kernels::dequantize_row(type, rows.data() + o * row_bytes, w.data() + static_cast<std::size_t>(o) * in, in);
  return w;
}

// y (rows, ldy) columns [0, n) within 1e-5 of the reference's scale; what: the case.
void expect_near(const float* y, long ldy, const Reference& ref, int rows, int n, const std::string& what) {
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < n; ++o) {
      const double want = ref.y[static_cast<std::size_t>(r) * n + o];
      const double got = y[r * ldy + o];
      const double bound = 1e-5 * ref.size[static_cast<std::size_t>(r) * n + o] + 1e-30;
      if (!(std::fabs(got - want) <= bound)) {
        ADD_FAILURE() << what << ": row " << r << " column " << o << " is " << got << ", want " << want << " (+- "
                      << bound << ")";
        return;
      }
    }
}

TEST(BlockWeights, EveryVariantMatchesTheDoubleProductOfTheDequantizedWeights) {
  const auto variants = kernels::block_gemm_variants();
  ASSERT_FALSE(variants.empty());
  EXPECT_STREQ(variants.front().name, kernels::selected_block_gemm_variant().name);
  const int out = 13, n0 = 3, n = 9;  // columns 3..11: neither starting at 0 nor reaching the end
  for (GgmlType type : kTypes) {
    const long block = block_values(type);
    // Whole 32- or 256-value blocks; F16 also with a tail past the last 32.
    std::vector<int> ins = block == 256 ? std::vector<int>{256, 768} : std::vector<int>{32, 96, 512};
    if (type == GgmlType::F16) ins.insert(ins.end(), {7, 45});
    for (int in : ins) {
      const auto rows_bytes = random_rows(type, out, in, 17 * in + static_cast<unsigned>(type));
      const auto w = dequantized(type, rows_bytes, out, in);
      const long row_bytes = kernels::ggml_row_bytes(type, in);
      const auto bias = test::uniform<float>(out, 5);
      for (int rows : {1, 2, 3, 5, 8, 33}) {
        const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * in, rows + in, -2.0, 2.0);
        for (bool with_bias : {false, true}) {
          const float* b = with_bias ? bias.data() : nullptr;
          const Reference ref = reference(w, in, x, rows, n0, n, b, with_bias);
          for (const auto& v : variants) {
            const long ldy = n + 2;
            std::vector<float> y(static_cast<std::size_t>(rows) * ldy, 1234.5f);
            v.run(type, rows_bytes.data() + n0 * row_bytes, row_bytes, x.data(), rows, in, n, b ? b + n0 : nullptr,
                  with_bias, y.data(), ldy);
            const std::string what = std::string(kernels::ggml_type_name(type)) + " " + v.name + " in " +
                                     std::to_string(in) + " rows " + std::to_string(rows) +
                                     (with_bias ? " bias relu" : "");
            expect_near(y.data(), ldy, ref, rows, n, what);
            for (int r = 0; r < rows; ++r)
              for (long c = n; c < ldy; ++c) ASSERT_EQ(y[r * ldy + c], 1234.5f) << what << ": wrote past the columns";
          }
        }
      }
    }
  }
}

// Parts of every kind stacked in one matrix of in = 512: Q4_K, Q8_0 from quantize_row_q8_0 (many rows, so
// forward_columns forks), Q6_K, F16, Q5_0.
struct Stack {
  static constexpr int in = 512;
  std::vector<GgmlType> types{GgmlType::Q4_K, GgmlType::Q8_0, GgmlType::Q6_K, GgmlType::F16, GgmlType::Q5_0};
  std::vector<int> outs{5, 300, 7, 3, 70};
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<BlockPart> parts;
  std::vector<float> w;  // (out, in) dequantized
  int out = 0;
  Stack() {
    for (std::size_t k = 0; k < types.size(); ++k) {
      if (types[k] == GgmlType::Q8_0) {
        const auto f = test::uniform<float>(static_cast<std::size_t>(outs[k]) * in, 99, -3.0, 3.0);
        bytes.emplace_back(static_cast<std::size_t>(outs[k]) * kernels::ggml_row_bytes(GgmlType::Q8_0, in));
        kernels::quantize_row_q8_0(f.data(), bytes.back().data(), f.size());
      } else {
        bytes.push_back(random_rows(types[k], outs[k], in, 40 + static_cast<unsigned>(k)));
      }
      const auto part_w = dequantized(types[k], bytes.back(), outs[k], in);
      w.insert(w.end(), part_w.begin(), part_w.end());
      out += outs[k];
    }
    for (std::size_t k = 0; k < types.size(); ++k) parts.push_back({types[k], bytes[k].data(), outs[k]});
  }
};

TEST(BlockWeights, StackedPartsOfDifferentTypesOverAnyColumnRangeAndThreads) {
  const Stack s;
  kernels::PackedWeightsStorage storage(1 << 20);
  const BlockWeights m(s.parts, Stack::in, kernels::ComputeType::Ggml, &storage);
  ASSERT_EQ(m.out(), s.out);
  EXPECT_EQ(m.in(), Stack::in);
  EXPECT_EQ(m.type(), kernels::ComputeType::Ggml);
  EXPECT_EQ(m.column_align(), 1);
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < s.parts.size(); ++k) bytes += s.bytes[k].size();
  EXPECT_GE(m.bytes(), bytes);
  EXPECT_LT(m.bytes(), bytes + 64 * s.parts.size());
  EXPECT_GE(storage.used(), m.bytes());
  const auto bias = test::uniform<float>(s.out, 7);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    for (int rows : {1, 4}) {
      const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * Stack::in, 3 + rows);
      // From the start, across every boundary, inside one part, the last columns.
      for (auto [n0, n] : std::vector<std::pair<int, int>>{{0, s.out}, {2, 380}, {306, 4}, {7, 1}, {s.out - 71, 71}}) {
        for (bool with_bias : {false, true}) {
          std::vector<float> y(static_cast<std::size_t>(rows) * n);
          m.forward_columns(x.data(), rows, n0, n, with_bias ? bias.data() : nullptr, with_bias, y.data());
          expect_near(y.data(), n, reference(s.w, Stack::in, x, rows, n0, n, with_bias ? bias.data() : nullptr, with_bias),
                      rows, n,
                      "threads " + std::to_string(threads) + " rows " + std::to_string(rows) + " columns " +
                          std::to_string(n0) + "+" + std::to_string(n));
        }
      }
    }
  }
  omp_set_num_threads(saved);
  // The stored rows: their types, bytes and values as dequantize_row gives them.
  std::vector<float> row(Stack::in);
  int o = 0;
  for (std::size_t k = 0; k < s.parts.size(); ++k) {
    const long row_bytes = kernels::ggml_row_bytes(s.types[k], Stack::in);
    for (int j = 0; j < s.outs[k]; ++j, ++o) {
      ASSERT_EQ(m.row_type(o), s.types[k]);
      ASSERT_EQ(std::memcmp(m.row_blocks(o), s.bytes[k].data() + j * row_bytes, row_bytes), 0) << "row " << o;
      m.row(o, row.data());
      ASSERT_EQ(std::memcmp(row.data(), s.w.data() + static_cast<std::size_t>(o) * Stack::in, sizeof(float) * Stack::in), 0)
          << "row " << o;
    }
  }
  // Without storage (its own memory), the same results.
  const BlockWeights own(s.parts, Stack::in, kernels::ComputeType::Int4);
  EXPECT_EQ(own.type(), kernels::ComputeType::Int4);
  const auto x = test::uniform<float>(2 * Stack::in, 11);
  std::vector<float> a(2 * static_cast<std::size_t>(s.out)), b(a.size());
  m.forward(x.data(), 2, nullptr, false, a.data());
  own.forward(x.data(), 2, nullptr, false, b.data());
  EXPECT_EQ(a, b);
}

TEST(BlockWeights, NanAndInfinityInTheInputPropagate) {
  for (GgmlType type : kTypes) {
    const int in = static_cast<int>(block_values(type) == 256 ? 256 : 64), out = 6;
    const auto rows_bytes = random_rows(type, out, in, 8);
    const BlockWeights m(std::vector<BlockPart>{{type, rows_bytes.data(), out}}, in, kernels::ComputeType::Ggml);
    auto x = test::uniform<float>(3 * static_cast<std::size_t>(in), 9);
    x[5] = NAN;       // row 0
    x[in + 7] = INFINITY;  // row 1
    for (const auto& v : kernels::block_gemm_variants()) {
      std::vector<float> y(3 * out);
      v.run(type, m.row_blocks(0), kernels::ggml_row_bytes(type, in), x.data(), 3, in, out, nullptr, true, y.data(), out);
      const std::string what = std::string(kernels::ggml_type_name(type)) + " " + v.name;
      for (int o = 0; o < out; ++o) {
        EXPECT_TRUE(std::isnan(y[o])) << what << ": NaN input, column " << o << " gives " << y[o];
        std::vector<float> w(in);
        m.row(o, w.data());
        // inf * a weight: +-inf, or NaN (a zero weight, or both signs); ReLU keeps NaN and inf, zeroes -inf.
        if (w[7] != 0.0f) EXPECT_FALSE(std::isfinite(y[out + o]) && y[out + o] != 0.0f) << what << ": column " << o;
        EXPECT_TRUE(std::isfinite(y[2 * out + o])) << what << ": a finite row beside them, column " << o;
      }
    }
  }
}

TEST(BlockWeights, Q4_0FromTheQuantizerApproximatesTheFloatProduct) {
  const int out = 40, in = 320, rows = 3;
  const auto w = test::uniform<float>(static_cast<std::size_t>(out) * in, 21);
  std::vector<std::uint8_t> blocks(static_cast<std::size_t>(out) * kernels::ggml_row_bytes(GgmlType::Q4_0, in));
  kernels::quantize_row_q4_0(w.data(), blocks.data(), static_cast<long>(w.size()));
  const BlockWeights m(std::vector<BlockPart>{{GgmlType::Q4_0, blocks.data(), out}}, in, kernels::ComputeType::Int4);
  const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * in, 22);
  std::vector<float> y(static_cast<std::size_t>(rows) * out);
  m.forward(x.data(), rows, nullptr, false, y.data());
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      // Each weight is within its block's |d| = amax / 8 of its value (half a step, or a whole one where the
      // top level is clamped to 15).
      double exact = 0, bound = 1e-4;
      for (int i = 0; i < in; i += 32) {
        double amax = 0;
        for (int j = i; j < i + 32; ++j) amax = std::max(amax, std::fabs(static_cast<double>(w[o * in + j])));
        for (int j = i; j < i + 32; ++j) {
          exact += static_cast<double>(x[r * in + j]) * w[o * in + j];
          bound += std::fabs(x[r * in + j]) * amax / 8;
        }
      }
      EXPECT_NEAR(y[r * out + o], exact, bound) << "row " << r << " column " << o;
    }
}

TEST(BlockWeights, RefusesBadShapesTypesAndColumns) {
  const auto q8 = random_rows(GgmlType::Q8_0, 4, 64, 1);
  const auto make = [&](GgmlType type, int out, int in) {
    BlockWeights m(std::vector<BlockPart>{{type, q8.data(), out}}, in, kernels::ComputeType::Ggml);
  };
  EXPECT_THROW(make(GgmlType::Q2_K, 1, 256), Error);
  EXPECT_THROW(make(GgmlType::F32, 4, 16), Error);
  EXPECT_THROW(make(GgmlType::Q8_0, 0, 64), Error);
  EXPECT_THROW(make(GgmlType::Q8_0, 4, 0), Error);
  EXPECT_THROW(make(GgmlType::Q8_0, 2, 48), Error);
  EXPECT_THROW(make(GgmlType::Q4_K, 1, 64), Error);
  EXPECT_THROW(make(static_cast<GgmlType>(77), 1, 64), Error);
  EXPECT_THROW(BlockWeights(std::vector<BlockPart>{}, 64, kernels::ComputeType::Ggml), Error);
  EXPECT_FALSE(kernels::is_block_compute_type(GgmlType::Q3_K));
  EXPECT_TRUE(kernels::is_block_compute_type(GgmlType::Q5_K));
  const BlockWeights m(std::vector<BlockPart>{{GgmlType::Q8_0, q8.data(), 4}}, 64, kernels::ComputeType::Ggml);
  std::vector<float> x(64), y(8);
  EXPECT_THROW(m.forward_columns(x.data(), 1, 3, 2, nullptr, false, y.data()), Error);
  EXPECT_THROW(m.forward_columns(x.data(), 1, -1, 2, nullptr, false, y.data()), Error);
  EXPECT_THROW(m.forward_columns(x.data(), 1, 0, 0, nullptr, false, y.data()), Error);
  EXPECT_THROW(m.row_type(4), Error);
}

}  // namespace
}  // namespace heptapod
