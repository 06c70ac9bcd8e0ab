// The one table of parameter names (as llama.cpp's llama-arch.cpp keeps its own): every module of a model (a
// linear layer, a norm, an embedding table, a lone tensor) and the name it has in a model file
// (docs/model-format.md lists them). A module's name is its stack's and layer's prefix and its entry here; a
// tensor's is its module's and "/weight" or "/bias" (a lone tensor's is its module's). The layout
// (parameter_layout.h), the binders (bind.h), the heads and every importer name tensors through here alone:
// an importer maps each module of its checkpoint to one of these (io/state_dict_copy.h's ModuleMapping).
#pragma once

#include <array>
#include <string>

#include "heptapod/model/stack_id.h"

namespace heptapod {

struct ModelConfig;

enum class Module {
  // The model's own: the entry is the whole name.
  SharedEmbedding,   // the table all three roles read (tie all), or both embeddings (tie embeddings)
  OutputProjection,  // the decoder's output layer: its matrix (tie none or embeddings) and its bias (output_bias)
  TokenTypes,        // an encoder's token type (segment) table
  MlmTransform,      // the masked-language-model head's transform, norm and output bias (a lone tensor)
  MlmNorm,
  MlmOutputBias,
  Pooler,            // a classifier's or a pre-trained encoder's [CLS] pooler
  Classifier,        // a classifier's output layer, (labels, C)
  EmbedDense,        // sentence-transformers' Dense module after an embedding's pooling, (features, pooled width)
  // A stack's: "<stack>/<entry>".
  Embedding,         // the stack's token table (untied)
  Positions,         // learned positions
  EmbeddingNorm,     // the norm over the embedding sum
  RelativeU,         // Transformer-XL's content and position biases shared by the stack's layers (lone tensors)
  RelativeV,
  RelativeBias,      // T5's relative position bias table (buckets, heads) shared by the stack's layers
  FinalNorm,
  // A layer's: "<stack>/layers/<i>/<entry>".
  SelfAttnQuery,
  SelfAttnKey,
  SelfAttnValue,
  SelfAttnOutput,
  SelfAttnQueryNorm,   // qk_norm: the RMSNorm gains of each head's queries and keys, (head_dim) each
  SelfAttnKeyNorm,
  RelativeProjection,  // Transformer-XL's W_r, the distances' encodings' projection (its matrix alone)
  LayerRelativeU,      // the layer's own u and v (untie_relative; lone tensors)
  LayerRelativeV,
  SelfAttnNorm,
  CrossAttnQuery,
  CrossAttnKey,
  CrossAttnValue,
  CrossAttnOutput,
  CrossAttnNorm,
  FfnIn,    // fc1, (F, C): a gated network's `up`
  FfnGate,  // a gated network's gate, (F, C)
  FfnOut,   // fc2, (C, F): a gated network's `down`
  FfnNorm,
};

// A linear layer's or a norm's tensors: the weight matrix (a norm's gain), the bias (a norm's shift); a
// linear layer's LoRA adapter (model/lora_config.h): A (r, in) "lora_a" and B (out, r) "lora_b".
enum class Leaf { Weight, Bias, LoraA, LoraB };

// "encoder", "decoder", "shared".
const char* stack_name(Stack stack);
// A module's name: of `stack` (a stack's or a layer's module; ignored for the model's own) and `layer` (a
// layer's module; ignored for others).
std::string module_name(Module module, Stack stack = Stack::Shared, int layer = -1);
// A tensor's name: its module's (by name, or as module_name makes it) and its leaf.
std::string tensor_name(const std::string& module, Leaf leaf);
std::string tensor_name(Module module, Leaf leaf, Stack stack = Stack::Shared, int layer = -1);

// Whether `name` is a LoRA adapter's tensor (Leaf::LoraA or LoraB of some module).
bool is_lora_tensor(const std::string& name);

// The modules of one attention sub-layer: its four projections and the norm of its residual.
struct AttentionModules {
  Module query, key, value, output, norm;
};
inline constexpr AttentionModules kSelfAttention{Module::SelfAttnQuery, Module::SelfAttnKey, Module::SelfAttnValue,
                                                 Module::SelfAttnOutput, Module::SelfAttnNorm};
inline constexpr AttentionModules kCrossAttention{Module::CrossAttnQuery, Module::CrossAttnKey,
                                                  Module::CrossAttnValue, Module::CrossAttnOutput,
                                                  Module::CrossAttnNorm};

// The names a config's tying gives the embedding matrices each role reads (the same name when tied).
std::string source_embedding_name(const ModelConfig& config);
std::string target_embedding_name(const ModelConfig& config);
std::string output_projection_name(const ModelConfig& config);
// Transformer-XL's u and v: each layer's own (untie_relative) or its stack's.
std::array<Module, 2> relative_bias_modules(const ModelConfig& config);

}  // namespace heptapod
