// Feed-forward network: two linear layers around the activation (a gated network's times its `up` product)
// and activation dropout. ReLU runs fused with
// the bias and the dropout (and, packed for inference, inside the product); SiLU and GELU keep their input for
// the backward pass and regenerate the dropout mask there.
#include "heptapod/layers/feed_forward.h"

#include "heptapod/core/error.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/relu_dropout.h"

namespace heptapod {

namespace {

// The gated network's hidden rows: saved.pre = x W1^T + b1 and saved.gate_pre = x Wg^T + bg kept (training),
// saved.hidden = drop(act(gate_pre) * pre).
template <typename T>
void gated_hidden(const FeedForward<T>& ffn, const T* x, int N, const DropoutSite& drop, Arena& arena,
                  FeedForwardSaved<T>& saved) {
  const long count = static_cast<long>(N) * ffn.fc1.out;
  T* up = arena.alloc<T>(count);    // (N, F)
  T* gate = arena.alloc<T>(count);  // (N, F)
  linear_forward(ffn.fc1, x, N, up);
  linear_forward(ffn.gate, x, N, gate);
  kernels::bias_activation_forward(gate, static_cast<const T*>(nullptr), saved.hidden, N, ffn.fc1.out, ffn.activation);
#pragma omp parallel for schedule(static) if (count > kernels::kParallelMinWork)
  for (long i = 0; i < count; ++i) saved.hidden[i] *= up[i];
  kernels::dropout(saved.hidden, count, drop.rate, drop.seed, drop.stream);
  saved.pre = up;
  saved.gate_pre = gate;
}

}  // namespace

template <typename T>
void feed_forward_forward(const FeedForward<T>& ffn, const T* x, int N, const DropoutSite& drop, Arena& arena,
                          FeedForwardSaved<T>& saved, T* y, OutputBias out_bias) {
  const int F = ffn.fc1.out;
  const long count = static_cast<long>(N) * F;
  const bool relu = ffn.activation == Activation::Relu;
  saved.hidden = arena.alloc<T>(count);  // (N, F)
  saved.pre = saved.gate_pre = nullptr;
  if (ffn.gated()) {
    require(!ffn.fc1.packed || drop.rate == 0, "feed_forward: dropout with weights packed for inference");
    gated_hidden(ffn, x, N, drop, arena, saved);
  } else if (ffn.fc1.packed) {  // inference: the bias (and ReLU) inside the packed product, no dropout
    require(drop.rate == 0, "feed_forward: dropout with weights packed for inference");
    if (relu) {
      linear_relu_forward(ffn.fc1, x, N, saved.hidden);
    } else {
      linear_forward(ffn.fc1, x, N, saved.hidden);
      kernels::activation_forward(saved.hidden, count, ffn.activation);
    }
  } else if (relu) {
    linear_product(ffn.fc1, x, N, saved.hidden);
    kernels::bias_relu_dropout_forward(saved.hidden, ffn.fc1.b, N, F, drop.rate, drop.seed, drop.stream);
  } else {
    saved.pre = arena.alloc<T>(count);  // (N, F)
    linear_product(ffn.fc1, x, N, saved.pre);
    kernels::bias_activation_forward(saved.pre, ffn.fc1.b, saved.hidden, N, F, ffn.activation);
    kernels::dropout(saved.hidden, count, drop.rate, drop.seed, drop.stream);
  }
  linear_forward(ffn.fc2, saved.hidden, N, y, out_bias);
}

template <typename T>
void feed_forward_backward(const FeedForward<T>& ffn, const T* dy, const T* x, int N, const DropoutSite& drop,
                           const FeedForwardSaved<T>& saved, Arena& arena, T* dx, bool accumulate_dx,
                           BiasGrad out_bias) {
  const int F = ffn.fc1.out;
  const long count = static_cast<long>(N) * F;
  T* dhidden = arena.alloc<T>(count);  // (N, F)
  linear_backward(ffn.fc2, dy, saved.hidden, N, dhidden, false, out_bias);
  if (ffn.gated()) {
    require(saved.gate_pre != nullptr, "feed_forward: backward pass without a training forward pass");
    kernels::dropout(dhidden, count, drop.rate, drop.seed, drop.stream);  // the same mask
    // hidden = act(g) * u: du = dhidden * act(g), then dg = act'(g) * dhidden * u.
    T* dup = arena.alloc<T>(count);  // (N, F)
    kernels::bias_activation_forward(saved.gate_pre, static_cast<const T*>(nullptr), dup, N, F, ffn.activation);
#pragma omp parallel for schedule(static) if (count > kernels::kParallelMinWork)
    for (long i = 0; i < count; ++i) {
      dup[i] *= dhidden[i];
      dhidden[i] *= saved.pre[i];
    }
    kernels::activation_backward(dhidden, saved.gate_pre, ffn.gate.db, N, F, ffn.activation);
    linear_backward(ffn.gate, dhidden, x, N, dx, accumulate_dx, BiasGrad::Done);
    linear_backward(ffn.fc1, dup, x, N, dx, true);
    return;
  }
  if (ffn.activation == Activation::Relu) {
    kernels::relu_dropout_backward(dhidden, saved.hidden, ffn.fc1.db, N, F, drop.rate);
  } else {
    require(saved.pre != nullptr, "feed_forward: backward pass without a training forward pass");
    kernels::dropout(dhidden, static_cast<long>(N) * F, drop.rate, drop.seed, drop.stream);  // the same mask
    kernels::activation_backward(dhidden, saved.pre, ffn.fc1.db, N, F, ffn.activation);
  }
  linear_backward(ffn.fc1, dhidden, x, N, dx, accumulate_dx, BiasGrad::Done);
}

template void feed_forward_forward<float>(const FeedForward<float>&, const float*, int, const DropoutSite&, Arena&,
                                          FeedForwardSaved<float>&, float*, OutputBias);
template void feed_forward_forward<double>(const FeedForward<double>&, const double*, int, const DropoutSite&,
                                           Arena&, FeedForwardSaved<double>&, double*, OutputBias);
template void feed_forward_backward<float>(const FeedForward<float>&, const float*, const float*, int,
                                           const DropoutSite&, const FeedForwardSaved<float>&, Arena&, float*, bool,
                                           BiasGrad);
template void feed_forward_backward<double>(const FeedForward<double>&, const double*, const double*, int,
                                            const DropoutSite&, const FeedForwardSaved<double>&, Arena&, double*,
                                            bool, BiasGrad);

}  // namespace heptapod
