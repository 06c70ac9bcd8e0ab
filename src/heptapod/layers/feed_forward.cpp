// Feed-forward network: two linear layers around the activation (a gated network's times its `up` product)
// and activation dropout. ReLU runs fused with
// the bias and the dropout (and, packed for inference, inside the product) and keeps its output for the
// backward pass; SiLU and GELU keep their input alone, and the backward pass makes the activation's output
// again from it (the same operations, the same bits) in rows of the thread's own, as it regenerates the dropout
// mask: an (N, F) tensor per layer less to keep until backward.
#include "heptapod/layers/feed_forward.h"

#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/relu_dropout.h"

namespace heptapod {

namespace {

// Room for one layer's (N, F) hidden rows while they are used (the forward's second product, the backward's
// first), reused by every layer: a smooth activation's rows are not kept between the passes.
template <typename T>
T* transient_rows(long count) {
  thread_local std::vector<T> rows;
  if (rows.size() < static_cast<std::size_t>(count)) rows.resize(static_cast<std::size_t>(count));
  return rows.data();
}

// The hidden rows of a smooth activation from the kept pre-activations, into hidden (N, F): drop(act(pre)),
// or for a gated network drop(act(gate_pre) * pre) with act(gate_pre) also left in `gate_act` (when not null).
template <typename T>
void smooth_hidden(const FeedForward<T>& ffn, const FeedForwardSaved<T>& saved, int N, const DropoutSite& drop,
                   T* hidden, T* gate_act = nullptr) {
  const int F = ffn.fc1.out;
  const long count = static_cast<long>(N) * F;
  if (ffn.gated()) {
    T* act = gate_act ? gate_act : hidden;
    kernels::bias_activation_forward(saved.gate_pre, static_cast<const T*>(nullptr), act, N, F, ffn.activation);
#pragma omp parallel for schedule(static) if (count > kernels::kParallelMinWork)
    for (long i = 0; i < count; ++i) hidden[i] = act[i] * saved.pre[i];
  } else {
    kernels::bias_activation_forward(saved.pre, static_cast<const T*>(nullptr), hidden, N, F, ffn.activation);
  }
  kernels::dropout(hidden, count, drop.rate, drop.seed, drop.stream);
}

}  // namespace

template <typename T>
void feed_forward_forward(const FeedForward<T>& ffn, const T* x, int N, const DropoutSite& drop, Arena& arena,
                          FeedForwardSaved<T>& saved, T* y, OutputBias out_bias) {
  const int F = ffn.fc1.out;
  const long count = static_cast<long>(N) * F;
  const bool relu = ffn.activation == Activation::Relu;
  saved = {};
  if (ffn.fc1.packed) {  // inference: the bias (and ReLU) inside the packed product, no dropout
    require(drop.rate == 0, "feed_forward: dropout with weights packed for inference");
    saved.hidden = arena.alloc<T>(count);  // (N, F)
    if (ffn.gated()) {
      T* up = arena.alloc<T>(count);  // (N, F)
      linear_forward(ffn.fc1, x, N, up);
      linear_forward(ffn.gate, x, N, saved.hidden);
      kernels::activation_forward(saved.hidden, count, ffn.activation);
#pragma omp parallel for schedule(static) if (count > kernels::kParallelMinWork)
      for (long i = 0; i < count; ++i) saved.hidden[i] *= up[i];
    } else if (relu) {
      linear_relu_forward(ffn.fc1, x, N, saved.hidden);
    } else {
      linear_forward(ffn.fc1, x, N, saved.hidden);
      kernels::activation_forward(saved.hidden, count, ffn.activation);
    }
    linear_forward(ffn.fc2, saved.hidden, N, y, out_bias);
    return;
  }
  if (relu && !ffn.gated()) {
    saved.hidden = arena.alloc<T>(count);  // (N, F)
    linear_product(ffn.fc1, x, N, saved.hidden);
    kernels::bias_relu_dropout_forward(saved.hidden, ffn.fc1.b, N, F, drop.rate, drop.seed, drop.stream);
    linear_forward(ffn.fc2, saved.hidden, N, y, out_bias);
    return;
  }
  saved.pre = arena.alloc<T>(count);  // (N, F) x W1^T + b1
  linear_forward(ffn.fc1, x, N, saved.pre);
  if (ffn.gated()) {
    saved.gate_pre = arena.alloc<T>(count);  // (N, F) x Wg^T + bg
    linear_forward(ffn.gate, x, N, saved.gate_pre);
  }
  T* hidden = transient_rows<T>(count);  // (N, F)
  smooth_hidden(ffn, saved, N, drop, hidden);
  linear_forward(ffn.fc2, hidden, N, y, out_bias);
}

template <typename T>
void feed_forward_backward(const FeedForward<T>& ffn, const T* dy, const T* x, int N, const DropoutSite& drop,
                           const FeedForwardSaved<T>& saved, Arena& arena, T* dx, bool accumulate_dx,
                           BiasGrad out_bias) {
  const int F = ffn.fc1.out;
  const long count = static_cast<long>(N) * F;
  T* dhidden = arena.alloc<T>(count);  // (N, F)
  if (ffn.activation == Activation::Relu && !ffn.gated()) {
    require(saved.hidden != nullptr, "feed_forward: backward pass without a training forward pass");
    linear_backward(ffn.fc2, dy, saved.hidden, N, dhidden, false, out_bias);
    kernels::relu_dropout_backward(dhidden, saved.hidden, ffn.fc1.db, N, F, drop.rate);
    linear_backward(ffn.fc1, dhidden, x, N, dx, accumulate_dx, BiasGrad::Done);
    return;
  }
  require(saved.pre != nullptr && (saved.gate_pre != nullptr || !ffn.gated()),
          "feed_forward: backward pass without a training forward pass");
  T* hidden = transient_rows<T>(count);                               // (N, F) the forward's, made again
  T* gate_act = ffn.gated() ? arena.alloc<T>(count) : nullptr;        // (N, F) act(gate_pre)
  smooth_hidden(ffn, saved, N, drop, hidden, gate_act);
  linear_backward(ffn.fc2, dy, hidden, N, dhidden, false, out_bias);
  kernels::dropout(dhidden, count, drop.rate, drop.seed, drop.stream);  // the same mask
  if (ffn.gated()) {
    // hidden = act(g) * u: du = dhidden * act(g), then dg = act'(g) * dhidden * u.
#pragma omp parallel for schedule(static) if (count > kernels::kParallelMinWork)
    for (long i = 0; i < count; ++i) {
      gate_act[i] *= dhidden[i];
      dhidden[i] *= saved.pre[i];
    }
    kernels::activation_backward(dhidden, saved.gate_pre, ffn.gate.db, N, F, ffn.activation);
    linear_backward(ffn.gate, dhidden, x, N, dx, accumulate_dx, BiasGrad::Done);
    linear_backward(ffn.fc1, gate_act, x, N, dx, true);
    return;
  }
  kernels::activation_backward(dhidden, saved.pre, ffn.fc1.db, N, F, ffn.activation);
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
