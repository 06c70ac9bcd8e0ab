// The tensor types of GGUF files (ggml's type ids) and their block formats: each type's block size and bytes
// per block, a scalar decoder of a row of blocks to float32, and the reference quantizers of Q8_0 and Q4_0 (as
// llama.cpp's quantize_row_*_ref define them, for writing GGUF). Layouts: docs/models.md section 4 "Block
// formats". Plain loops, no intrinsics: this is the oracle the faster block kernels are checked against.
// Not here: reading GGUF files (io); quantizers of the other types.
#pragma once

#include <cstdint>
#include <vector>

namespace heptapod::kernels {

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K block, from its 12 scale bytes s: for j < 4
// the low 6 bits of s[j] and s[j + 4]; above, the nibbles of s[j + 4] under the top 2 bits of s[j - 4] and s[j].
inline void k_scale_min(const std::uint8_t* s, int j, int& scale, int& min) {
  if (j < 4) {
    scale = s[j] & 63;
    min = s[j + 4] & 63;
  } else {
    scale = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}
// The 12 scale bytes of 8 such scales and mins (each below 64): k_scale_min's inverse.
void pack_k_scales(const int* scales, const int* mins, std::uint8_t* s);

// ggml's type ids, as stored in a GGUF tensor table (ggml_type).
enum class GgmlType : std::uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  BF16 = 30,
};

struct GgmlTypeInfo {
  GgmlType type;
  const char* name;     // "Q4_K", as ggml names it
  long block_elements;  // values per block (1 for the float types)
  long block_bytes;     // bytes per block
};

// The layout of a stored id; nullptr if ggml has no such type here.
const GgmlTypeInfo* find_ggml_type(std::uint32_t id);
// The type of a stored id; throws Error naming the id by number if ggml has no such type here.
GgmlType ggml_type_from_id(std::uint32_t id);
const GgmlTypeInfo& ggml_type_info(GgmlType type);
const char* ggml_type_name(GgmlType type);
// Bytes of a row of n values; throws Error unless n is a non-negative multiple of the block size whose bytes
// fit in a long.
long ggml_row_bytes(GgmlType type, long n);

// blocks: ggml_row_bytes(type, n) bytes -> out: (n) float32, every type above. Throws Error for an n that is not
// a multiple of the block size.
void dequantize_row(GgmlType type, const void* blocks, float* out, long n);

// Whether every float field of a row of n values is finite: the values of F32, F16 and BF16, the float16
// scales and minimums of the block types (the quantized values are finite by construction).
bool ggml_row_finite(GgmlType type, const void* blocks, long n);

// x: (n) -> blocks: (n / 32) Q8_0 blocks of 34 bytes: d = amax / 127, q = round(x * (1 / d)) (halves away from
// zero), in float32; d is stored as float16 (infinite past 65504, i.e. amax above about 8.3e6).
void quantize_row_q8_0(const float* x, void* blocks, long n);
// x: (n) -> blocks: (n / 32) Q4_0 blocks of 18 bytes: d = v / -8 with v the value of largest magnitude (the
// first such), q = min(15, trunc(x * (1 / d) + 8.5)), each step rounded to float32.
void quantize_row_q4_0(const float* x, void* blocks, long n);

// x: (n) -> (ggml_row_bytes(type, n)) bytes of `type`, for the types Heptapod writes: F32 (as it is), F16
// (rounded to nearest even), Q8_0 and Q4_0 (the quantizers above); Error naming another type.
void quantize_row(GgmlType type, const float* x, void* blocks, long n);
// w: (rows, n) -> (rows, ggml_row_bytes(type, n)) bytes, each row by quantize_row.
std::vector<unsigned char> quantize_rows(GgmlType type, const float* w, long rows, long n);

}  // namespace heptapod::kernels
