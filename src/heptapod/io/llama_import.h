// Import of the LLaMA family's Hugging Face checkpoints: model_type llama (LLaMA 2, 3.x, SmolLM, TinyLlama),
// mistral, qwen2 (Qwen 2, 2.5) and qwen3, their ...ForCausalLM and base models. A snapshot directory holds
// config.json, generation_config.json (optional) and model.safetensors or sharded safetensors (F32, F16 or
// BF16). These are pre-norm decoders with RMSNorm, rotary positions (rope_theta, and rope_scaling linear,
// dynamic or llama3), a SwiGLU feed-forward network, grouped-query attention, and per family q/k/v biases
// (Qwen 2), per-head q/k norms and an explicit head_dim (Qwen 3), a tied or untied output layer. A sliding
// window in force (Mistral v0.1; Qwen's with use_sliding_window) caps the model's context at the window.
// Anything else (mixture-of-experts, attention sinks, other rope types, other model types, another
// architecture's head) is refused by name, never approximated.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "heptapod/io/generation_defaults.h"
#include "heptapod/io/state_dict_copy.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

struct LlamaConfig {
  ModelConfig model;               // bos/eos/pad from config.json and generation_config.json
  GenerationDefaults generation;   // generation_config.json's sampling defaults
  std::vector<std::string> notes;  // what the user should know (a context capped by the sliding window)
};

// The model a config.json (and generation_config.json, "" when absent) describes; `where` names config.json,
// `generation_where` generation_config.json, in errors.
LlamaConfig llama_config(const std::string& config_json, const std::string& where,
                         const std::string& generation_json = "", const std::string& generation_where = "");

// The modules of a layer ("layers.<i>." + theirs): the same in every family (Qwen 3's q/k norms aside).
std::span<const ModuleMapping> llama_layer_modules();

// Reads the directory's config.json and generation_config.json.
LlamaConfig read_llama_config(const std::string& directory);

// Weights from the directory's safetensors under the family's names (with or without the base model's
// "model." prefix) into a model of `config` (llama_config's, its ids possibly settled by the tokenizer).
std::unique_ptr<Transformer<float>> import_llama(const std::string& directory, const ModelConfig& config);

}  // namespace heptapod
