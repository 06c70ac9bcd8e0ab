// Inverted dropout with masks regenerated from (seed, stream, index) instead of stored.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

// x: (n) in place: each element is kept with probability 1 - p and scaled by 1 / (1 - p), else zeroed.
// Element i's fate depends only on (seed, stream, i), so applying the same call to the gradient is the
// backward pass. p == 0 is a no-op.
template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream);

// dst: (n) = dropout(src), the mask of dropout(seed, stream) over (n); a copy when p == 0.
template <typename T>
void dropout_copy(const T* src, T* dst, long n, float p, std::uint64_t seed, std::uint64_t stream);

// A residual connection: delta: (n) in place = x + dropout(delta).
template <typename T>
void dropout_add(const T* x, T* delta, long n, float p, std::uint64_t seed, std::uint64_t stream);

// The same on a slice, serially: x holds elements [first, first + n) of a tensor whose mask is keyed by
// (seed, stream), so element i here has index first + i. For callers already inside a parallel loop.
template <typename T>
void dropout_slice(T* x, long n, std::uint64_t first, float p, std::uint64_t seed, std::uint64_t stream);
// The slice dropped into dst: (n) = dropout(src) with src's indices [first, first + n); a copy when p == 0.
// dst may be src.
template <typename T>
void dropout_copy_slice(const T* src, T* dst, long n, std::uint64_t first, float p, std::uint64_t seed,
                        std::uint64_t stream);

// Dropout's backward pass read off its output instead of regenerating the mask: grad (n) scaled by
// 1 / (1 - p) where out (n) is nonzero, zeroed elsewhere. It differs from dropout(grad) only where a kept input
// was exactly 0, so it serves where those gradients are then multiplied by that input: the attention
// probabilities in the softmax backward pass.
template <typename T>
void dropout_backward_from_output(T* grad, const T* out, long n, float p);

}  // namespace heptapod::kernels
