// The options of `heptapod train`, one table for the command line and the Python module (heptapod.train
// passes its keyword arguments through it): each flag fills a field of TrainFlags, and resolve_train_flags
// turns them into the run's TrainConfig, its model settled by resolve_model (train/model_choice.h).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/train/model_choice.h"
#include "heptapod/train/trainer.h"

namespace heptapod::app {

struct TrainFlags {
  TrainConfig config;
  ModelChoice model;
  std::string vocab_model = "bpe";
  std::optional<std::string> schedule;
  std::string norm, tie;
  std::optional<std::string> architecture;
  std::string documents = "lines";
  std::string positions;  // --positions: "sinusoidal", "learned", "relative" or "rotary"; empty: the model's own
  std::string norm_type, ffn, biases;  // --norm-type, --ffn, --biases; empty: the preset's or the model's own
  std::optional<float> lora_alpha;       // --lora-alpha
  std::optional<float> lora_dropout;     // --lora-dropout
  std::vector<std::string> lora_targets;  // --lora-targets; empty: PEFT's q,v
  bool separate_vocab = false;
  bool warmup_given = false, lr_given = false;
  bool context_given = false;  // else a model to fine-tune with fewer learned positions sets the context
};

// Registers every option of `heptapod train` on `cmd`, filling *f.
void add_train_options(CLI::App* cmd, const std::shared_ptr<TrainFlags>& f);

// The run's config: the model choice settled (a preset with overrides, or the --init model's, read once), the
// context (the --init model's learned positions if fewer and none was given), the vocabulary model, the
// schedule (fine-tuning's defaults with --init).
TrainConfig resolve_train_flags(TrainFlags flags);

}  // namespace heptapod::app
