// The kernels behind the int8 and bfloat16 inference weights (kernels/low_precision_weights.h): their packed
// weight layout and the products y = x W^T (+ bias) (then ReLU) over it, one per ISA and, inside the avx512
// build, one more for each of the VNNI and AVX512_BF16 extensions. The weight classes are the callers; the
// variant lists let tests run every path the CPU has.
#pragma once

#include <cstdint>
#include <vector>

namespace heptapod::kernels {

// Both layouts cut W (out, in) into panels of kLowPrecisionPanel columns, each panel a run of k-groups of
// 4 bytes per column: (panels, k_groups, 64, 4 / sizeof(element)). A zmm register holds one k-group of 16
// columns. K is padded with zeros to whole groups, out with zero columns to whole panels.
inline constexpr int kLowPrecisionPanel = 64;
inline constexpr int kInt8Group = 4;  // k values per int8 group
inline constexpr int kBf16Group = 2;  // k values per bfloat16 group

struct Int8Panels {
  const std::int8_t* values = nullptr;         // (panels, k_groups, 64, 4)
  const std::int32_t* compensation = nullptr;  // (panels * 64): 128 * sum_i W[o][i], for the u8 x s8 product
  const float* scales = nullptr;               // (panels * 64): W[o][i] = values * scales[o], 0 past out
  int in = 0, k_groups = 0;
};

struct Bf16Panels {
  const std::uint16_t* values = nullptr;  // (panels, k_groups, 64, 2): bfloat16 bits
  int in = 0, k_groups = 0;
};

// Columns [n0, n0 + n) of the product, n0 a multiple of kLowPrecisionPanel: x (rows, in) -> y (rows, n);
// bias (the full out) or null. int8: each x row is quantized to int8 with its own scale and the integer
// products are exact; bfloat16: x is rounded to bfloat16, products accumulate in float.
void int8_gemm(const Int8Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y);
void bf16_gemm(const Bf16Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y);
// x (n) -> bfloat16 bits (n), round to nearest even; NaN stays NaN (quiet).
void to_bfloat16(const float* x, long n, std::uint16_t* out);

// One way of computing a product, named like "avx512-vnni" or "avx2".
template <typename Fn>
struct LowPrecisionVariant {
  const char* name;
  Fn* run;
};
using Int8Variant = LowPrecisionVariant<decltype(int8_gemm)>;
using Bf16Variant = LowPrecisionVariant<decltype(bf16_gemm)>;

// Every variant this CPU runs, of every ISA this binary holds, best first within an ISA and highest ISA
// first. All int8 variants give bit-identical results.
std::vector<Int8Variant> int8_variants();
std::vector<Bf16Variant> bf16_variants();
// The variants the selected ISA's table uses.
Int8Variant selected_int8_variant();
Bf16Variant selected_bf16_variant();

}  // namespace heptapod::kernels
