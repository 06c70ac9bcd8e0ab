// `heptapod train`: the run of any training task (train/training_task.h: translation, causal or masked
// language modelling, classification) from its settled TrainConfig (train/model_choice.h resolves the model):
// vocabularies and data, the training loop with gradient accumulation, validation, early stopping, a time
// limit, checkpoints and exact resume. A rerun of the same command in the same output directory continues
// from the last checkpoint. Trainer is the run as a unit (set-up, update, validation, checkpoint); each update
// is an UpdateStep (train/update_step.h), the math the demo and the benchmark use too.
#pragma once

#include <memory>
#include <string>

#include "heptapod/train/checkpoint.h"
#include "heptapod/train/train_config.h"

namespace heptapod {

struct TrainResult {
  TrainState state;
  std::string stop_reason;  // "max steps", "max epochs", "time limit", "early stopping"
  std::string model_path;   // the model to use (best on dev, else last)
  std::string averaged_path;  // with average_last > 1: the mean of the last checkpoints; else empty
};

// Writes into config.output_dir:
//   .lock                          held while the run lives (a second run on the directory is refused)
//   vocab.src.spm, vocab.tgt.spm   translation's vocabularies; vocab.spm: the one vocabulary of a language
//                                  model, an encoder or a classifier (each also stored inside every model file)
//   cache/                         tokenized corpora (translation's pairs, a language model's documents)
//   checkpoints/step-NNNNNNNN.htp  the last max(keep_checkpoints, average_last) checkpoints
//   best.htp                       best model on the dev set (with validation)
//   model.htp                      the final model: best.htp when there is one, else the last
//   averaged.htp                   with average_last > 1: the parameter mean of the last average_last
//                                  checkpoints (fewer if the run made fewer)
//   metrics.jsonl                  one JSON record per log interval and validation
class Trainer {
 public:
  // Set-up: output directory and its lock, vocabularies, corpora (and their cache), the model: resumed from
  // the last checkpoint, else the one to fine-tune (config.init), else fresh. Throws Error naming the problem.
  explicit Trainer(const TrainConfig& config);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // One update (with its log line, and validation and checkpoint when due); false once the run is over
  // (max steps, max epochs, the time limit or early stopping; stop_reason() says which).
  bool update();
  // Writes the last checkpoint, model.htp and (average_last > 1) averaged.htp; the run's result.
  TrainResult finish();
  const TrainState& state() const;
  const std::string& stop_reason() const;

 private:
  struct Run;
  std::unique_ptr<Run> run_;
};

// Runs or resumes training to its end: Trainer, update() until false, finish().
TrainResult train(const TrainConfig& config);

}  // namespace heptapod
