// Stable stream ids for every dropout site in the model, so each site draws an independent mask.
#pragma once

#include <cstdint>

#include "heptapod/layers/dropout_site.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_names.h"
#include "heptapod/model/stack_id.h"

namespace heptapod {

enum class DropoutKind : std::uint64_t {
  Embedding = 1, Residual = 2, Attention = 3, Activation = 4, Adapter = 5, FinalNorm = 6
};
enum class SublayerSlot : std::uint64_t { SelfAttention = 0, CrossAttention = 1, FeedForward = 2 };

// The per-step dropout state: off outside training; seed changes every step and micro-batch.
struct DropoutContext {
  bool training = false;
  std::uint64_t seed = 0;

  // The site's rate comes from the config field for its kind.
  DropoutSite site(const ModelConfig& config, Stack stack, int layer, SublayerSlot slot, DropoutKind kind) const {
    const float rate = kind == DropoutKind::FinalNorm    ? (config.final_norm_dropout ? config.dropout : 0.0f)
                       : kind == DropoutKind::Attention  ? config.attention_dropout
                       : kind == DropoutKind::Activation ? config.activation_dropout
                       : kind == DropoutKind::Embedding  ? config.embedding_dropout
                                                         : config.dropout;
    const std::uint64_t stream = (static_cast<std::uint64_t>(stack) << 40) |
                                 (static_cast<std::uint64_t>(layer + 1) << 16) |
                                 (static_cast<std::uint64_t>(slot) << 8) | static_cast<std::uint64_t>(kind);
    return DropoutSite{training ? rate : 0.0f, seed, stream};
  }
};

// The mask key of the LoRA adapter beside `module` (parameter_names.h) of layer `layer` of `stack`.
inline std::uint64_t adapter_stream(Stack stack, int layer, Module module) {
  return (static_cast<std::uint64_t>(stack) << 40) | (static_cast<std::uint64_t>(layer + 1) << 16) |
         (static_cast<std::uint64_t>(module) << 8) | static_cast<std::uint64_t>(DropoutKind::Adapter);
}

}  // namespace heptapod
