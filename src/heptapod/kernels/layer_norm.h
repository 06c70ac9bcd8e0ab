// Layer normalisation over the last axis, forward and backward.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

// x: (N, C) -> y: (N, C) = (x - mean) * rstd * gamma + beta. mean, rstd: (N) saved for backward. Without beta
// (null) an RMSNorm, y = x * rstd * gamma with rstd from the mean square (mean saved as 0); its backward is
// asked for with a null dbeta.
template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);

// A post-norm residual connection, y = LN(x + dropout(delta)), in one pass: delta: (N, C) in place becomes the
// sum (what the norm's backward reads), y: (N, C) its layer norm (y may be x). mean, rstd: (N) saved when not
// null. The dropout mask is dropout(seed, stream)'s over the whole (N, C) tensor; p == 0 for none.
// bias: (C) added to delta before the dropout (the branch's last bias, left to this pass; skipped when null).
template <typename T>
void residual_layer_norm(const T* x, T* delta, const T* bias, float p, std::uint64_t seed, std::uint64_t stream,
                         const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);

// The gradient of a post-norm residual's branch, made in layer_norm_backward's row pass while dx is in
// cache: inner (N, C) assigned dropout(dx), with dropout(seed, stream)'s mask over the whole (N, C) tensor, and
// inner_bias (C) accumulated with inner's column sums (the branch's last bias; skipped when null).
template <typename T>
struct ResidualBranchGrad {
  T* inner = nullptr;
  T* inner_bias = nullptr;
  float p = 0;
  std::uint64_t seed = 0, stream = 0;
};

// dy: (N, C). dx: (N, C) assigned, or accumulated when accumulate_dx. dgamma, dbeta: (C) accumulated. branch:
// when not null, filled from dx (which must then be assigned, not accumulated).
template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx, const ResidualBranchGrad<T>* branch = nullptr);

}  // namespace heptapod::kernels
