// The fields of ggml blocks as the block products read them (kernels/gguf_blocks.h describes the layouts):
// little-endian words and float16 scales (the 6-bit sub-block scales of Q4_K / Q5_K: k_scale_min in
// kernels/gguf_blocks.h). Only kernel sources compiled per ISA include this.
#pragma once

#include <cstdint>
#include <cstring>

#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/kernels/half.h"

#ifndef HEPTAPOD_ISA
#error "kernels/isa/ headers belong to kernel sources compiled once per ISA (src/CMakeLists.txt)"
#endif

#include <string>

#include "heptapod/core/error.h"

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


// run(T{}) for the one of Types (each naming its type as kType) that decodes `type`; an Error naming `what`
// for any other type.
template <typename... Types, typename Run>
void for_ggml_type(GgmlType type, const char* what, Run&& run) {
  const bool found = ((type == Types::kType ? (run(Types{}), true) : false) || ...);
  if (!found) throw Error(std::string("no ") + what + " for ggml type " + std::to_string(static_cast<std::uint32_t>(type)));
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
