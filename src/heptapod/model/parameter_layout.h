// The one place parameter names are made: the list of named parameters a config implies, in storage order
// (docs/model-format.md names them), each with its shape, role and the part of the model it belongs to. The
// model, its backward stages, freezing, quantization, the model file and the importers all read this layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heptapod/model/stack_id.h"

namespace heptapod {

struct ModelConfig;

// What a tensor is: a linear layer's weight matrix, an embedding table, a layer norm's gain or shift, a bias.
enum class ParamRole { Matrix, Embedding, Norm, Bias };
// Where it sits: an embedding table, a layer of a stack, a decoder layer's cross-attention key/value
// projection (run for all layers at once from the encoder output), a stack's final norm, the output layer.
enum class ParamPart { Embedding, Layer, CrossKeysValues, FinalNorm, Output };

struct ParamSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  enum class Init { Xavier, Embedding, Zero, One } init = Init::Zero;
  ParamRole role = ParamRole::Bias;
  ParamPart part = ParamPart::Layer;
  Stack stack = Stack::Shared;  // the stack it belongs to; Shared: an embedding table both stacks read
  int layer = -1;               // the layer index within the stack (parts Layer and CrossKeysValues)
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

std::vector<ParamSpec> parameter_layout(const ModelConfig& config);

// The names of a stack ("encoder", "decoder") and of one of its layers ("decoder/layers/3"): the prefix of
// every parameter name of that layer.
const char* stack_name(Stack stack);
std::string layer_prefix(Stack stack, int layer);
std::string final_norm_prefix(Stack stack);

// Names of the embedding matrices each role reads (the same name when tied).
std::string source_embedding_name(const ModelConfig& config);
std::string target_embedding_name(const ModelConfig& config);
std::string output_projection_name(const ModelConfig& config);
std::string output_bias_name();
// The learned position table of a stack (config.learned_positions > 0): "decoder/positions/weight".
std::string position_table_name(Stack stack);
// An encoder-only model's: its token type (segment) table, the masked-language-model head's transform and
// norm prefixes and output bias, the classifier's layers; and a stack's embedding norm prefix
// (config.embedding_norm).
std::string token_type_table_name();
std::string mlm_transform_prefix();
std::string mlm_norm_prefix();
std::string mlm_output_bias_name();
std::string pooler_prefix();      // a classifier's [CLS] pooler
// Transformer-XL's relative positions: a layer's projection of the distances' encodings (its
// "<layer>/self_attn/r_proj/weight") and the content and position biases u and v, the layer's own
// (untie_relative) or the stack's ("decoder/relative/u").
std::string relative_projection_name(Stack stack, int layer);
std::string relative_bias_name(const ModelConfig& config, Stack stack, int layer, const char* which);  // "u", "v"
std::string classifier_prefix();  // a classifier's output layer, (labels, C)
std::string embedding_norm_prefix(Stack stack);

}  // namespace heptapod
