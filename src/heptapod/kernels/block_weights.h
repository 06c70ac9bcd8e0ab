// Weights in ggml's block formats (kernels/gguf_blocks.h): W (out, in) kept as the rows of blocks a GGUF file
// stores, 4.5 to 8.5 bits a weight, and computed from those blocks, decoded in registers: no float32 copy of W
// ever exists. Two products:
//   integer (the default for every type but F16): the input quantized to 8 bits per block of 32
//     (BlockActivations), each sub-block's 32 weights multiplied with it as exact integer products, scaled in
//     float: as llama.cpp computes them. Q4_0, Q5_0, Q8_0, Q4_K and Q6_K rows are stored in groups of kGroupRows
//     (group_block_rows), so that one instruction multiplies 4 weights of each of 16 rows and the 16 rows'
//     scales convert at once; the rows past the last whole group stay as they are;
//   float (F16, and every type under HEPTAPOD_BLOCK_ACTIVATIONS=float32): the block's values decoded to float
//     and multiplied with the float32 input, so the result is the product with the dequantized weights, rounded
//     in float32 (what the parity tests against dequantized checkpoints use).
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
// Whether its product is the integer one (every block compute type but F16, unless float32 is chosen).
bool has_integer_block_product(GgmlType type);

// The activations' precision in the block products of the BlockWeights made from now on: Int8 (per block of
// 32, the default) or Float32. The default comes from HEPTAPOD_BLOCK_ACTIVATIONS=int8|float32 (read on first
// use; other text is an Error); the setter overrides it (tests compare the two).
enum class BlockActivationPrecision { Int8, Float32 };
BlockActivationPrecision block_activation_precision();
void set_block_activation_precision(BlockActivationPrecision precision);

// Activations as the integer products take them: each row's `in` values (a multiple of 32) in blocks of 32,
// block b with the scale d = max |x| / 127 and q = round-to-nearest-even(x / d), clamped to [-127, 127]; an
// all-zero block (or one whose d underflows to 0) has d = 0 and q = 0, one holding a NaN or infinity d = NaN.
// Rows are padded with zeros (q = 0, d = 0) to a multiple of 64 values, padded_in().
struct BlockActivations {
  int rows = 0;
  long in = 0;
  std::vector<std::int8_t> q;           // (rows, padded_in)
  std::vector<std::int32_t> neg_sums;   // (rows, padded_in / 4): minus the sum of each 4 consecutive q
  std::vector<float> lane_scales;       // (rows, padded_in / 4): d of the block of each 4 consecutive q
  std::vector<float> scales;            // (rows, padded_in / 32): d
  std::vector<float> scaled_sums;       // (rows, padded_in / 32): d * (the sum of the block's q)
  std::vector<std::int32_t> neg_block_sums;  // (rows, padded_in / 32): minus the sum of the block's q
  std::vector<std::int32_t> neg_half_sums;   // (rows, padded_in / 16): minus the sum of each 16 consecutive q
  long padded_in() const { return (in + 63) / 64 * 64; }
};
// x (rows, in) quantized into `a` (its buffers reused). Throws Error when in is not a multiple of 32.
void quantize_block_activations(const float* x, int rows, long in, BlockActivations& a);

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

  // Whether row o takes the integer product (chosen at construction).
  bool integer_product(int o) const;
  // Row o's type and its blocks as ggml stores them (ggml_row_bytes(row_type(o), in) bytes into `blocks`).
  GgmlType row_type(int o) const;
  void row_blocks(int o, std::uint8_t* blocks) const;

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

// The integer product of a type with has_integer_block_product: y (x.rows, n) = x W^T over the rows of W as
// above, + bias, then ReLU. Each ISA has one or two (avx512-vnni); the same lists as above.
using BlockDotFn = void(GgmlType type, const std::uint8_t* w, long row_bytes, const BlockActivations& x, int n,
                        const float* bias, bool relu, float* y, long ldy);
// The same over rows in groups (group_block_rows; Q4_0, Q5_0, Q8_0, Q4_K, Q6_K): columns [c0, c1) of the grouped rows
// `groups`, bias and y from column c0; row_bytes: group_row_bytes.
using BlockGroupFn = void(GgmlType type, const std::uint8_t* groups, long row_bytes, const BlockActivations& x, int c0,
                          int c1, const float* bias, bool relu, float* y, long ldy);
struct BlockDotVariant {
  const char* name;  // "avx512-vnni", "avx512", "avx2", "baseline"
  BlockDotFn* run;
  BlockGroupFn* run_groups;
};

// Rows in groups: kGroupRows rows of Q4_0, Q5_0, Q8_0, Q4_K or Q6_K blocks (in values each) as one run of blocks, block b of the
// group holding the 16 rows' float16 scales d (32 bytes), then their values 4 at a time, rows 0-15 for
// values 0-3, rows 0-15 for values 4-7, ... (Q4_0: 4 x 64 bytes of nibble pairs qs[4t .. 4t + 3], values
// 4t.. and 16 + 4t..; Q5_0: the same after 64 bytes of fifth bits, for t = 0..3 8 bytes whose bit 4r + k is
// value 4t + k's of row r, then 8 for values 16 + 4t + k; Q8_0: 8 x 64 bytes of w + 128 as unsigned bytes):
// as many bytes as the rows. rows, groups: (out, row_bytes), out a multiple of
// kGroupRows. has_row_groups: whether a type is stored so (when it takes the integer product).
// Q4_K: each 256-value block of the 16 rows as d (32 bytes), dmin (32), the 8 sub-blocks' 6-bit scales as
// bytes, rows 0-15 for sub-block 0, ... (128), their mins (128), then the values: for each 32 bytes c of qs,
// 8 x 64 bytes of qs[32c + 4t .. 32c + 4t + 3] (low nibbles: sub-block 2c, high: 2c + 1); kGroupBytesQ4K in
// all, 148 bytes a row's block against ggml's 144. Q6_K: each 256-value block of the 16 rows as d (32 bytes),
// the 16 int8 scales of each row, rows 0-15 for scale 0, ... (256), then for each half h of 128 values and
// t = 0..7: 64 bytes of ql[64h + 4t ..], of ql[64h + 32 + 4t ..], of qh[32h + 4t ..] (3072): 210 bytes a row's
// block, as ggml's.
inline constexpr int kGroupRows = 16;
inline constexpr long kGroupBytesQ4K = 2368, kGroupBytesQ6K = 3360;
inline bool has_row_groups(GgmlType type) {
  return type == GgmlType::Q4_0 || type == GgmlType::Q5_0 || type == GgmlType::Q8_0 || type == GgmlType::Q4_K ||
         type == GgmlType::Q6_K;
}
// Bytes a row takes in groups.
long group_row_bytes(GgmlType type, int in);
void group_block_rows(GgmlType type, const std::uint8_t* rows, int out, int in, std::uint8_t* groups);
// Row j of grouped rows back in ggml's layout (row_bytes bytes into `blocks`).
void ungroup_block_row(GgmlType type, const std::uint8_t* groups, int in, int j, std::uint8_t* blocks);
std::vector<BlockDotVariant> block_dot_variants();
BlockDotVariant selected_block_dot_variant();

}  // namespace heptapod::kernels
