// Label-smoothed cross-entropy fused with its gradient, over the valid rows of a padded batch.
#pragma once

#include <cstdint>

namespace heptapod::kernels {

struct CrossEntropyTotals {
  double loss = 0;    // sum over valid rows of the label-smoothed loss
  double nll = 0;     // sum over valid rows of -log p(target), for perplexity
  std::int64_t tokens = 0;
  CrossEntropyTotals& operator+=(const CrossEntropyTotals& o) {
    loss += o.loss;
    nll += o.nll;
    tokens += o.tokens;
    return *this;
  }
};

// logits: (B*T, V); targets: (B*T); row b*T+t is valid iff t < lengths[b].
// Per valid row: loss = (1 - eps) * (-log p_y) + eps * mean_j(-log p_j).
// If dlogits is not null it receives (B*T, V) = grad_scale * dloss/dlogits on valid rows and 0 on the rest
// (assigned; dlogits may alias logits). If row_nll is not null it receives (B*T) -log p(target), 0 when invalid.
template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, const int* lengths, int B, int Tlen, int V,
                                 T eps, T grad_scale, T* dlogits, T* row_nll);

}  // namespace heptapod::kernels
