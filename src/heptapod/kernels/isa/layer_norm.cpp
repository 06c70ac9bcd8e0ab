// Layer norm: rows in parallel for the forward pass; chunks of rows in parallel for dx, a residual branch's
// gradient and per-chunk column sums, added in chunk order so the result does not depend on the thread count.
#include "heptapod/kernels/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "heptapod/kernels/isa/calls.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

// y = (x - mean) * rstd * gamma + beta for one row (C); y may be x. Returns {mean, rstd}. Without beta an
// RMSNorm: mean 0, rstd from the mean square.
template <typename T>
std::pair<T, T> normalize_row(const T* x, const T* gamma, const T* beta, T* y, int C, T eps) {
  const T m = beta ? sum_value(x, C) / C : T(0);
  const T s = T(1) / std::sqrt(centered_square_sum(x, C, m) / C + eps);
  if (beta)
    for (int c = 0; c < C; ++c) y[c] = (x[c] - m) * s * gamma[c] + beta[c];
  else
    for (int c = 0; c < C; ++c) y[c] = x[c] * s * gamma[c];
  return {m, s};
}

}  // namespace

template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * C > kParallelMinWork)
  for (int n = 0; n < N; ++n)
    std::tie(mean[n], rstd[n]) =
        normalize_row(x + static_cast<long>(n) * C, gamma, beta, y + static_cast<long>(n) * C, C, eps);
}

template <typename T>
void residual_layer_norm(const T* x, T* delta, const T* bias, float p, std::uint64_t seed, std::uint64_t stream,
                         const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * C > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    const long first = static_cast<long>(n) * C;
    T* d = delta + first;
    const T* xr = x + first;
    if (bias)
      for (int c = 0; c < C; ++c) d[c] += bias[c];
    dropout_slice(d, C, static_cast<std::uint64_t>(first), p, seed, stream);
    for (int c = 0; c < C; ++c) d[c] += xr[c];
    const auto [m, s] = normalize_row(d, gamma, beta, y + first, C, eps);
    if (mean) mean[n] = m;
    if (rstd) rstd[n] = s;
  }
}

template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx, const ResidualBranchGrad<T>* branch) {
  // dgamma, dbeta and the branch's bias are summed per chunk of rows while the rows are in cache
  // (for_row_chunks_summing).
  const bool branch_bias = branch && branch->inner_bias;
  for_row_chunks_summing<T>(N, C, {dgamma, dbeta, branch_bias ? branch->inner_bias : nullptr}, [&](int n0, int n1,
                                                                                                   T* sums) {
    T* dg = sums;  // (C) each: dgamma, dbeta, branch bias
    T* db = dg + C;
    T* dib = db + C;
    for (int n = n0; n < n1; ++n) {
      const long first = static_cast<long>(n) * C;
      const T* xr = x + first;
      const T* g = dy + first;
      T* d = dx + first;
      const T m = mean[n], s = rstd[n];
      // dxhat = dy * gamma; dx = s * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)); an RMSNorm (no dbeta:
      // no shift, no centring) has no mean(dxhat) term.
      T sum_dxhat = 0, sum_dxhat_xhat = 0;
#pragma omp simd reduction(+ : sum_dxhat, sum_dxhat_xhat)
      for (int c = 0; c < C; ++c) {
        const T dxhat = g[c] * gamma[c];
        sum_dxhat += dxhat;
        sum_dxhat_xhat += dxhat * (xr[c] - m) * s;
      }
      sum_dxhat = dbeta ? sum_dxhat / C : T(0);
      sum_dxhat_xhat /= C;
#pragma omp simd
      for (int c = 0; c < C; ++c) {
        const T xhat = (xr[c] - m) * s;
        const T v = s * (g[c] * gamma[c] - sum_dxhat - xhat * sum_dxhat_xhat);
        d[c] = accumulate_dx ? d[c] + v : v;
        dg[c] += g[c] * xhat;
        if (dbeta) db[c] += g[c];
      }
      if (!branch) continue;
      T* inner = branch->inner + first;
      dropout_copy_slice(d, inner, C, static_cast<std::uint64_t>(first), branch->p, branch->seed, branch->stream);
      if (branch_bias) {
#pragma omp simd
        for (int c = 0; c < C; ++c) dib[c] += inner[c];
      }
    }
  });
}

void register_layer_norm(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, layer_norm_forward);
  HEPTAPOD_REGISTER_TYPED(t, residual_layer_norm);
  HEPTAPOD_REGISTER_TYPED(t, layer_norm_backward);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
