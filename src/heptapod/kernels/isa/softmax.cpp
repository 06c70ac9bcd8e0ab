// Attention softmax: exp over each row's visible prefix only, vectorised row passes.
#include "heptapod/kernels/softmax.h"

#include <algorithm>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"
#include "heptapod/kernels/visible_keys.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

template <typename T>
void attention_softmax_forward(T* scores, int Tq, int K, bool causal, T scale) {
  for (int i = 0; i < Tq; ++i) {
    T* row = scores + static_cast<long>(i) * K;
    const int visible = visible_keys(Tq, K, causal, i);
    if (visible == 0) {  // no key to attend to: a zero row
      std::fill(row, row + K, T(0));
      continue;
    }
    const T inv = T(1) / exp_sum(row, visible, max_value(row, visible), scale, row);
    for (int j = 0; j < visible; ++j) row[j] *= inv;
    std::fill(row + visible, row + K, T(0));
  }
}

template <typename T>
void attention_softmax_backward(const T* probs, T* grad, int Tq, int K, T scale) {
  for (int i = 0; i < Tq; ++i) {
    const T* p = probs + static_cast<long>(i) * K;
    T* g = grad + static_cast<long>(i) * K;
    // In double: a near one-hot row cancels in g[j] - d, and the rows are short.
    double d = 0;
#pragma omp simd reduction(+ : d)
    for (int j = 0; j < K; ++j) d += static_cast<double>(p[j]) * g[j];
#pragma omp simd
    for (int j = 0; j < K; ++j) g[j] = static_cast<T>(scale * p[j] * (g[j] - d));
  }
}

void register_softmax(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, attention_softmax_forward);
  HEPTAPOD_REGISTER_TYPED(t, attention_softmax_backward);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
