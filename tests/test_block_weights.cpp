// The ggml block products (kernels/block_weights.h) against a naive float64 loop over dequantize_row's values:
// the float products of every type and the integer products of every quantized type on every variant this
// machine runs (block_gemm_variants(), block_dot_variants()), the integer ones with the input quantized per
// block of 32 by this file's own rule (itself checked against quantize_block_activations: ties, clamping,
// zero and non-finite blocks, the sums); random blocks with finite float16 scales from 1e-7 to 6e4 and
// all-zero blocks, row counts around the register tiles, both block sizes, column ranges not starting at 0,
// bias and ReLU; BlockWeights' stacked parts of different types over the threads, its stored rows and sizes;
// NaN and infinity in the input; Q4_0 from quantize_row_q4_0 against the float product within the
// quantisation's bound; and the errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
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
    case GgmlType::Q5_K:
      return {0, 2};
    case GgmlType::Q6_K:
      return {208};
    default:
      return {0};
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

// x (rows, in) as the integer products see it: each block of 32 as d * q, d = max |x| / 127 in float32 and
// q = x / d (float32) rounded to the nearest integer, ties to even, within [-127, 127]; 0 for an all-zero block.
std::vector<double> block_quantized(const std::vector<float>& x) {
  std::vector<double> y(x.size());
  for (std::size_t b = 0; b < x.size(); b += 32) {
    float m = 0.0f;
    for (std::size_t i = b; i < b + 32; ++i) m = std::max(m, std::fabs(x[i]));
    const float d = m / 127.0f;
    for (std::size_t i = b; i < b + 32; ++i)
      y[i] = d == 0.0f ? 0.0 : static_cast<double>(d) * std::clamp(std::nearbyint(x[i] / d), -127.0f, 127.0f);
  }
  return y;
}

// The float64 product of x (rows, in) with the dequantized rows W (out, in), columns [n0, n0 + n) (+ bias)
// (ReLU), and each output's sum of |terms| (the scale of its rounding error). y, size: (rows, n).
struct Reference {
  std::vector<double> y, size;
};
template <typename X>
Reference reference(const std::vector<float>& w, int in, const std::vector<X>& x, int rows, int n0, int n,
                    const float* bias, bool relu) {
  Reference ref{std::vector<double>(static_cast<std::size_t>(rows) * n),
                std::vector<double>(static_cast<std::size_t>(rows) * n)};
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < n; ++o) {
      double s = bias ? bias[n0 + o] : 0.0, a = bias ? std::fabs(bias[n0 + o]) : 0.0;
      for (int i = 0; i < in; ++i) {
        const double t =
            static_cast<double>(x[static_cast<std::size_t>(r) * in + i]) * w[static_cast<std::size_t>(n0 + o) * in + i];
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

// y (rows, ldy) near the reference in columns [0, n) and untouched (1234.5) past them.
void expect_product(const std::vector<float>& y, long ldy, const Reference& ref, int rows, int n,
                    const std::string& what) {
  expect_near(y.data(), ldy, ref, rows, n, what);
  for (int r = 0; r < rows; ++r)
    for (long c = n; c < ldy; ++c) ASSERT_EQ(y[r * ldy + c], 1234.5f) << what << ": wrote past the columns";
}

std::string case_name(GgmlType type, const char* variant, int in, int rows, bool with_bias) {
  return std::string(kernels::ggml_type_name(type)) + " " + variant + " in " + std::to_string(in) + " rows " +
         std::to_string(rows) + (with_bias ? " bias relu" : "");
}

// The variants are some, and the selected ISA's (HEPTAPOD_ISA may pick a lower one) is among them.
template <typename Variant>
void expect_listed(const std::vector<Variant>& variants, const Variant& selected) {
  ASSERT_FALSE(variants.empty());
  EXPECT_TRUE(std::any_of(variants.begin(), variants.end(),
                          [&](const auto& v) { return std::string(v.name) == selected.name; }))
      << selected.name;
}

TEST(BlockWeights, EveryVariantMatchesTheDoubleProductOfTheDequantizedWeights) {
  const auto variants = kernels::block_gemm_variants();
  expect_listed(variants, kernels::selected_block_gemm_variant());
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
            expect_product(y, ldy, ref, rows, n, case_name(type, v.name, in, rows, with_bias));
          }
        }
      }
    }
  }
}

