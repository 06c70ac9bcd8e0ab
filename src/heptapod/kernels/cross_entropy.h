// Label-smoothed cross-entropy fused with its gradient, over the target rows of a batch (no padding).
#pragma once

#include <cstdint>

namespace heptapod::kernels {

struct CrossEntropyTotals {
  double loss = 0;    // sum over rows of the label-smoothed loss
  double nll = 0;     // sum over rows of -log p(target), for perplexity
  std::int64_t tokens = 0;
  std::int64_t correct = 0;  // rows whose target has the highest logit (ties count), for accuracy
  CrossEntropyTotals& operator+=(const CrossEntropyTotals& o) {
    loss += o.loss;
    nll += o.nll;
    tokens += o.tokens;
    correct += o.correct;
    return *this;
  }
};

// logits: (N, V); targets: (N). Per row: loss = (1 - eps) * (-log p_y) + eps * mean_j(-log p_j).
// If dlogits is not null it receives (N, V) = grad_scale * dloss/dlogits (assigned; dlogits may alias
// logits). If row_nll is not null it receives (N) -log p(target).
template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, long N, int V, T eps, T grad_scale, T* dlogits,
                                 T* row_nll);

}  // namespace heptapod::kernels
