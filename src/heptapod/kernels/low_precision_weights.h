// Int8 and bfloat16 inference weights: W (out, in) stored in a quarter or half of float32's bytes, in the
// panel layout of the low-precision kernels (kernels/low_precision_gemm.h). A decoding step streams every
// weight from memory once, so fewer bytes are a faster step; with many rows the integer and bfloat16 dot
// products do more per instruction than float FMAs.
//
// Int8: per output row o a scale s_o, W[o][i] = values[o][i] * s_o. forward_columns quantizes each input row
// r on the fly with its own scale a_r = max |x_r| / 127 (q = round-to-nearest-even(x / a_r) in [-127, 127];
// an all-zero row gives zeros, a row holding inf or NaN gives a NaN output row), sums q * values exactly in
// int32 and returns float(sum) * (a_r * s_o) (+ bias) (ReLU). The integer sums are exact and the float
// epilogue is the same operations on every path, so a row's outputs are the same bits whatever its
// batch-mates, the thread count or the ISA.
//
// Bfloat16: x is rounded to bfloat16 element by element and the products are summed in float (+ bias)
// (ReLU); the summation order depends on the ISA's path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "heptapod/kernels/low_precision_gemm.h"
#include "heptapod/kernels/packed_weights.h"
#include "heptapod/kernels/weight_matrix.h"

namespace heptapod::kernels {

// w (out, in) -> values (out, in) and scales (out): scales[o] = max_i |w[o][i]| / 127 (0 for an all-zero
// row), values = round-to-nearest-even(w / scales[o]) clamped to [-127, 127]. Error for a row holding inf or
// NaN.
void quantize_rows_int8(const float* w, int out, int in, std::int8_t* values, float* scales);

// to_bfloat16(x, n, bits), round to nearest even, comes with kernels/low_precision_gemm.h; its inverse:
float from_bfloat16(std::uint16_t bits);

class Int8Weights final : public WeightMatrix {
 public:
  // values (out, in) row-major, scales (out) finite and >= 0; copied, into `storage` when given and it has
  // room. Throws Error for an empty shape or a bad scale.
  Int8Weights(const std::int8_t* values, const float* scales, int out, int in, PackedWeightsStorage* storage = nullptr);
  ~Int8Weights() override;

  void forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) const override;
  int column_align() const override;           // the 64-column panel
  void row(int o, float* out) const override;  // values * scale
  std::size_t bytes() const override;
  ComputeType type() const override { return ComputeType::Int8; }

  // The stored form, for saving: row o's values (in), and its scale.
  void values(int o, std::int8_t* out) const;
  float scale(int o) const;
  // The packed form the kernels read (tests run every variant of int8_variants() on it).
  const Int8Panels& panels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Bf16Weights final : public WeightMatrix {
 public:
  // values (out, in) row-major bfloat16 bits; copied, into `storage` when given and it has room.
  Bf16Weights(const std::uint16_t* values, int out, int in, PackedWeightsStorage* storage = nullptr);
  ~Bf16Weights() override;

  void forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) const override;
  int column_align() const override;  // the 64-column panel
  void row(int o, float* out) const override;
  std::size_t bytes() const override;
  ComputeType type() const override { return ComputeType::BFloat16; }

  // Row o's bfloat16 bits (in), for saving.
  void values(int o, std::uint16_t* out) const;
  // The packed form the kernels read (tests run every variant of bf16_variants() on it).
  const Bf16Panels& panels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The path each type's product takes on this CPU under the selected ISA, e.g.
// "int8 avx512-vnni, bfloat16 avx512-bf16".
std::string low_precision_paths();

}  // namespace heptapod::kernels
