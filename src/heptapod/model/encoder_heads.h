// The heads an encoder-only model puts on its output rows (output_head.h): the masked-language-model head
// (BERT's pre-training: a transform, the activation, a layer norm, the embedding table as the output layer, a
// bias; run on the masked rows alone, their gradient scattered back) and the classifier (a pooled vector per
// sentence, through BERT's tanh pooler for [CLS] pooling, then one logit per class). RoBERTa's classification
// head (dense, tanh, out_proj on <s>) is the same pooler and layer; DistilBERT's (pre_classifier, ReLU,
// classifier) the pooler through ReLU (ModelConfig::relu_pooler).
#pragma once

#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/model/output_head.h"

namespace heptapod {

template <typename T>
class MaskedLmHead final : public OutputHead<T> {
 public:
  MaskedLmHead(ParameterStore<T>& params, const ModelConfig& config);

  int rows(const PackedBatch& batch) const override { return static_cast<int>(batch.mlm_rows.size()); }
  // encoder_output (Ns, C) -> logits (Nm, V) of the masked rows (batch.mlm_rows).
  T* forward(const T* encoder_output, const PackedBatch& batch, Arena& arena) override;
  LossTotals loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale, T* dlogits,
                  T* row_nll) const override;
  // dlogits (Nm, V) -> (Ns, C), the gradient at the masked rows.
  T* backward(const T* dlogits, const PackedBatch& batch, Arena& arena) override;
  void place_row_nll(const T* nll, const Batch& batch, const PackedBatch& packed, T* row_nll) const override;
  bool writes_gradient(const ParamSpec& spec) const override;

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
class ClassifierHead final : public OutputHead<T> {
 public:
  ClassifierHead(ParameterStore<T>& params, const ModelConfig& config);

  int rows(const PackedBatch& batch) const override { return batch.src.count(); }
  // encoder_output (Ns, C) of the sentences of batch.src -> logits (B, labels).
  T* forward(const T* encoder_output, const PackedBatch& batch, Arena& arena) override;
  // Cross-entropy over the labels, or a multi-label model's binary cross-entropy (which has no row_nll).
  LossTotals loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale, T* dlogits,
                  T* row_nll) const override;
  // dlogits (B, labels) -> (Ns, C), the gradient at the rows the pooling read.
  T* backward(const T* dlogits, const PackedBatch& batch, Arena& arena) override;
  void place_row_nll(const T* nll, const Batch& batch, const PackedBatch& packed, T* row_nll) const override;
  bool writes_gradient(const ParamSpec& spec) const override;
  // The pooled vectors of the last forward, (B, C): what the classifier layer reads.
  const T* pooled() const { return pooled_; }

 private:
  const ModelConfig& config_;
  bool pooler_ = false;    // [CLS] pooling through tanh(x W^T + b) (relu_pooler: max(x W^T + b, 0))
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
