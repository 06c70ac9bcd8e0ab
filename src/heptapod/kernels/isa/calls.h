// Kernels that one ISA source calls from another within the same ISA (direct calls, not through the table).
#pragma once

#include <cstdint>

#ifndef HEPTAPOD_ISA
#error "kernels/isa/ headers belong to kernel sources compiled once per ISA (src/CMakeLists.txt)"
#endif

namespace heptapod::kernels::HEPTAPOD_ISA {

// See kernels/transpose.h.
template <typename T>
void transpose(const T* in, int rows, int cols, int ld_in, T* out, int ld_out);
// See kernels/dropout.h.
template <typename T>
void dropout_slice(T* x, long n, std::uint64_t first, float p, std::uint64_t seed, std::uint64_t stream);
template <typename T>
void dropout_copy_slice(const T* src, T* dst, long n, std::uint64_t first, float p, std::uint64_t seed,
                        std::uint64_t stream);

}  // namespace heptapod::kernels::HEPTAPOD_ISA
