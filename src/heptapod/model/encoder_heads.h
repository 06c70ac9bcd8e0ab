// The heads an encoder-only model puts on its output rows: the masked-language-model head (BERT's
// pre-training: a transform, the activation, a layer norm, the embedding table as the output layer, a bias;
// run on the masked rows alone) and the classifier (a pooled vector per sentence, through BERT's tanh pooler
// for [CLS] pooling, then one logit per class). Forward keeps what backward reads; backward accumulates the
// parameters' gradients and adds the gradient at the encoder output into dsrc.
#pragma once

#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/kernels/cross_entropy.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/sequences.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

template <typename T>
class MaskedLmHead {
 public:
  MaskedLmHead(ParameterStore<T>& params, const ModelConfig& config);
  // encoder_output (Ns, C), rows (Nm) the masked rows -> logits (Nm, V) from the arena.
  T* forward(const T* encoder_output, const std::vector<int>& rows, Arena& arena);
  // dlogits (Nm, V) -> dsrc (Ns, C) += the gradient at the masked rows.
  void backward(const T* dlogits, const std::vector<int>& rows, T* dsrc, Arena& arena);
  int vocab() const { return output_.out; }

 private:
  const ModelConfig& config_;
  Linear<T> transform_;  // (C, C)
  LayerNorm<T> norm_;
  Linear<T> output_;     // (V, C): the embedding table, the head's bias
  T* input_ = nullptr;   // (Nm, C) the last forward's masked rows
  T* pre_ = nullptr;     // (Nm, C) their transform before the activation
  T* hidden_ = nullptr;  // (Nm, C) the output layer's input
  LayerNormSaved<T> saved_;
};

template <typename T>
class ClassifierHead {
 public:
  ClassifierHead(ParameterStore<T>& params, const ModelConfig& config);
  // encoder_output (Ns, C) of the sentences of src -> logits (B, labels) from the arena.
  T* forward(const T* encoder_output, const Sequences& src, Arena& arena);
  // dlogits (B, labels) -> dsrc (Ns, C) += the gradient at the rows the pooling read.
  void backward(const T* dlogits, const Sequences& src, T* dsrc, Arena& arena);
  // The pooled vectors of the last forward, (B, C): what the classifier layer reads.
  const T* pooled() const { return pooled_; }

 private:
  const ModelConfig& config_;
  bool pooler_ = false;    // [CLS] pooling through tanh(x W^T + b)
  Linear<T> pooler_layer_; // (C, C)
  Linear<T> classifier_;   // (labels, C)
  T* first_ = nullptr;     // (B, C) the pooled rows before the pooler (mean, or [CLS])
  T* pooled_ = nullptr;    // (B, C)
};

// Multi-label loss: per sentence and class, -(y log s(x) + (1 - y) log(1 - s(x))) with s the sigmoid, summed;
// logits and targets (0/1) (B, L). dlogits (B, L) = grad_scale * (s(x) - y) when not null (may alias logits).
// Totals: loss = nll = the sum, tokens = B, correct = sentences whose every class is right at 0.5.
template <typename T>
kernels::CrossEntropyTotals binary_cross_entropy(const T* logits, const int* targets, int B, int L, T grad_scale,
                                                 T* dlogits);

}  // namespace heptapod