TEST(BlockWeights, QuantizedActivationsFollowTheirRule) {
  // Block 0: ties at +-0.5 and +-2.5 steps (d = 1 exactly: max 127); block 1 all zero; block 2 random with
  // its maximum negative; block 3 holding a NaN; block 4 an infinity; block 5 tiny values (d underflows to 0).
  std::vector<float> x(6 * 32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i % 5) - 2.5f;
  x[0] = 127.0f, x[1] = 0.5f, x[2] = -0.5f, x[3] = 1.5f;
  const auto random = test::uniform<float>(32, 4, -3.0, 3.0);
  std::copy(random.begin(), random.end(), x.begin() + 64);
  x[70] = -5.0f;
  for (int i = 96; i < 160; ++i) x[i] = 0.25f;
  x[100] = NAN, x[140] = -INFINITY;
  for (int i = 160; i < 192; ++i) x[i] = 1e-44f;
  // Two rows of 96 values, each padded to 128 (block 3 of each row: zeros).
  kernels::BlockActivations a;
  kernels::quantize_block_activations(x.data(), 2, 96, a);
  ASSERT_EQ(a.rows, 2);
  ASSERT_EQ(a.in, 96);
  ASSERT_EQ(a.padded_in(), 128);
  ASSERT_EQ(a.q.size(), 256u);
  ASSERT_EQ(a.lane_scales.size(), 64u);
  const std::vector<double> want = block_quantized(x);
  EXPECT_EQ(a.q[1], 0);   // 0.5 ties to 0
  EXPECT_EQ(a.q[3], 2);   // 1.5 ties to 2
  EXPECT_EQ(a.q[5], -2);  // -2.5 ties to -2
  for (int k = 0; k < 8; ++k) {  // k: the block in the padded rows; b: the block of x, or -1 for padding
    const int b = k % 4 == 3 ? -1 : k / 4 * 3 + k % 4;
    const std::string what = "block " + std::to_string(k);
    for (int l = 8 * k; l < 8 * k + 8; ++l) {
      EXPECT_TRUE(a.lane_scales[l] == a.scales[k] || (std::isnan(a.scales[k]) && std::isnan(a.lane_scales[l]))) << what;
    }
    if (b == 3 || b == 4) {
      EXPECT_TRUE(std::isnan(a.scales[k])) << what;
      continue;
    }
    int sum = 0;
    for (int i = 32 * k; i < 32 * k + 32; ++i) {
      const double got = static_cast<double>(a.scales[k]) * a.q[i];
      ASSERT_EQ(got, b < 0 ? 0.0 : want[32 * b + i % 32]) << what << " value " << i;
      sum += a.q[i];
      if (i % 4 == 3) {
        EXPECT_EQ(a.neg_sums[i / 4], -(a.q[i - 3] + a.q[i - 2] + a.q[i - 1] + a.q[i])) << what;
      }
    }
    EXPECT_EQ(a.scaled_sums[k], a.scales[k] * static_cast<float>(sum)) << what;
  }
  EXPECT_EQ(a.scales[0], 1.0f);
  EXPECT_EQ(a.scales[1], 0.0f);
  EXPECT_EQ(a.q[70], -127);
  EXPECT_EQ(a.scales[3], 0.0f);  // padding
  EXPECT_EQ(a.scales[6], 0.0f);  // block 5: d underflows
  EXPECT_THROW(kernels::quantize_block_activations(x.data(), 1, 48, a), Error);
}

TEST(BlockWeights, EveryIntegerVariantMatchesTheDoubleProductWithQuantizedInput) {
  const auto variants = kernels::block_dot_variants();
  expect_listed(variants, kernels::selected_block_dot_variant());
  const int out = 13, n0 = 3, n = 9;
  for (GgmlType type : kTypes) {
    if (!kernels::has_integer_block_product(type)) continue;
    const long block = block_values(type);
    for (int in : block == 256 ? std::vector<int>{256, 768} : std::vector<int>{32, 96, 512}) {
      const auto rows_bytes = random_rows(type, out, in, 19 * in + static_cast<unsigned>(type));
      const auto w = dequantized(type, rows_bytes, out, in);
      const long row_bytes = kernels::ggml_row_bytes(type, in);
      const auto bias = test::uniform<float>(out, 6);
      for (int rows : {1, 2, 3, 5, 8, 33}) {
        auto x = test::uniform<float>(static_cast<std::size_t>(rows) * in, rows + in + 1, -2.0, 2.0);
        std::fill_n(x.begin(), 32, 0.0f);  // an all-zero block
        kernels::BlockActivations a;
        kernels::quantize_block_activations(x.data(), rows, in, a);
        const std::vector<double> xq = block_quantized(x);
        for (bool with_bias : {false, true}) {
          const float* b = with_bias ? bias.data() : nullptr;
          const Reference ref = reference(w, in, xq, rows, n0, n, b, with_bias);
          for (const auto& v : variants) {
            const long ldy = n + 2;
            std::vector<float> y(static_cast<std::size_t>(rows) * ldy, 1234.5f);
            v.run(type, rows_bytes.data() + n0 * row_bytes, row_bytes, a, n, b ? b + n0 : nullptr, with_bias, y.data(),
                  ldy);
            expect_product(y, ldy, ref, rows, n, case_name(type, v.name, in, rows, with_bias));
          }
        }
      }
    }
  }
}

