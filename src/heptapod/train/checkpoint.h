// Training checkpoints: a model file (loadable by every command that takes a model) plus the optimizer
// moments, the training state (step, data position, best validation, ...) and the settings a resume must
// match. Written atomically; the last K are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/adam.h"

namespace heptapod {

struct TrainState {
  long step = 0;                      // updates done
  std::uint64_t epoch = 0;            // epoch of the next batch
  std::uint64_t batch_in_epoch = 0;   // index of the next batch in that epoch's plan
  double best_valid = std::numeric_limits<double>::infinity();  // best validation cross-entropy so far
  long best_step = 0;
  int bad_validations = 0;            // validations since the best
  double elapsed_seconds = 0;         // training time over all runs
  long long target_tokens = 0;        // target tokens trained on
};

// A tensor of a training task's own state that a checkpoint keeps beside TrainState (Transformer-XL's segment
// memories), float32, stored as task_state_name(name).
struct TaskStateTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};
std::string task_state_name(const std::string& name);

// A LoRA run's checkpoint (the model's config has adapters) holds its trained tensors alone, as an adapter file
// (io/adapter_file.h) naming its base by `base_checksum`: the base is the --init file, frozen, which a resume
// loads again; other runs' hold the whole model.
void save_checkpoint(const std::string& path, const Transformer<float>& model, const Adam<float>& adam,
                     const TrainState& state, const std::string& resume_key, const ModelVocabularies& vocabs,
                     const std::vector<TaskStateTensor>& task_state = {}, const std::string& base_checksum = "");

// The model config a checkpoint was written with (an Error names the file when it is not one).
ModelConfig checkpoint_config(const SafetensorsFile& file);

// Restores model parameters, optimizer state and training state from a checkpoint written by
// save_checkpoint; returns the resume key it was written with. The model must have the checkpoint's config
// (check checkpoint_config first). A LoRA run's checkpoint restores the trained tensors alone: the model holds
// its base already, whose checksum must be `base_checksum` (the one the checkpoint names).
std::string load_checkpoint(const std::string& path, Transformer<float>& model, Adam<float>& adam, TrainState& state,
                            const std::string& base_checksum = "");

// Checkpoint files in dir (named step-NNNNNNNN.htp), oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir);
// The newest n checkpoint files in dir (all there are, if fewer), oldest first.
std::vector<std::string> last_checkpoints(const std::string& dir, std::size_t n);
std::string checkpoint_path(const std::string& dir, long step);

}  // namespace heptapod
