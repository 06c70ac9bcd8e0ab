// The model a training run trains, as its user chose it: a preset with overrides for a fresh model, or a
// model file to fine-tune (`--init`), whose architecture the overrides may restate but not change. Shared by
// `heptapod train` and the Python module, so both refuse the same contradictions with the same words.
#pragma once

#include <optional>
#include <string>

#include "heptapod/model/config.h"
#include "heptapod/train/lr_schedule.h"

namespace heptapod {

struct ModelChoice {
  std::string preset = "small";  // ignored with init_model, unless given explicitly (then it must match)
  bool preset_given = false;
  std::string init_model;        // fine-tune from this model file
  std::optional<Architecture> architecture;  // --arch; a fresh model is an encoder-decoder unless given
  // Shape overrides (option names in errors: --d-model, --heads, ...).
  std::optional<int> d_model, heads, d_ff, encoder_layers, decoder_layers;
  std::optional<NormPosition> norm;
  std::optional<int> learned_positions;  // --positions learned [--max-positions N]; 0: --positions sinusoidal
  // Transformer-XL's (--positions relative): relative positions, --clamp-length, --untie-relative; --memory
  // may also be set when fine-tuning a relative model.
  bool relative_positions = false;
  std::optional<int> clamp_length, memory_length;
  bool untie_relative = false;
  std::optional<EmbeddingTying> tie;
  // Regularisation: applied to a fresh model and to a fine-tuned one alike.
  std::optional<float> dropout, attention_dropout, activation_dropout, embedding_dropout;
};

// The config to train: the preset with the overrides, or the init model's config (read from its file) with
// the dropout overrides. An architecture override that contradicts the init model is an Error naming the
// option, both values and the file.
ModelConfig resolve_model_choice(const ModelChoice& choice);

// Fine-tuning's schedule where the user set none: inverse square root, 100 warm-up updates to a peak of 5e-4
// (a pre-trained model needs neither the paper's 4000 warm-up updates nor its from-scratch peak; on the
// gettext recipe's 1200 updates a peak of 2e-4 reached test BLEU 14.71, 5e-4 27.32).
inline constexpr int kFineTuneWarmup = 100;
inline constexpr double kFineTunePeakLr = 5e-4;
void apply_fine_tuning_defaults(LrSchedule& schedule, bool schedule_given, bool warmup_given, bool lr_given);

}  // namespace heptapod