// Parts of every kind stacked in one matrix of in = 512: Q4_K (2 groups of 16 and 5 rows), Q8_0 from
// quantize_row_q8_0 (many rows, so forward_columns forks; 18 groups and 12 rows), Q6_K (1 group and 5 rows),
// F16, Q5_0, Q4_0.
struct Stack {
  static constexpr int in = 512;
  std::vector<GgmlType> types{GgmlType::Q4_K, GgmlType::Q8_0, GgmlType::Q6_K,
                              GgmlType::F16,  GgmlType::Q5_0, GgmlType::Q4_0};
  std::vector<int> outs{37, 300, 21, 3, 70, 37};
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

TEST(BlockWeights, EveryGroupVariantMatchesTheDoubleProductWithQuantizedInput) {
  for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    ASSERT_TRUE(kernels::has_row_groups(type));
    for (int in : block_values(type) == 256 ? std::vector<int>{256, 768} : std::vector<int>{32, 96, 512}) {
      const int out = 48;
      const auto rows_bytes = random_rows(type, out, in, 23 * in + static_cast<unsigned>(type));
      const auto w = dequantized(type, rows_bytes, out, in);
      const long row_bytes = kernels::ggml_row_bytes(type, in), group_row_bytes = kernels::group_row_bytes(type, in);
      EXPECT_EQ(group_row_bytes, type == GgmlType::Q4_K ? in / 256 * 148 : row_bytes);
      std::vector<std::uint8_t> groups(static_cast<std::size_t>(out) * group_row_bytes);
      kernels::group_block_rows(type, rows_bytes.data(), out, in, groups.data());
      // Every row comes back from its group.
      std::vector<std::uint8_t> blocks(row_bytes);
      for (int j = 0; j < out; ++j) {
        kernels::ungroup_block_row(type, groups.data(), in, j, blocks.data());
        ASSERT_EQ(std::memcmp(blocks.data(), rows_bytes.data() + j * row_bytes, row_bytes), 0) << "row " << j;
      }
      const auto bias = test::uniform<float>(out, 8);
      for (int rows : {1, 2, 3, 5, 8, 33}) {
        const auto x = test::uniform<float>(static_cast<std::size_t>(rows) * in, rows + in + 2, -2.0, 2.0);
        kernels::BlockActivations a;
        kernels::quantize_block_activations(x.data(), rows, in, a);
        const std::vector<double> xq = block_quantized(x);
        // Columns from inside a group to inside another, whole groups, one column.
        for (auto [c0, c1] : std::vector<std::pair<int, int>>{{5, 37}, {0, 48}, {16, 32}, {47, 48}}) {
          const int n = c1 - c0;
          const Reference ref = reference(w, in, xq, rows, c0, n, bias.data(), true);
          for (const auto& v : kernels::block_dot_variants()) {
            const long ldy = n + 2;
            std::vector<float> y(static_cast<std::size_t>(rows) * ldy, 1234.5f);
            v.run_groups(type, groups.data(), group_row_bytes, a, c0, c1, bias.data() + c0, true, y.data(), ldy);
            expect_product(y, ldy, ref, rows, n,
                           case_name(type, v.name, in, rows, true) + " groups, columns " + std::to_string(c0) + ".." +
                               std::to_string(c1));
          }
        }
      }
    }
  }
  EXPECT_THROW(kernels::group_block_rows(GgmlType::Q4_0, nullptr, 15, 32, nullptr), Error);
  EXPECT_THROW(kernels::group_block_rows(GgmlType::Q5_K, nullptr, 16, 256, nullptr), Error);
}

