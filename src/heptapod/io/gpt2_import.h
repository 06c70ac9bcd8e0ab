// Import of Hugging Face GPT-2 checkpoints (GPT2LMHeadModel, GPT2Model): config.json and model.safetensors from
// a model directory. GPT-2 is a decoder-only model with learned positions, pre-norm layers and a final norm,
// the tanh approximation of GELU, biases on every projection and the output layer tied to the token
// embeddings; its Conv1D layers keep weights as (in, out), and c_attn stacks q|k|v. Everything else a GPT-2
// config can say (scaled or reordered attention, cross-attention, another activation, an untied head) is
// refused by name.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "heptapod/io/state_dict_copy.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// The modules of a block ("h.<i>." + theirs): Conv1D layers, c_attn stacking q|k|v.
std::span<const ModuleMapping> gpt2_block_modules();

// The model config a GPT-2 config.json describes; `where` names the file in errors.
ModelConfig gpt2_model_config(const std::string& config_json, const std::string& where);

// Weights from the directory's model.safetensors under GPT-2's state-dict names, with or without the
// "transformer." prefix; the causal-mask buffers older checkpoints carry (attn.bias, attn.masked_bias) are
// left out.
std::unique_ptr<Transformer<float>> import_gpt2(const std::string& directory);

}  // namespace heptapod
