// A training task's loss as the model computes it (the one place UpdateStep gets its loss from): forward, loss
// and backward of one micro-batch, and the count of loss terms an update normalises by.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// A task's loss as the model computes it: forward, loss and backward of one micro-batch, and the count of
// loss terms the update normalises by.
class TrainingLoss {
 public:
  virtual ~TrainingLoss() = default;
  virtual LossTotals forward_backward(Transformer<float>& model, const Batch& batch, const StepOptions& options,
                                      Arena& arena) const = 0;
  virtual long long terms(const Batch& batch) const = 0;
};

// The loss the model computes for its kind: cross-entropy of every next target token (label-smoothed while
// training) for translation and a decoder-only language model, an encoder head's loss (the masked tokens',
// or a classifier's) for an encoder-only model.
class ModelLoss final : public TrainingLoss {
 public:
  LossTotals forward_backward(Transformer<float>& model, const Batch& batch, const StepOptions& options,
                              Arena& arena) const override {
    return model.forward_backward(batch, options, arena);
  }
  long long terms(const Batch& batch) const override { return batch.target_tokens(); }
};

}  // namespace heptapod
