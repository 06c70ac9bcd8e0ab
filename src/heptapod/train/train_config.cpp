// Training configuration checks.
#include "heptapod/train/train_config.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

#include "heptapod/core/error.h"

namespace heptapod {

void validate(const TrainConfig& c) {
  const Architecture kind = c.model.architecture;
  require(!c.sentence_pairs || c.encoder_task == TrainConfig::EncoderTask::Classify,
          "train: --pairs (sentence pairs) belongs to --task classify");
  if (kind != Architecture::EncoderDecoder) {
    const std::string what = kind == Architecture::DecoderOnly ? "a decoder-only model (a language model)"
                                                               : "an encoder-only model (masked language modelling)";
    require(!c.train_text.empty(), "train: " + what + " trains on --text");
    require(c.train_source.empty() && c.train_target.empty() && c.valid_source.empty() && c.valid_target.empty(),
            "train: --source, --target, --valid-source and --valid-target train a translation model; " + what +
                " trains on --text (and --valid-text)");
    require(c.source_vocab.empty() && c.target_vocab.empty(),
            "train: a " + std::string(architecture_name(kind)) + " model has one vocabulary (--vocab), not "
            "--source-vocab/--target-vocab");
    const int least = kind == Architecture::EncoderOnly ? 2 : 1;  // an encoder's block: the start token and more
    require(c.context >= least, "train: --context must be at least " + std::to_string(least));
    require(c.batch_tokens >= c.context, "train: --batch-tokens (" + std::to_string(c.batch_tokens) +
                                             ") must hold at least one --context block (" + std::to_string(c.context) + ")");
    require(c.context <= c.model.position_limit(), "train: --context " + std::to_string(c.context) +
                                                       " is longer than the model's learned positions (" +
                                                       std::to_string(c.model.position_limit()) + ")");
    require(c.mask_rate > 0 && c.mask_rate < 1, "train: --mask-rate must be in (0, 1)");
    const bool classify = c.encoder_task == TrainConfig::EncoderTask::Classify;
    require(!classify || kind == Architecture::EncoderOnly, "train: --task classify trains an encoder-only model");
    require(classify == !c.train_labels.empty(),
            classify ? "train: --task classify needs --labels (the classes of each --text line)"
                     : "train: --labels and --valid-labels belong to --task classify");
    require(c.valid_labels.empty() || classify, "train: --labels and --valid-labels belong to --task classify");
    require(!classify || c.valid_text.empty() == c.valid_labels.empty(),
            "train: give both --valid-text and --valid-labels, or neither");
  } else {
    require(!c.train_source.empty() && !c.train_target.empty(), "train: --source and --target are required");
    require(c.train_text.empty() && c.valid_text.empty(),
            "train: --text and --valid-text train a language model (--arch decoder-only or encoder-only), not a " +
                std::string(architecture_name(kind)) + " model");
  }
  require(c.valid_source.empty() == c.valid_target.empty(), "train: give both --valid-source and --valid-target, or neither");
  require(c.source_vocab.empty() == c.target_vocab.empty(), "train: give both --source-vocab and --target-vocab, or neither");
  require(c.vocab.empty() || c.source_vocab.empty(), "train: --vocab and --source-vocab/--target-vocab exclude each other");
  require(c.batch_tokens >= 16, "train: --batch-tokens must be at least 16");
  require(c.accumulate >= 1, "train: --accumulate must be at least 1");
  require(c.max_steps >= 1, "train: --steps must be at least 1");
  require(c.max_minutes >= 0 && std::isfinite(c.max_minutes), "train: --minutes must be a number of minutes >= 0");
  require(c.valid_every >= 1, "train: --valid-every must be at least 1");
  require(c.keep_checkpoints >= 1, "train: --keep-checkpoints must be at least 1");
  require(c.average_last >= 1, "train: --average must be at least 1");
  require(c.label_smoothing >= 0 && c.label_smoothing < 1, "train: --label-smoothing must be in [0, 1)");
  require(c.clip_norm >= 0, "train: --clip-norm must be >= 0");
  require(c.schedule.warmup_steps >= 1, "train: --warmup must be at least 1");
  require(c.schedule.cooldown_steps >= 0 && c.schedule.cooldown_steps < c.max_steps,
          "train: --cooldown (" + std::to_string(c.schedule.cooldown_steps) + ") must be at least 0 and below --steps (" +
              std::to_string(c.max_steps) + ")");
  require(c.filter.max_tokens >= 1, "train: --max-length must be at least 1");
  // --max-length filters translation pairs; a language model's blocks are --context long.
  const bool translation = kind == Architecture::EncoderDecoder;
  require(!translation || c.filter.max_tokens <= c.model.max_target_tokens(),
          "train: --max-length " + std::to_string(c.filter.max_tokens) + " does not fit the model's learned positions (" +
              std::to_string(c.model.position_limit()) + "): sentences are at most one shorter");
  require(!translation || c.filter.max_tokens + 1 <= c.batch_tokens / 2,
          "train: --batch-tokens (" + std::to_string(c.batch_tokens) + ") is too small for sentences of --max-length " +
              std::to_string(c.filter.max_tokens));
  // A language code tags each side of a pair: one token more than --max-length on that side.
  require(c.source_language.empty() || c.filter.max_tokens + 1 <= c.model.max_source_tokens(),
          "train: --max-length " + std::to_string(c.filter.max_tokens) + " and --source-lang's code do not fit the "
              "model's learned positions (" + std::to_string(c.model.position_limit()) + ")");
  require(c.target_language.empty() || c.filter.max_tokens + 1 <= c.model.max_target_tokens(),
          "train: --max-length " + std::to_string(c.filter.max_tokens) + " and --target-lang's code do not fit the "
              "model's learned positions (" + std::to_string(c.model.position_limit()) + ")");
  std::set<std::string> groups = {"embeddings"};  // the model's parameter groups
  if (c.model.has_encoder()) groups.insert("encoder");
  if (c.model.has_decoder()) groups.insert("decoder");
  for (const std::string& group : c.freeze)
    require(groups.count(group) > 0, "train: --freeze takes embeddings, encoder or decoder (those a " +
                                         std::string(architecture_name(kind)) + " model has), not '" + group + "'");
  // A classifier's head is in no group: freezing all of them trains the head alone.
  require(c.encoder_task == TrainConfig::EncoderTask::Classify ||
              std::set<std::string>(c.freeze.begin(), c.freeze.end()).size() < groups.size(),
          "train: --freeze would freeze every parameter");
  require(!c.init || (c.vocab.empty() && c.source_vocab.empty()),
          "train: --init brings the model's own vocabularies; --vocab/--source-vocab/--target-vocab contradict it");
  require(c.freeze.empty() || c.init, "train: --freeze needs --init (a model to fine-tune)");
  require((c.source_language.empty() && c.target_language.empty()) || (c.init && translation),
          "train: --source-lang and --target-lang tag the translation pairs of a multilingual --init model");
  require(c.freeze.empty() || !c.model.lora.enabled(),
          "train: --freeze and --lora conflict: LoRA freezes the whole base already (and trains its adapters)");
  require(c.model.n_heads <= 0 || c.model.head_dim > 0 || c.model.d_model % c.model.n_heads == 0,
          "train: --d-model " + std::to_string(c.model.d_model) + " is not a multiple of --heads " +
              std::to_string(c.model.n_heads) + " (or give --head-dim)");
  require(c.model.kv_heads == 0 || (c.model.kv_heads <= c.model.n_heads && c.model.n_heads % c.model.kv_heads == 0),
          "train: --kv-heads " + std::to_string(c.model.kv_heads) + " does not divide --heads " +
              std::to_string(c.model.n_heads));
  require(!c.model.qk_norm || c.model.norm_type == NormType::Rms, "train: --qk-norm needs --norm-type rms");
  validate(c.model);
}

std::string resume_key(const TrainConfig& c) {
  nlohmann::json j = {
      {"model", nlohmann::json::parse(to_json(c.model))},
      {"train_source", c.train_source},
      {"train_target", c.train_target},
      {"max_length", c.filter.max_tokens},
      {"max_ratio", c.filter.max_ratio},
      {"batch_tokens", c.batch_tokens},
      {"accumulate", c.accumulate},
      {"window", c.window},
      {"schedule", {{"kind", c.schedule.kind == LrSchedule::Kind::Noam ? "noam" : "inverse_sqrt"},
                    {"warmup", c.schedule.warmup_steps},
                    {"scale", c.schedule.scale},
                    {"peak_lr", c.schedule.peak_lr}}},
      {"adam", {c.adam.beta1, c.adam.beta2, c.adam.eps}},
      {"label_smoothing", c.label_smoothing},
      {"clip_norm", c.clip_norm},
      {"seed", c.seed},
  };
  // Only where used, so the keys of runs that do not fine-tune stay as earlier versions wrote them.
  if (c.init) j["init_model"] = c.init->path;
  if (!c.freeze.empty()) j["freeze"] = c.freeze;
  if (!c.source_language.empty()) j["source_language"] = c.source_language;
  if (!c.target_language.empty()) j["target_language"] = c.target_language;
  if (c.schedule.cooldown_steps > 0) j["schedule"]["cooldown"] = c.schedule.cooldown_steps;
  if (!c.train_text.empty()) {
    j["train_text"] = c.train_text;
    j["documents"] = document_split_name(c.documents);
    j["context"] = c.context;
    if (c.task == TaskKind::MaskedLm) {
      j["mask_rate"] = c.mask_rate;
      j["whole_word_mask"] = c.whole_word_mask;
    }
    if (c.task == TaskKind::Classification) {
      j["task"] = "classify";
      j["train_labels"] = c.train_labels;
      if (c.sentence_pairs) j["sentence_pairs"] = true;
      j["window"] = c.window;
    }
  }
  return j.dump();
}

}  // namespace heptapod
