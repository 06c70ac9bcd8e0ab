// Inverted dropout with masks regenerated from (seed, stream, index) instead of stored.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

// x: (n) in place: each element is kept with probability 1 - p and scaled by 1 / (1 - p), else zeroed.
// Element i's fate depends only on (seed, stream, i), so applying the same call to the gradient is the
// backward pass. p == 0 is a no-op.
template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream);

}  // namespace heptapod::kernels
