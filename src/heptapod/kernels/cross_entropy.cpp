// Cross-entropy: one pass per row for max and log-sum-exp, one to write the gradient.
#include "heptapod/kernels/cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "heptapod/kernels/reduce.h"

namespace heptapod::kernels {

template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, const int* lengths, int B, int Tlen, int V,
                                 T eps, T grad_scale, T* dlogits, T* row_nll) {
  const long N = static_cast<long>(B) * Tlen;
  // Totals are summed in a fixed order (reduce.h), so the reported loss is reproducible run to run.
  return deterministic_reduce<CrossEntropyTotals>(N, N * V, [&](long begin, long end, CrossEntropyTotals& acc) {
    for (long n = begin; n < end; ++n) {
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
      acc.loss += static_cast<double>((T(1) - eps) * nll + eps * smooth);
      acc.nll += static_cast<double>(nll);
      acc.tokens += 1;
      if (row_nll) row_nll[n] = nll;
      if (dlogits) {
        T* d = dlogits + n * V;
        const T off = eps / V;
        for (int v = 0; v < V; ++v) d[v] = grad_scale * (std::exp(x[v] - log_z) - off);
        d[y] -= grad_scale * (T(1) - eps);
      }
    }
  });
}

template CrossEntropyTotals cross_entropy<float>(const float*, const int*, const int*, int, int, int, float, float,
                                                 float*, float*);
template CrossEntropyTotals cross_entropy<double>(const double*, const int*, const int*, int, int, int, double,
                                                  double, double*, double*);

}  // namespace heptapod::kernels
