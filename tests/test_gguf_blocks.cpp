// GGUF's block types (kernels/gguf_blocks.h) against the independent float64 reference of
// tools/gguf_blocks_reference.py (fixture tests/fixtures/gguf_blocks/gguf_blocks.safetensors): every type's
// decoding equals the reference rounded once to float32, bit for bit (each value is exact in float64 and
// float32 rounds it once, so there is no tolerance to give); the Q8_0 and Q4_0 quantizers give the reference's
// bytes; their round trips stay within the types' error bounds; the type table's ids and sizes equal the
// reference's; unknown ids and partial blocks are refused with the number named.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/kernels/half.h"
#include "test_util.h"

namespace heptapod {
namespace {

using kernels::GgmlType;

const SafetensorsFile& reference() {
  static const SafetensorsFile file = SafetensorsFile::read(test::fixture("gguf_blocks/gguf_blocks.safetensors"));
  return file;
}

std::vector<unsigned char> bytes_of(const std::string& name) {
  const TensorEntry& entry = reference().at(name);
  EXPECT_EQ(entry.dtype, DType::U8) << name;
  const unsigned char* data = reference().data(entry);
  return {data, data + entry.numel()};
}

std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

TEST(GgufBlocks, TypeTableMatchesTheReference) {
  EXPECT_EQ(reference().metadata("format"), "heptapod-gguf-blocks-fixture");
  const auto types = nlohmann::json::parse(reference().metadata("types"));  // {name: [id, elements, bytes]}
  ASSERT_EQ(types.size(), 13u);
  for (const auto& [name, fields] : types.items()) {
    const GgmlType type = kernels::ggml_type_from_id(fields[0].get<std::uint32_t>());
    const kernels::GgmlTypeInfo& info = kernels::ggml_type_info(type);
    EXPECT_EQ(kernels::ggml_type_name(type), name);
    EXPECT_EQ(info.block_elements, fields[1].get<long>()) << name;
    EXPECT_EQ(info.block_bytes, fields[2].get<long>()) << name;
    EXPECT_EQ(kernels::ggml_row_bytes(type, 3 * info.block_elements), 3 * info.block_bytes) << name;
  }
  EXPECT_EQ(kernels::ggml_row_bytes(GgmlType::Q4_K, 4096), 16 * 144);
  EXPECT_EQ(kernels::ggml_row_bytes(GgmlType::Q8_0, 0), 0);
}

class GgufBlockDecoding : public testing::TestWithParam<const char*> {};

TEST_P(GgufBlockDecoding, EqualsTheFloat64ReferenceRoundedToFloat32) {
  const std::string name = GetParam();
  const std::vector<unsigned char> blocks = bytes_of(name + "/blocks");       // (blocks, bytes per block)
  const std::vector<double> want = reference().floats<double>(name + "/values");  // (blocks * elements)
  const auto types = nlohmann::json::parse(reference().metadata("types"));
  const GgmlType type = kernels::ggml_type_from_id(types.at(name)[0].get<std::uint32_t>());
  const long n = static_cast<long>(want.size());
  ASSERT_EQ(kernels::ggml_row_bytes(type, n), static_cast<long>(blocks.size())) << name;

  std::vector<float> got(want.size(), std::nanf(""));  // (n)
  kernels::dequantize_row(type, blocks.data(), got.data(), n);
  int mismatches = 0;
  for (long i = 0; i < n; ++i) {
    const float expected = static_cast<float>(want[i]);
    if (float_bits(got[i]) != float_bits(expected) && ++mismatches <= 5)
      ADD_FAILURE() << name << " value " << i << " (block " << i / kernels::ggml_type_info(type).block_elements
                    << "): got " << got[i] << ", reference " << want[i];
  }
  EXPECT_EQ(mismatches, 0) << name;
}

INSTANTIATE_TEST_SUITE_P(EveryType, GgufBlockDecoding,
                         testing::Values("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K",
                                         "Q3_K", "Q4_K", "Q5_K", "Q6_K"),
                         [](const testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

using Quantizer = void (*)(const float*, void*, long);

void expect_reference_bytes(const std::string& name, Quantizer quantize, GgmlType type) {
  const std::vector<float> input = reference().floats<float>("quantize/" + name + "/input");  // (rows, 64)
  const std::vector<unsigned char> want = bytes_of("quantize/" + name + "/blocks");  // (rows, 2 blocks)
  const long row = 64, row_bytes = kernels::ggml_row_bytes(type, row);
  ASSERT_EQ(input.size() % row, 0u);
  ASSERT_EQ(want.size(), input.size() / row * row_bytes);
  std::vector<unsigned char> got(want.size());
  quantize(input.data(), got.data(), static_cast<long>(input.size()));
  int mismatches = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && ++mismatches <= 5)
      ADD_FAILURE() << name << " row " << i / row_bytes << " byte " << i % row_bytes << ": got " << int(got[i])
                    << ", reference " << int(want[i]);
  EXPECT_EQ(mismatches, 0) << name;
}

TEST(GgufBlocks, Q8_0QuantizerGivesTheReferenceBytes) {
  expect_reference_bytes("q8_0", kernels::quantize_row_q8_0, GgmlType::Q8_0);
}

TEST(GgufBlocks, Q4_0QuantizerGivesTheReferenceBytes) {
  expect_reference_bytes("q4_0", kernels::quantize_row_q4_0, GgmlType::Q4_0);
}

// x: (n) random rows at several magnitudes, blocks of 32 each with its own spread.
std::vector<float> random_values(long n) {
  std::mt19937 generator(62);
  std::normal_distribution<float> normal;
  std::vector<float> x(n);
  for (long i = 0; i < n; ++i) x[i] = normal(generator) * std::pow(10.0f, static_cast<float>(i / 32 % 7) - 3.0f);
  return x;
}

// Each block's round trip: |x - y| <= bound(d, d16, x) with d the unrounded float scale, d16 the stored one.
template <typename Bound>
void expect_round_trip(Quantizer quantize, GgmlType type, Bound bound) {
  const long n = 32 * 70;
  const std::vector<float> x = random_values(n);  // (n)
  std::vector<unsigned char> blocks(kernels::ggml_row_bytes(type, n));
  quantize(x.data(), blocks.data(), n);
  std::vector<float> y(n);  // (n)
  kernels::dequantize_row(type, blocks.data(), y.data(), n);
  const long block_bytes = kernels::ggml_type_info(type).block_bytes;
  for (long i = 0; i < n; ++i) {
    const unsigned char* block = blocks.data() + i / 32 * block_bytes;
    const float d16 = kernels::from_half_scalar(static_cast<kernels::half>(block[0] | (block[1] << 8)));
    EXPECT_LE(std::abs(double(x[i]) - y[i]), bound(x.data() + i / 32 * 32, d16, x[i])) << "value " << i;
  }
}

// Q8_0: q = round(x / d), d = amax / 127: |x - d q| <= d / 2, and the stored d16 moves each of up to 127 steps
// by |d - d16| (half of a float16 unit: 2^-11 relative, 2^-25 absolute for subnormals).
TEST(GgufBlocks, Q8_0RoundTripStaysWithinItsBound) {
  expect_round_trip(kernels::quantize_row_q8_0, GgmlType::Q8_0, [](const float* block, float d16, float) {
    double amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::abs(double(block[j])));
    const double d = amax / 127;
    return d / 2 + 127 * std::max(d * 0x1p-11, 0x1p-25) + 1e-6 * d;
  });
}

// Q4_0: d = v / -8 with v the largest magnitude; levels -8 .. 7, so x / d in [-8, 7.5] rounds to within
// |d| / 2 and x / d in (7.5, 8] (the sign opposite v's), clipped to level 7, to within |d|; plus 8 steps of
// |d - d16|.
TEST(GgufBlocks, Q4_0RoundTripStaysWithinItsBound) {
  expect_round_trip(kernels::quantize_row_q4_0, GgmlType::Q4_0, [](const float* block, float d16, float x) {
    double amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::abs(double(block[j])));
    const double d = amax / 8, level = std::abs(x) / d;
    const double rounding = level > 7.5 ? d : d / 2;
    return rounding + 8 * std::max(d * 0x1p-11, 0x1p-25) + 1e-6 * d;
  });
}

TEST(GgufBlocks, UnknownTypeIdsAreRefusedByNumber) {
  for (std::uint32_t id : {4u, 5u, 9u, 15u, 16u, 29u, 31u, 4000000000u}) {
    try {
      kernels::ggml_type_from_id(id);
      ADD_FAILURE() << "id " << id << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("unknown ggml tensor type " + std::to_string(id)), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(kernels::ggml_type_from_id(14), GgmlType::Q6_K);
  EXPECT_EQ(kernels::ggml_type_from_id(30), GgmlType::BF16);
}

TEST(GgufBlocks, PartialBlocksAreRefused) {
  std::vector<unsigned char> blocks(210 * 2, 0);
  std::vector<float> out(512);
  EXPECT_THROW(kernels::ggml_row_bytes(GgmlType::Q4_K, 300), Error);
  EXPECT_THROW(kernels::ggml_row_bytes(GgmlType::Q8_0, -32), Error);
  EXPECT_THROW(kernels::ggml_row_bytes(GgmlType::F32, 1L << 62), Error);  // 2^64 bytes
  EXPECT_EQ(kernels::ggml_row_bytes(GgmlType::F32, 1L << 60), 1L << 62);
  EXPECT_THROW(kernels::quantize_row_q8_0(out.data(), blocks.data(), 33), Error);
  EXPECT_THROW(kernels::quantize_row_q4_0(out.data(), blocks.data(), 16), Error);
  try {
    kernels::dequantize_row(GgmlType::Q6_K, blocks.data(), out.data(), 100);
    ADD_FAILURE() << "100 Q6_K values decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Q6_K values must be a whole number of blocks of 256, not 100"),
              std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace heptapod
