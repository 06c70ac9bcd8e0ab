// Attention softmax over one (sentence, head) block of scores, forward and backward, in place. Serial: the
// attention layer calls it per block from inside its parallel loop, while the block is still in cache.
#pragma once

namespace heptapod::kernels {

// scores: (Tq, K) raw dot products Q K^T of one sentence and head, K the sentence's keys. Replaced by
// softmax(scale * scores) over the keys query i may see: all K, or (causal) keys j <= K - Tq + i, the
// queries being the last Tq of the K positions (visible_keys.h). Invisible keys get probability 0; a query
// with no visible key (K == 0, or causal with fewer keys than queries) gets a row of zeros.
template <typename T>
void attention_softmax_forward(T* scores, int Tq, int K, bool causal, T scale);

// probs: (Tq, K) the forward output. grad: (Tq, K) dL/dprobs in, dL/dscores out (assigned), including the
// scale. Invisible keys (probability 0) get exactly 0.
template <typename T>
void attention_softmax_backward(const T* probs, T* grad, int Tq, int K, T scale);

}  // namespace heptapod::kernels
