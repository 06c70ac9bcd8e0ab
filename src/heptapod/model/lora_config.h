// LoRA adapters (Hu et al. 2021) of a model: beside each targeted weight matrix W (out, in) a pair B (out, r),
// A (r, in) whose product, scaled by alpha / r, adds to W's: y = x W^T + (alpha / r) (x A^T) B^T. The base
// stays frozen; only the adapters train. The targets name matrices by role: the self-attention's q, k, v, o,
// the cross-attention's xq, xk, xv, xo, and ffn (fc1 and fc2, or a gated network's gate, up and down).
// Defaults are PEFT's: rank 8, alpha 8, targets q and v.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "heptapod/model/parameter_names.h"

namespace heptapod {

struct ModelConfig;

inline constexpr int kLoraDefaultRank = 8;
inline constexpr float kLoraDefaultAlpha = 8.0f;

struct LoraConfig {
  int rank = 0;  // 0: no adapters
  float alpha = kLoraDefaultAlpha;
  std::vector<std::string> targets = {"q", "v"};
  float dropout = 0.0f;  // LoRA dropout: of each adapter's input, in training (PEFT's lora_dropout)
  bool enabled() const { return rank > 0; }
  double scale() const { return static_cast<double>(alpha) / rank; }
};

// "q, k, v, o, xq, xk, xv, xo, ffn": the names a target may take, for messages and --help.
const char* lora_target_names();

// The modules target `target` names in a model whose feed-forward network is gated or not; an unknown name
// is an Error naming `where`.
std::vector<Module> lora_target_modules(const std::string& target, bool gated_ffn, const std::string& where);

// The target whose modules include `module` ("ffn" for fc1), or "" when no target adapts it (a norm).
std::string lora_target_of(Module module, bool gated_ffn);

// Every module the config's adapters sit beside (its targets' modules, in the targets' order).
std::vector<Module> lora_modules(const LoraConfig& lora, bool gated_ffn);

// The shape (out, in) of `module`'s weight matrix in a model of `config`.
std::pair<int, int> lora_matrix_shape(Module module, const ModelConfig& config);

// Throws Error naming the problem: a rank of 0 (when enabled) or above a targeted matrix's smaller side, an
// alpha that is not positive, a dropout outside [0, 1), an unknown or repeated target, a cross-attention target in a model without one.
void validate_lora(const ModelConfig& config);

}  // namespace heptapod
