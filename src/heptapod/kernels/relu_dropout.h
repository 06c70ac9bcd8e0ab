// The feed-forward network's element-wise work in one pass each way: bias, ReLU and activation dropout
// forward; dropout, ReLU gradient and bias gradient backward. Each replaces three or four passes over the
// (N, d_ff) hidden activations.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

// hidden: (N, F) x W^T in, relu(x W^T + bias) out (bias may be null). dropped: (N, F) assigned dropout(hidden) with the mask
// of dropout(seed, stream) over the whole (N, F) tensor; may be hidden itself when p == 0.
template <typename T>
void bias_relu_dropout_forward(T* hidden, T* dropped, const T* bias, int N, int F, float p, std::uint64_t seed,
                               std::uint64_t stream);

// grad: (N, F) dL/d(dropped) in, dL/d(x W^T + bias) out; hidden: (N, F) the forward's ReLU output; dbias: (F)
// accumulated with the column sums of the result (skipped when null).
template <typename T>
void relu_dropout_backward(T* grad, const T* hidden, T* dbias, int N, int F, float p, std::uint64_t seed,
                           std::uint64_t stream);

}  // namespace heptapod::kernels
