// Layer norm: rows in parallel for the forward pass and dx; column blocks in parallel for dgamma/dbeta,
// so the parameter reduction needs no per-thread scratch and is deterministic.
#include "heptapod/kernels/layer_norm.h"

#include <cmath>

#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * C > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    const T* xr = x + static_cast<long>(n) * C;
    T* yr = y + static_cast<long>(n) * C;
    T m = 0;
    for (int c = 0; c < C; ++c) m += xr[c];
    m /= C;
    T v = 0;
    for (int c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= C;
    const T s = T(1) / std::sqrt(v + eps);
    for (int c = 0; c < C; ++c) yr[c] = (xr[c] - m) * s * gamma[c] + beta[c];
    mean[n] = m;
    rstd[n] = s;
  }
}

template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * C > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    const T* xr = x + static_cast<long>(n) * C;
    const T* g = dy + static_cast<long>(n) * C;
    T* d = dx + static_cast<long>(n) * C;
    const T m = mean[n], s = rstd[n];
    // dxhat = dy * gamma; dx = s * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
    T sum_dxhat = 0, sum_dxhat_xhat = 0;
    for (int c = 0; c < C; ++c) {
      const T dxhat = g[c] * gamma[c];
      sum_dxhat += dxhat;
      sum_dxhat_xhat += dxhat * (xr[c] - m) * s;
    }
    sum_dxhat /= C;
    sum_dxhat_xhat /= C;
    for (int c = 0; c < C; ++c) {
      const T xhat = (xr[c] - m) * s;
      const T v = s * (g[c] * gamma[c] - sum_dxhat - xhat * sum_dxhat_xhat);
      d[c] = accumulate_dx ? d[c] + v : v;
    }
  }
  for_column_blocks(C, static_cast<long>(N) * C, [&](int c0, int c1) {
    for (int n = 0; n < N; ++n) {
      const T* xr = x + static_cast<long>(n) * C;
      const T* g = dy + static_cast<long>(n) * C;
      const T m = mean[n], s = rstd[n];
      for (int c = c0; c < c1; ++c) {
        dgamma[c] += g[c] * (xr[c] - m) * s;
        dbeta[c] += g[c];
      }
    }
  });
}

template void layer_norm_forward<float>(const float*, const float*, const float*, float*, float*, float*, int, int,
                                        float);
template void layer_norm_forward<double>(const double*, const double*, const double*, double*, double*, double*,
                                         int, int, double);
template void layer_norm_backward<float>(const float*, const float*, const float*, const float*, const float*,
                                         float*, float*, float*, int, int, bool);
template void layer_norm_backward<double>(const double*, const double*, const double*, const double*,
                                          const double*, double*, double*, double*, int, int, bool);

}  // namespace heptapod::kernels
