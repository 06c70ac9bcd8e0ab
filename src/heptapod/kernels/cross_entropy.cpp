// Cross-entropy: one pass per row for max and log-sum-exp, one to write the gradient.
#include "heptapod/kernels/cross_entropy.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, const int* lengths, int B, int Tlen, int V,
                                 T eps, T grad_scale, T* dlogits, T* row_nll) {
  const long N = static_cast<long>(B) * Tlen;
  // Rows run in parallel in fixed blocks; the per-row results are summed in a fixed order (reduce.h), so the
  // reported loss is reproducible run to run.
  double loss_sum = 0, nll_sum = 0;
  std::int64_t tokens = 0;
  const int threads = N * V > kParallelMinWork ? std::min(omp_get_max_threads(), 256) : 1;
  std::array<double, 256> loss_part{}, nll_part{};
  std::array<std::int64_t, 256> token_part{};
  int used = 1;
#pragma omp parallel num_threads(threads)
  {
    const int th = omp_get_thread_num(), nt = omp_get_num_threads();
    if (th == 0) used = nt;
    for (long n = N * th / nt; n < N * (th + 1) / nt; ++n) {
      const T* x = logits + n * V;
      const bool valid = (n % Tlen) < lengths[n / Tlen];
      if (!valid) {
        if (dlogits) std::fill(dlogits + n * V, dlogits + (n + 1) * V, T(0));
        if (row_nll) row_nll[n] = 0;
        continue;
      }
      T max_v = x[0];
      for (int v = 1; v < V; ++v) max_v = std::max(max_v, x[v]);
      T sum_exp = 0, sum_x = 0;
      for (int v = 0; v < V; ++v) {
        sum_exp += std::exp(x[v] - max_v);
        sum_x += x[v];
      }
      const T log_z = max_v + std::log(sum_exp);
      const int y = targets[n];
      const T nll = log_z - x[y];
      const T smooth = log_z - sum_x / V;  // mean_j(-log p_j)
      loss_part[th] += static_cast<double>((T(1) - eps) * nll + eps * smooth);
      nll_part[th] += static_cast<double>(nll);
      token_part[th] += 1;
      if (row_nll) row_nll[n] = nll;
      if (dlogits) {
        T* d = dlogits + n * V;
        const T off = eps / V;
        for (int v = 0; v < V; ++v) d[v] = grad_scale * (std::exp(x[v] - log_z) - off);
        d[y] -= grad_scale * (T(1) - eps);
      }
    }
  }
  for (int th = 0; th < used; ++th) {
    loss_sum += loss_part[th];
    nll_sum += nll_part[th];
    tokens += token_part[th];
  }
  return {loss_sum, nll_sum, tokens};
}

template CrossEntropyTotals cross_entropy<float>(const float*, const int*, const int*, int, int, int, float, float,
                                                 float*, float*);
template CrossEntropyTotals cross_entropy<double>(const double*, const int*, const int*, int, int, int, double,
                                                  double, double*, double*);

}  // namespace heptapod::kernels
