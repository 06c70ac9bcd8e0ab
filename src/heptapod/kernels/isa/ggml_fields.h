// The fields of ggml blocks as the block products read them (kernels/gguf_blocks.h describes the layouts):
// little-endian words, float16 scales, and the 6-bit sub-block scales and mins of Q4_K / Q5_K. Only kernel
// sources compiled per ISA include this.
#pragma once

#include <cstdint>
#include <cstring>

#include "heptapod/kernels/half.h"

#ifndef HEPTAPOD_ISA
#error "kernels/isa/ headers belong to kernel sources compiled once per ISA (src/CMakeLists.txt)"
#endif

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace heptapod::kernels::HEPTAPOD_ISA {

using Bytes = const std::uint8_t*;

inline std::uint32_t read_u32(Bytes p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline float read_half(Bytes p) {
#if defined(__F16C__)
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
#else
  return from_half_scalar(static_cast<half>(p[0] | (p[1] << 8)));
#endif
}

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K block, from its 12 scale bytes s: for j < 4
// the low 6 bits of s[j] and s[j + 4]; above, the nibbles of s[j + 4] under the top 2 bits of s[j - 4] and s[j].
inline void k_scale_min(Bytes s, int j, int& scale, int& min) {
  if (j < 4) {
    scale = s[j] & 63;
    min = s[j + 4] & 63;
  } else {
    scale = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
