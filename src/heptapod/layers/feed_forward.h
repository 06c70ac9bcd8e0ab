// Position-wise feed-forward network: y = drop(act(x W1^T + b1)) W2^T + b2, act ReLU (the paper's), SiLU or
// GELU; or gated (LLaMA's SwiGLU, GeGLU): y = drop(act(x Wg^T + bg) * (x W1^T + b1)) W2^T + b2, W1 being `up`,
// Wg the gate and W2 `down`.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/kernels/activation.h"
#include "heptapod/layers/dropout_site.h"
#include "heptapod/layers/linear.h"

namespace heptapod {

using kernels::Activation;

template <typename T>
struct FeedForward {
  Linear<T> fc1;  // (F, C)
  Linear<T> fc2;  // (C, F)
  Activation activation = Activation::Relu;
  Linear<T> gate;  // (F, C) a gated network's; empty (out 0) otherwise
  bool gated() const { return gate.out > 0; }
};

template <typename T>
struct FeedForwardSaved {
  // (N, F) after bias, activation (and gate) and activation dropout: ReLU's and packed inference's, from the
  // arena; null after a training forward of SiLU and GELU, whose backward pass makes it again from `pre` (and
  // `gate_pre`) by the same operations, so that a layer keeps one (N, F) tensor (two when gated), not two
  // (three).
  T* hidden = nullptr;
  T* pre = nullptr;       // (N, F) x W1^T + b1, kept for the backward pass of SiLU and GELU (null for ReLU)
  T* gate_pre = nullptr;  // (N, F) a gated network's x Wg^T + bg
};

// x: (N, C) -> y: (N, C) assigned (without the second layer's bias with OutputBias::Skip).
template <typename T>
void feed_forward_forward(const FeedForward<T>& ffn, const T* x, int N, const DropoutSite& drop, Arena& arena,
                          FeedForwardSaved<T>& saved, T* y, OutputBias out_bias = OutputBias::Add);

// dy: (N, C) -> dx: (N, C) assigned or accumulated; parameter gradients accumulated, the second layer's bias
// unless the caller summed it (out_bias).
template <typename T>
void feed_forward_backward(const FeedForward<T>& ffn, const T* dy, const T* x, int N, const DropoutSite& drop,
                           const FeedForwardSaved<T>& saved, Arena& arena, T* dx, bool accumulate_dx,
                           BiasGrad out_bias = BiasGrad::Compute);

}  // namespace heptapod
