// The residual sub-layer wrapper, post-norm (the paper: LN(x + drop(f(x)))) or pre-norm
// (x + drop(f(LN(x)))), forward and backward around any sub-layer f.
#pragma once

#include <cstring>

#include "heptapod/core/arena.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/layers/dropout_site.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"

namespace heptapod {

enum class NormPosition { Post, Pre };

template <typename T>
struct SublayerSaved {
  LayerNormSaved<T> norm;
  const T* inner_input = nullptr;  // (N, C) what f saw: x (post-norm) or LN(x) (pre-norm)
};

// x: (N, C) -> returns the sub-layer output (N, C), carved from the arena. f(in, out, bias) writes f(in) to
// out, both (N, C), with or without its last bias f_bias: (C) as `bias` says. Post-norm leaves that bias to the
// residual's row pass (OutputBias::Skip); pre-norm has f add it.
template <typename T, typename F>
T* sublayer_forward(NormPosition pos, const LayerNorm<T>& ln, const T* x, int N, const DropoutSite& drop,
                    Arena& arena, SublayerSaved<T>& saved, const T* f_bias, F&& f) {
  const long count = static_cast<long>(N) * ln.C;
  T* y = arena.alloc<T>(count);  // (N, C) f's output, then the residual sum
  if (pos == NormPosition::Post) {
    saved.inner_input = x;
    f(x, y, OutputBias::Skip);
    return residual_layer_norm_forward(ln, x, y, f_bias, N, drop, arena, saved.norm);
  }
  saved.inner_input = layer_norm_forward(ln, x, N, arena, saved.norm);
  f(saved.inner_input, y, OutputBias::Add);
  kernels::dropout_add(x, y, count, drop.rate, drop.seed, drop.stream);
  return y;
}

// dy: (N, C) -> dx: (N, C) assigned. f_back(dy_f, dx_inner, accumulate) back-propagates through f, writing
// (accumulate false) or adding to (accumulate true) dx_inner. f_bias_grad: (C) the gradient of f's last bias
// (added to its output), accumulated here with the column sums of dy_f, so f_back must not add it (skipped
// when null).
template <typename T, typename FB>
void sublayer_backward(NormPosition pos, const LayerNorm<T>& ln, const T* dy, int N, const DropoutSite& drop,
                       const SublayerSaved<T>& saved, Arena& arena, T* dx, T* f_bias_grad, FB&& f_back) {
  const long count = static_cast<long>(N) * ln.C;
  T* dinner = arena.alloc<T>(count);  // (N, C) gradient at f's output
  if (pos == NormPosition::Pre) {
    std::memcpy(dx, dy, sizeof(T) * count);
    kernels::dropout_copy(dy, dinner, count, drop.rate, drop.seed, drop.stream);
    if (f_bias_grad) kernels::bias_backward(dinner, f_bias_grad, N, ln.C);
    T* dnormed = arena.alloc<T>(count);  // (N, C)
    f_back(dinner, dnormed, false);
    layer_norm_backward(ln, dnormed, N, saved.norm, dx, true);
  } else {
    residual_layer_norm_backward(ln, dy, N, saved.norm, drop, dx, dinner, f_bias_grad);
    f_back(dinner, dx, true);
  }
}

}  // namespace heptapod
