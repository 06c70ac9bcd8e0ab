// `heptapod train`: vocabularies, data, the training loop with gradient accumulation, validation, early
// stopping, checkpoints and exact resume. A rerun of the same command in the same output directory
// continues from the last checkpoint.
#pragma once

#include <cstdint>

#include "heptapod/train/checkpoint.h"
#include "heptapod/train/train_config.h"

namespace heptapod {

struct TrainResult {
  TrainState state;
  std::string stop_reason;  // "max steps", "max epochs", "early stopping"
  std::string model_path;   // the model to translate with (best on dev, else last)
};

// Runs or resumes training. Writes into config.output_dir:
//   vocab.src.spm, vocab.tgt.spm   the vocabularies (also stored inside every model file)
//   cache/                         tokenized corpora
//   checkpoints/step-NNNNNNNN.htp  the last keep_checkpoints checkpoints
//   best.htp                       best model on the dev set (with validation)
//   model.htp                      the final model to translate with
//   metrics.jsonl                  one JSON record per log interval and validation
TrainResult train(const TrainConfig& config);

// The dropout seed of micro-batch `micro_batch` (0-based, within the update, whatever process computes it) of
// update `step`: a distinct stream for every (step, micro-batch) pair, for any accumulation.
std::uint64_t dropout_seed(std::uint64_t seed, long long step, int micro_batch);

}  // namespace heptapod
