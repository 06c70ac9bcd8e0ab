// Import of Hugging Face T5 checkpoints: model_type t5 (T5, T5 v1.1, flan-T5) and mt5, their
// T5ForConditionalGeneration / MT5ForConditionalGeneration. A snapshot directory holds config.json and
// model.safetensors (or shards). What T5 is, carried into the config: pre-norm layers with RMSNorm
// (layer_norm_epsilon) and final norms, no biases, no position embeddings but the bucketed relative position
// bias of each stack's first layer shared by its layers (relative_attention_num_buckets,
// relative_attention_max_distance), attention without the 1/sqrt(d_kv) scale, d_kv-wide heads, a ReLU or
// gated GELU (tanh) feed-forward network (feed_forward_proj), one embedding table for both stacks, the output
// layer tied to it with the decoder output times d_model^-0.5 (tie_word_embeddings) or lm_head of its own,
// every source ending with </s>, decoding from the pad token. Anything else is refused by name.
#pragma once

#include <memory>
#include <string>

#include "heptapod/model/transformer.h"

namespace heptapod {

// The model config a T5 config.json describes; `where` names the file in errors.
ModelConfig t5_model_config(const std::string& config_json, const std::string& where);

// Weights from the directory's safetensors under T5ForConditionalGeneration's state-dict names.
std::unique_ptr<Transformer<float>> import_t5(const std::string& directory);

}  // namespace heptapod
