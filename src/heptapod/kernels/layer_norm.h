// Layer normalisation over the last axis, forward and backward.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

// x: (N, C) -> y: (N, C) = (x - mean) * rstd * gamma + beta. mean, rstd: (N) saved for backward.
template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);

// A post-norm residual connection, y = LN(x + dropout(delta)), in one pass: delta: (N, C) in place becomes the
// sum (what the norm's backward reads), y: (N, C) its layer norm (y may be x). mean, rstd: (N) saved when not
// null. The dropout mask is dropout(seed, stream)'s over the whole (N, C) tensor; p == 0 for none.
template <typename T>
void residual_layer_norm(const T* x, T* delta, float p, std::uint64_t seed, std::uint64_t stream, const T* gamma,
                         const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);

// dy: (N, C). dx: (N, C) assigned, or accumulated when accumulate_dx. dgamma, dbeta: (C) accumulated.
template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx);

}  // namespace heptapod::kernels
