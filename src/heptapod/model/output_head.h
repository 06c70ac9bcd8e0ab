// What a model puts on its last stack's output: a model is its stacks and one head, chosen once from its config
// (make_output_head). A language model's and an encoder-decoder's head projects every target row onto the
// vocabulary (language_model_head.h); an encoder's is its masked-LM head or its classifier (encoder_heads.h).
// A head computes the logits of the rows it reads, their loss, and their gradient back to the stack's output;
// forward keeps what backward reads.
#pragma once

#include <memory>

#include "heptapod/core/arena.h"
#include "heptapod/kernels/cross_entropy.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

using LossTotals = kernels::CrossEntropyTotals;

template <typename T>
class OutputHead {
 public:
  virtual ~OutputHead() = default;

  // The rows of `batch` the head computes logits for, N: every target position, the masked positions, or the
  // sentences.
  virtual int rows(const PackedBatch& batch) const = 0;
  // hidden: the last stack's output for `batch`, one row per token -> logits (N, classes) carved from the arena.
  virtual T* forward(const T* hidden, const PackedBatch& batch, Arena& arena) = 0;
  // The loss of forward()'s logits against `batch`'s targets; their gradient (times grad_scale) into dlogits
  // when not null (it may be the logits), each row's -log p into row_nll (N) when not null.
  virtual LossTotals loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale, T* dlogits,
                          T* row_nll) const = 0;
  // dlogits (N, classes) -> the gradient at the stack's output (one row per token, zeros at rows the head did
  // not read) carved from the arena; the head's parameter gradients accumulated (+=).
  virtual T* backward(const T* dlogits, const PackedBatch& batch, Arena& arena) = 0;
  // loss()'s row_nll (N) at its places in `batch` (padded): (B*T), (B*S) with zeros where nothing is masked,
  // or (B).
  virtual void place_row_nll(const T* nll, const Batch& batch, const PackedBatch& packed, T* row_nll) const = 0;
  // forward()'s logits as Transformer::logits returns them: padded to the batch's (B*T, V) from the arena for
  // a head over every target position, else as they are.
  virtual T* placed_logits(T* logits, const Batch&, const PackedBatch&, Arena&) const { return logits; }
  // forward, loss and (when dhidden is not null) backward at once: hidden (the last stack's output) -> the loss
  // of the head's rows against `batch`'s targets, each row's -log p into row_nll (N) when not null, and with
  // dhidden the gradient at the stack's output (times grad_scale) carved from the arena into *dhidden, the
  // head's parameter gradients accumulated (+=). The default runs the three in turn over the whole logit
  // matrix; a head over a wide vocabulary overrides it to run them over row chunks, so that no full logit
  // matrix exists in training, validation or scoring.
  virtual LossTotals fused_loss(const T* hidden, const PackedBatch& batch, T label_smoothing, T grad_scale,
                                T* row_nll, T** dhidden, Arena& arena);
  // Whether backward() writes the gradient of `spec`: the head's own tensors, and a stack's table it reads
  // (an embedding tied to its output layer). The model's backward stages read it.
  virtual bool writes_gradient(const ParamSpec& spec) const = 0;
};

// The head `config` names: a model with a decoder's output projection, an encoder's masked-LM head or
// classifier; null for an encoder without a head (which has no loss of its own).
template <typename T>
std::unique_ptr<OutputHead<T>> make_output_head(ParameterStore<T>& params, const ModelConfig& config);

}  // namespace heptapod
