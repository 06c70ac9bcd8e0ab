// Masked softmax for attention, forward and backward, in place.
#pragma once

namespace heptapod::kernels {

// scores: (B, H, Tq, K) raw dot products Q K^T. Replaced by softmax(scale * scores) over the keys a query may
// see: key j is visible to query i of sentence b iff j < key_len[b] and (if causal) j <= i. Invisible keys get
// probability 0; a query with no visible key gets an all-zero row.
template <typename T>
void masked_softmax_forward(T* scores, int B, int H, int Tq, int K, const int* key_len, bool causal, T scale);

// probs: (B, H, Tq, K) the forward output. grad: (B, H, Tq, K) dL/dprobs in, dL/dscores out (assigned),
// including the scale.
template <typename T>
void masked_softmax_backward(const T* probs, T* grad, int B, int H, int Tq, int K, T scale);

}  // namespace heptapod::kernels