// The stack's products under the activations' precision chosen now (the float parts' references x as it is).
void check_stack() {
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
      for (auto [n0, n] : std::vector<std::pair<int, int>>{
               {0, s.out}, {2, 380}, {306, 4}, {7, 1}, {s.out - 71, 71}, {s.out - 30, 30}, {13, 17}}) {
        for (bool with_bias : {false, true}) {
          std::vector<float> y(static_cast<std::size_t>(rows) * n);
          m.forward_columns(x.data(), rows, n0, n, with_bias ? bias.data() : nullptr, with_bias, y.data());
          // The F16 part multiplies x as it is, the others x quantized per block.
          const float* b = with_bias ? bias.data() : nullptr;
          Reference ref = reference(s.w, Stack::in, block_quantized(x), rows, n0, n, b, with_bias);
          const Reference exact = reference(s.w, Stack::in, x, rows, n0, n, b, with_bias);
          for (int r = 0; r < rows; ++r)
            for (int o = 0; o < n; ++o)
              if (!m.integer_product(n0 + o)) {
                const std::size_t at = static_cast<std::size_t>(r) * n + o;
                ref.y[at] = exact.y[at];
                ref.size[at] = exact.size[at];
              }
          expect_near(y.data(), n, ref, rows, n,
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
      std::vector<std::uint8_t> blocks(row_bytes);
      m.row_blocks(o, blocks.data());
      ASSERT_EQ(std::memcmp(blocks.data(), s.bytes[k].data() + j * row_bytes, row_bytes), 0) << "row " << o;
      m.row(o, row.data());
      ASSERT_EQ(
          std::memcmp(row.data(), s.w.data() + static_cast<std::size_t>(o) * Stack::in, sizeof(float) * Stack::in), 0)
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

TEST(BlockWeights, StackedPartsOfDifferentTypesOverAnyColumnRangeAndThreads) {
  const kernels::BlockActivationPrecision saved = kernels::block_activation_precision();
  for (auto precision : {kernels::BlockActivationPrecision::Int8, kernels::BlockActivationPrecision::Float32}) {
    SCOPED_TRACE(precision == kernels::BlockActivationPrecision::Int8 ? "int8 activations" : "float32 activations");
    kernels::set_block_activation_precision(precision);
    check_stack();
    const Stack s;
    const BlockWeights m(s.parts, Stack::in, kernels::ComputeType::Ggml);
    for (int o = 0; o < s.out; ++o)
      ASSERT_EQ(m.integer_product(o),
                precision == kernels::BlockActivationPrecision::Int8 && m.row_type(o) != GgmlType::F16);
  }
  kernels::set_block_activation_precision(saved);
}

TEST(BlockWeights, NanAndInfinityInTheInputPropagate) {
  for (GgmlType type : kTypes) {
    const int in = static_cast<int>(block_values(type) == 256 ? 256 : 64), out = 6;
    const auto rows_bytes = random_rows(type, out, in, 8);
    const BlockWeights m(std::vector<BlockPart>{{type, rows_bytes.data(), out}}, in, kernels::ComputeType::Ggml);
    auto x = test::uniform<float>(3 * static_cast<std::size_t>(in), 9);
    x[5] = NAN;            // row 0
    x[in + 7] = INFINITY;  // row 1
    kernels::BlockActivations a;
    kernels::quantize_block_activations(x.data(), 3, in, a);
    std::vector<std::pair<std::string, std::vector<float>>> results;  // (variant, y (3, out))
    for (const auto& v : kernels::block_gemm_variants()) {
      std::vector<float> y(3 * out);
      v.run(type, rows_bytes.data(), kernels::ggml_row_bytes(type, in), x.data(), 3, in, out, nullptr, true, y.data(),
            out);
      results.emplace_back(v.name, y);
    }
    for (const auto& v : kernels::block_dot_variants()) {
      if (!kernels::has_integer_block_product(type)) break;
      std::vector<float> y(3 * out);
      v.run(type, rows_bytes.data(), kernels::ggml_row_bytes(type, in), a, out, nullptr, true, y.data(), out);
      results.emplace_back(std::string("integer ") + v.name, y);
    }
    for (const auto& [name, y] : results) {
      const std::string what = std::string(kernels::ggml_type_name(type)) + " " + name;
      for (int o = 0; o < out; ++o) {
        EXPECT_TRUE(std::isnan(y[o])) << what << ": NaN input, column " << o << " gives " << y[o];
        std::vector<float> w(in);
        m.row(o, w.data());
        // inf * a weight: +-inf, or NaN (a zero weight, or both signs); ReLU keeps NaN and inf, zeroes -inf.
        if (w[7] != 0.0f) {
          EXPECT_FALSE(std::isfinite(y[out + o]) && y[out + o] != 0.0f) << what << ": column " << o;
        }
        EXPECT_TRUE(std::isfinite(y[2 * out + o])) << what << ": a finite row beside them, column " << o;
      }
    }
  }
}

// (BlockWeights quantizes the input per block of 32 too: each x within half its block's step max |x| / 127.)
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
        double amax = 0, xmax = 0;
        for (int j = i; j < i + 32; ++j) {
          amax = std::max(amax, std::fabs(static_cast<double>(w[o * in + j])));
          xmax = std::max(xmax, std::fabs(static_cast<double>(x[r * in + j])));
        }
        for (int j = i; j < i + 32; ++j) {
          exact += static_cast<double>(x[r * in + j]) * w[o * in + j];
          bound += std::fabs(x[r * in + j]) * amax / 8 + (std::fabs(w[o * in + j]) + amax / 8) * xmax / 254;
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
