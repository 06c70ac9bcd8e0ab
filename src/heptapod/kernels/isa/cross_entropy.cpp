// Cross-entropy: a vectorised pass per row for the sum and max, one exp pass (into the gradient row when
// there is one), one more to scale the gradient.
#include "heptapod/kernels/cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"
#include "heptapod/kernels/reduce.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, long N, int V, T eps, T grad_scale, T* dlogits,
                                 T* row_nll) {
  // Totals are summed in a fixed order (reduce.h), so the reported loss is reproducible run to run.
  return deterministic_reduce<CrossEntropyTotals>(N, N * V, [&](long begin, long end, CrossEntropyTotals& acc) {
    for (long n = begin; n < end; ++n) {
      const T* x = logits + n * V;
      const int y = targets[n];
      const T x_y = x[y];
      const auto [sum_x, max_x] = sum_and_max(x, V);
      // One exp per logit: exp(x - max) goes straight into the gradient row when there is one (x and d may
      // be the same row: everything read from x is read before).
      T* d = dlogits ? dlogits + n * V : nullptr;
      const T sum_e = exp_sum(x, V, max_x, T(1), d);
      const T log_z = max_x + std::log(sum_e);
      const T nll = log_z - x_y;
      const T smooth = log_z - sum_x / V;  // mean_j(-log p_j)
      acc.loss += static_cast<double>((T(1) - eps) * nll + eps * smooth);
      acc.nll += static_cast<double>(nll);
      acc.tokens += 1;
      acc.correct += x_y >= max_x ? 1 : 0;
      if (row_nll) row_nll[n] = nll;
      if (d) {  // grad_scale * (softmax - smoothed target)
        const T scale = grad_scale / sum_e, off = grad_scale * eps / V;
        for (int v = 0; v < V; ++v) d[v] = scale * d[v] - off;
        d[y] -= grad_scale * (T(1) - eps);
      }
    }
  });
}

void register_cross_entropy(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, cross_entropy);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
