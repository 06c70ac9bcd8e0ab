// Layer normalisation over the last axis, forward and backward.
#pragma once

namespace heptapod::kernels {

// x: (N, C) -> y: (N, C) = (x - mean) * rstd * gamma + beta. mean, rstd: (N) saved for backward.
template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);

// Inference after a residual branch: x += delta, then y = layer norm of x (no statistics kept); y may be x.
// x, delta, y: (N, C).
template <typename T>
void residual_layer_norm(T* x, const T* delta, const T* gamma, const T* beta, T* y, int N, int C, T eps);

// dy: (N, C). dx: (N, C) assigned, or accumulated when accumulate_dx. dgamma, dbeta: (C) accumulated.
template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx);

}  // namespace heptapod::kernels
