// The feed-forward network's element-wise work in one pass each way: bias, ReLU and activation dropout
// forward, in place; the ReLU-and-dropout gradient and the bias gradient backward. Only the result is kept for
// the backward pass: an element passed its input on exactly where that result is positive.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

// hidden: (N, F) x W^T in, dropout(relu(x W^T + bias)) out (bias may be null), with the mask of
// dropout(seed, stream) over the whole (N, F) tensor.
template <typename T>
void bias_relu_dropout_forward(T* hidden, const T* bias, int N, int F, float p, std::uint64_t seed,
                               std::uint64_t stream);

// grad: (N, F) dL/d(out) in, dL/d(x W^T + bias) out; out: (N, F) the forward's result, positive exactly where
// ReLU passed an element and dropout kept it, so the mask is not regenerated: grad is scaled by 1 / (1 - p)
// there and zeroed elsewhere. dbias: (F) accumulated with the column sums of the result (skipped when null).
template <typename T>
void relu_dropout_backward(T* grad, const T* out, T* dbias, int N, int F, float p);

}  // namespace heptapod::kernels
