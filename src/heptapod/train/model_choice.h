// The model a training run trains, as its user chose it (the flags of `heptapod train`, typed): a preset
// with overrides for a fresh model, or a model file to fine-tune (`--init`), whose architecture the
// overrides may restate but not change. resolve_model settles it once, reading the --init file once, for
// `heptapod train`, the Python module and the benchmarks alike, so all refuse the same contradictions with
// the same words; the Trainer takes the settled TrainConfig.
#pragma once

#include <optional>
#include <string>

#include "heptapod/model/config.h"
#include "heptapod/train/lr_schedule.h"
#include "heptapod/train/train_config.h"

namespace heptapod {

enum class PositionChoice { Sinusoidal, Learned, Relative, Rotary };  // --positions

// --ffn: the feed-forward network, plain (two layers around the activation) or gated (SwiGLU: silu; GeGLU:
// gelu); --biases: every linear layer's bias, the attention's q/k/v projections' alone (Qwen 2), or none
// (LLaMA).
enum class FfnChoice { Plain, SwiGlu, GeGlu };
enum class BiasChoice { All, Qkv, None };

struct ModelChoice {
  std::string preset = "small";  // ignored with init_model, unless given explicitly (then it must match)
  bool preset_given = false;
  std::string init_model;        // --init: fine-tune from this model file
  std::optional<Architecture> architecture;  // --arch; else the init model's, else an encoder-decoder
  // Shape overrides (option names in errors: --d-model, --heads, ...); layers: every stack the model has.
  std::optional<int> d_model, heads, d_ff, layers, encoder_layers, decoder_layers;
  std::optional<NormPosition> norm;
  std::optional<EmbeddingTying> tie;
  // --positions; unset: the init model's, else sinusoidal, but learned for an encoder-only model (as BERT's).
  // max_positions: a learned table's rows (default: the init model's, else the context of a one-stack model,
  // else 1024).
  std::optional<PositionChoice> positions;
  std::optional<int> max_positions;
  // Transformer-XL's (--positions relative): --clamp-length, --untie-relative; --memory may also be set when
  // fine-tuning a relative model.
  std::optional<int> clamp_length, memory_length;
  bool untie_relative = false;
  // The LLaMA family's pieces (--norm-type, --ffn, --kv-heads, --head-dim, --biases, --qk-norm, and with
  // --positions rotary --rope-theta): a fresh model's choices, which a fine-tuned one must restate.
  std::optional<NormType> norm_type;
  std::optional<FfnChoice> ffn;
  std::optional<int> kv_heads, head_dim;
  std::optional<BiasChoice> biases;
  bool qk_norm = false;
  std::optional<double> rope_theta;
  // --lora R, --lora-alpha, --lora-targets: LoRA adapters beside the --init model's matrices, its base frozen
  // (unset: none; rank 0 is refused).
  std::optional<LoraConfig> lora;
  // Regularisation: applied to a fresh model and to a fine-tuned one alike.
  std::optional<float> dropout, attention_dropout, activation_dropout, embedding_dropout;
};

// Settles the model of `config`: config.model (the preset with the overrides, or the init model's config
// with the dropout and memory overrides), config.task (by the architecture and config.encoder_task) and
// config.init (the --init file: its config, weights and vocabularies). Reads config.context, the default
// length of a one-stack model's learned positions. An option that contradicts another or the init model is
// an Error naming the option (both values and the file); so is an init model without vocabularies.
void resolve_model(const ModelChoice& choice, TrainConfig& config);

// How the config to train differs from a model file's (a checkpoint's, the model to fine-tune's): not at
// all; only in what a run may choose anew (the dropout rates, the segment memory); in an encoder's head too
// (masked language modelling or classification, the classes, the pooling); or in the body (sizes, norms,
// tying, ...).
enum class ConfigChange { None, TrainingChoices, Head, Body };
ConfigChange config_change(const ModelConfig& file, const ModelConfig& train);

// Fine-tuning's schedule where the user set none: inverse square root, 100 warm-up updates to a peak of 5e-4
// (a pre-trained model needs neither the paper's 4000 warm-up updates nor its from-scratch peak; on the
// gettext recipe's 1200 updates a peak of 2e-4 reached test BLEU 14.71, 5e-4 27.32).
inline constexpr int kFineTuneWarmup = 100;
inline constexpr double kFineTunePeakLr = 5e-4;
void apply_fine_tuning_defaults(LrSchedule& schedule, bool schedule_given, bool warmup_given, bool lr_given);

}  // namespace heptapod
