// One optimizer update: the math every training loop shares (`heptapod train`, `heptapod demo`, the
// benchmark, and each process of a distributed run). Each of the update's micro-batches runs forward and
// backward into a zeroed gradient buffer, with the task's loss (train/training_loss.h) normalised by the loss
// terms (translation: target tokens) of the whole update;
// with several micro-batches their gradients are added in order into an accumulator. The processes' sums are
// then added by the reducer (if any), clipped, and Adam steps. Keeping one gradient per micro-batch (rather
// than adding into the buffer inside each GEMM) makes two micro-batches on one process and the same two on
// two processes the same bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/training_loss.h"

namespace heptapod {

// Sums buffers across the processes of a run (MPI_Allreduce); a run of one process needs none.
class GradientReducer {
 public:
  virtual ~GradientReducer() = default;
  virtual void sum(float* values, std::size_t count) = 0;
  virtual void sum(double* values, std::size_t count) = 0;
  // Starts summing `values` (which must stay untouched until finish_sums() returns) and may return before it
  // is done, so that the backward pass goes on meanwhile; this default sums at once.
  virtual void start_sum(float* values, std::size_t count) { sum(values, count); }
  // Waits for every started sum (throws Error if one failed).
  virtual void finish_sums() {}
};

struct UpdateSettings {
  std::uint64_t seed = 1;        // dropout streams: dropout_seed(seed, step, micro-batch index)
  float label_smoothing = 0.1f;
  double clip_norm = 0.0;        // global gradient-norm clipping; 0 disables
  // With a reducer: sum each layer's gradients as soon as the backward pass of the update's last micro-batch
  // completes them, overlapping communication with the rest of the pass; else one sum after it.
  bool overlap_reduction = true;
  // Tensors (indices in the parameter store) kept as they are: their gradients are zeroed before clipping and
  // the step, so Adam leaves them unchanged (fine-tuning with frozen parts).
  std::vector<std::size_t> frozen = {};
};

struct UpdateStats {
  double loss = 0, nll = 0;      // summed over the update's loss terms (every process's)
  double grad_norm = 0;          // before clipping
  double reduce_wait_seconds = 0;  // spent waiting for the reducer after the backward pass (0 without one)
};

// The dropout seed of micro-batch `micro_batch` (0-based within the update, whatever process computes it) of
// update `step`: a distinct stream for every (step, micro-batch) pair, for any accumulation.
std::uint64_t dropout_seed(std::uint64_t seed, long long step, int micro_batch);

class UpdateStep {
 public:
  // The loss must outlive the step.
  UpdateStep(Transformer<float>& model, Adam<float>& adam, const TrainingLoss& loss, const UpdateSettings& settings,
             GradientReducer* reducer = nullptr);
  // micro_batches: this process's share of update `step` (0-based), indices: their positions within the
  // whole update; update_terms: the loss terms of the whole update (the sum of loss.terms() over all its
  // micro-batches, every process's). Returns the update's loss totals.
  UpdateStats run(const std::vector<const Batch*>& micro_batches, const std::vector<int>& indices,
                  long long update_terms, long long step, double lr);

 private:
  Transformer<float>& model_;
  Adam<float>& adam_;
  const TrainingLoss& loss_;
  UpdateSettings settings_;
  GradientReducer* reducer_;
  // Starts the reducer's sums of `tensors` (complete in the last micro-batch's gradient); with several
  // micro-batches, first adds the earlier ones' sum to them.
  void start_sums(const std::vector<std::size_t>& tensors, bool accumulated);

  Arena arena_;
  std::vector<float> accumulated_;  // [parameters], with more than one micro-batch per process
};

}  // namespace heptapod
