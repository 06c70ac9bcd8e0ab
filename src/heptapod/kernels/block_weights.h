// Weights in ggml's block formats (kernels/gguf_blocks.h): W (out, in) kept as the rows of blocks a GGUF file
// stores, 4.5 to 8.5 bits a weight, and computed from those blocks: each product decodes a block's values in
// registers and multiplies them with the float32 input, so no float32 copy of W ever exists and the result
// is the product with the dequantized weights, rounded in float32 (the activations are not quantized).
// A matrix may stack parts of different types (a Q4_K_M file's attn_q in Q4_K beside its attn_v in Q6_K,
// packed as one q|k|v projection): each part keeps its own type and its own rows.
//
// The ggml types computed here: F16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K (F32 and BF16 matrices
// take the float and bfloat16 products instead: pack_weights in model/inference_weights.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/kernels/packed_weights.h"
#include "heptapod/kernels/weight_matrix.h"

namespace heptapod::kernels {

// Whether block_weights computes matrices of this type.
bool is_block_compute_type(GgmlType type);

// One stacked part: `out` rows of ggml_row_bytes(type, in) bytes each, row-major (may be unaligned file data).
struct BlockPart {
  GgmlType type = GgmlType::Q8_0;
  const void* rows = nullptr;
  int out = 0;
};

class BlockWeights final : public WeightMatrix {
 public:
  // The parts (each of a type is_block_compute_type accepts, `in` a multiple of its block size), stacked in
  // order, copied into `storage` when given and it has room. `type` is what type() reports (Int4 for
  // quantize's 4-bit weights, Ggml for a GGUF file's). Throws Error for an empty or bad shape or type.
  BlockWeights(std::span<const BlockPart> parts, int in, ComputeType type, PackedWeightsStorage* storage = nullptr);
  ~BlockWeights() override;

  void forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) const override;
  int column_align() const override;           // 1: any column range
  void row(int o, float* out) const override;  // dequantized as dequantize_row does
  std::size_t bytes() const override;
  ComputeType type() const override;

  // Row o's type and stored blocks (ggml_row_bytes(row_type(o), in) bytes), for saving.
  GgmlType row_type(int o) const;
  const std::uint8_t* row_blocks(int o) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One block product of a type, y (rows, n) = x (rows, in) W^T over the rows of W (n rows of `row_bytes`
// each, ggml blocks), + bias (n) when not null, then ReLU when `relu`. Each ISA has one; tests run every
// variant the CPU has on every type.
using BlockGemmFn = void(GgmlType type, const std::uint8_t* w, long row_bytes, const float* x, int rows, int in,
                         int n, const float* bias, bool relu, float* y, long ldy);
struct BlockGemmVariant {
  const char* name;  // "avx512", "avx2", "baseline"
  BlockGemmFn* run;
};
// Every variant this CPU runs, highest ISA first; the selected ISA's (what BlockWeights uses).
std::vector<BlockGemmVariant> block_gemm_variants();
BlockGemmVariant selected_block_gemm_variant();

}  // namespace heptapod::kernels
