// What one kind of training supplies to the one Trainer (train/trainer.h): its data (vocabularies, corpora and
// the stream of batches, whose position lives in TrainState so a resume continues it), its loss, and its
// validation metrics. The Trainer does the rest for every task alike: update steps with accumulation and
// MPI, the schedule, checkpoints and exact resume, averaging, --init, --freeze, metrics and plots.
// Each TaskKind is one task: translation (train/translation_task.h), causal language modelling
// (train/language_model_task.h), masked language modelling (train/masked_lm_task.h) and classification
// (train/classification_task.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heptapod/core/arena.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/checkpoint.h"
#include "heptapod/train/train_config.h"
#include "heptapod/train/training_loss.h"
#include "heptapod/train/update_step.h"

namespace heptapod {

// One validation's outcome.
struct ValidationReport {
  double criterion = 0;     // lower is better: best.htp and early stopping follow it
  nlohmann::json metrics;   // the fields of its metrics.jsonl record ("ce", "ppl", "tokens", "bleu", ...)
  std::string summary;      // for the log: "ce 2.1234 ppl 8.36 bleu 21.30"
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;
  // The training data. Rank 0 runs first and writes what it prepares (vocabularies, corpus caches) into the
  // output directory; the other ranks run after it and read that. Throws Error naming a bad input.
  virtual void prepare(int rank) = 0;
  // The validation data (rank 0 alone validates); a task without validation data does nothing.
  virtual void prepare_validation() = 0;
  virtual const ModelVocabularies& vocabularies() const = 0;
  // The requested model config with what the data fixes (vocabulary sizes, special ids, tying).
  virtual ModelConfig resolve_model(const ModelConfig& requested) const = 0;
  // One line about the training data for the log: "kept 9870 of 10000 pairs (...) [cached]".
  virtual std::string data_summary() const = 0;
  // The next training batch for the model (the resolved config), advancing the data position in `state`;
  // false once max_epochs (> 0) are done.
  virtual bool next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) = 0;
  virtual const TrainingLoss& loss() const = 0;
  // The micro-batches of every update (accumulate x ranks), told after prepare() and before the first
  // next_batch() or loss(): a task whose batches continue one another (Transformer-XL's streams, one group per
  // micro-batch) lays its data out by it.
  virtual void set_update_size(int /*micro_batches*/) {}
  // What a checkpoint keeps of the task beyond TrainState (Transformer-XL's segment memories), every rank's:
  // a collective call, on every rank of `ranks` (this one `rank`), with `reducer` (null for a run of one
  // process), each rank giving the share it computes (micro-batches k with k % ranks == rank); restore_state()
  // takes back this rank's share from a checkpoint (after set_update_size()).
  virtual std::vector<TaskStateTensor> checkpoint_state(int /*rank*/, int /*ranks*/, GradientReducer* /*reducer*/) const {
    return {};
  }
  virtual void restore_state(const SafetensorsFile& /*checkpoint*/, int /*rank*/, int /*ranks*/) {}
  virtual bool validates() const = 0;
  // Evaluates the model on the validation data (prepare_validation() first, validates() true).
  virtual ValidationReport validate(Transformer<float>& model, Arena& arena) = 0;
  // Throws Error if memory-mapped data changed under the run (so no checkpoint comes from damaged batches).
  virtual void check_intact() const = 0;
};

// The task of config.task.
std::unique_ptr<TrainingTask> make_training_task(const TrainConfig& config);

// The epochs a task's next_batch() reads: `batch_of` makes batch state.batch_in_epoch of epoch state.epoch,
// false when that epoch has no more; the position in `state` advances past the batch made. False once
// max_epochs (> 0) are done.
bool next_batch_of_epochs(TrainState& state, int max_epochs, const std::function<bool(const TrainState&)>& batch_of);

}  // namespace heptapod
