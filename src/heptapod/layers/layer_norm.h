// Layer norm (or RMSNorm) as a layer: parameters plus the statistics saved for its backward pass.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/layers/dropout_site.h"

namespace heptapod {

// A layer norm, or an RMSNorm (LLaMA's) when it has no shift: beta and dbeta null, neither centred nor shifted.
template <typename T>
struct LayerNorm {
  T* gamma = nullptr;   // (C)
  T* beta = nullptr;    // (C), null for an RMSNorm
  T* dgamma = nullptr;  // (C) accumulated
  T* dbeta = nullptr;   // (C) accumulated, null for an RMSNorm
  int C = 0;
  T eps = T(1e-5);
};

template <typename T>
struct LayerNormSaved {
  const T* x = nullptr;  // (N, C) the input
  T* mean = nullptr;     // (N)
  T* rstd = nullptr;     // (N)
};

// x: (N, C) -> returns y: (N, C) carved from the arena.
template <typename T>
T* layer_norm_forward(const LayerNorm<T>& ln, const T* x, int N, Arena& arena, LayerNormSaved<T>& saved);

// Post-norm residual: delta: (N, C) in place becomes x + dropout(delta + bias), the norm's saved input;
// returns LN(delta): (N, C) carved from the arena. One pass. bias: (C) or null.
template <typename T>
T* residual_layer_norm_forward(const LayerNorm<T>& ln, const T* x, T* delta, const T* bias, int N,
                               const DropoutSite& drop, Arena& arena, LayerNormSaved<T>& saved);

// dy: (N, C) -> dx: (N, C) assigned or accumulated; parameter gradients accumulated.
template <typename T>
void layer_norm_backward(const LayerNorm<T>& ln, const T* dy, int N, const LayerNormSaved<T>& saved, T* dx,
                         bool accumulate_dx);

// The post-norm residual's backward in one pass: dy: (N, C) -> dx: (N, C) assigned (the gradient at the
// residual's input x), dinner: (N, C) assigned (at the branch's output, through the dropout of `drop`), and
// dinner_bias (C) accumulated with dinner's column sums (the branch's last bias; skipped when null).
template <typename T>
void residual_layer_norm_backward(const LayerNorm<T>& ln, const T* dy, int N, const LayerNormSaved<T>& saved,
                                  const DropoutSite& drop, T* dx, T* dinner, T* dinner_bias);

}  // namespace heptapod
