// The table of module names and the names made from it.
#include "heptapod/model/parameter_names.h"

#include "heptapod/core/error.h"
#include "heptapod/model/config.h"

namespace heptapod {

namespace {

// Where a module's entry is: the whole name, below its stack's name, or below its layer's.
enum class Scope { Model, Stack, Layer };

struct ModuleEntry {
  Module module;
  Scope scope;
  const char* name;
};

// In Module's order (module_name looks entries up by index).
constexpr ModuleEntry kModules[] = {
    {Module::SharedEmbedding, Scope::Model, "shared_embedding"},
    {Module::OutputProjection, Scope::Model, "decoder/output_proj"},
    {Module::TokenTypes, Scope::Model, "encoder/token_types"},
    {Module::MlmTransform, Scope::Model, "encoder/mlm/transform"},
    {Module::MlmNorm, Scope::Model, "encoder/mlm/norm"},
    {Module::MlmOutputBias, Scope::Model, "encoder/mlm/output_bias"},
    {Module::Pooler, Scope::Model, "encoder/pooler"},
    {Module::Classifier, Scope::Model, "encoder/classifier"},
    {Module::EmbedDense, Scope::Model, "encoder/embed_dense"},
    {Module::Embedding, Scope::Stack, "embedding"},
    {Module::Positions, Scope::Stack, "positions"},
    {Module::EmbeddingNorm, Scope::Stack, "embedding_norm"},
    {Module::RelativeU, Scope::Stack, "relative/u"},
    {Module::RelativeV, Scope::Stack, "relative/v"},
    {Module::RelativeBias, Scope::Stack, "relative_bias"},
    {Module::FinalNorm, Scope::Stack, "final_norm"},
    {Module::SelfAttnQuery, Scope::Layer, "self_attn/q_proj"},
    {Module::SelfAttnKey, Scope::Layer, "self_attn/k_proj"},
    {Module::SelfAttnValue, Scope::Layer, "self_attn/v_proj"},
    {Module::SelfAttnOutput, Scope::Layer, "self_attn/out_proj"},
    {Module::SelfAttnQueryNorm, Scope::Layer, "self_attn/q_norm"},
    {Module::SelfAttnKeyNorm, Scope::Layer, "self_attn/k_norm"},
    {Module::RelativeProjection, Scope::Layer, "self_attn/r_proj"},
    {Module::LayerRelativeU, Scope::Layer, "self_attn/relative_u"},
    {Module::LayerRelativeV, Scope::Layer, "self_attn/relative_v"},
    {Module::SelfAttnNorm, Scope::Layer, "self_attn_norm"},
    {Module::CrossAttnQuery, Scope::Layer, "cross_attn/q_proj"},
    {Module::CrossAttnKey, Scope::Layer, "cross_attn/k_proj"},
    {Module::CrossAttnValue, Scope::Layer, "cross_attn/v_proj"},
    {Module::CrossAttnOutput, Scope::Layer, "cross_attn/out_proj"},
    {Module::CrossAttnNorm, Scope::Layer, "cross_attn_norm"},
    {Module::FfnIn, Scope::Layer, "ffn/fc1"},
    {Module::FfnGate, Scope::Layer, "ffn/gate"},
    {Module::FfnOut, Scope::Layer, "ffn/fc2"},
    {Module::FfnNorm, Scope::Layer, "ffn_norm"},
};

constexpr bool in_module_order() {
  for (std::size_t i = 0; i < std::size(kModules); ++i)
    if (static_cast<std::size_t>(kModules[i].module) != i) return false;
  return std::size(kModules) == static_cast<std::size_t>(Module::FfnNorm) + 1;
}
static_assert(in_module_order(), "kModules must list every Module once, in its order");

}  // namespace

const char* stack_name(Stack stack) {
  switch (stack) {
    case Stack::Encoder: return "encoder";
    case Stack::Decoder: return "decoder";
    case Stack::Shared: return "shared";
  }
  return "?";
}

std::string module_name(Module module, Stack stack, int layer) {
  const ModuleEntry& e = kModules[static_cast<std::size_t>(module)];
  if (e.scope == Scope::Model) return e.name;
  require(stack != Stack::Shared, std::string("module_name: ") + e.name + " belongs to a stack");
  const std::string in_stack = std::string(stack_name(stack)) + "/";
  if (e.scope == Scope::Stack) return in_stack + e.name;
  require(layer >= 0, std::string("module_name: ") + e.name + " belongs to a layer");
  return in_stack + "layers/" + std::to_string(layer) + "/" + e.name;
}

std::string tensor_name(const std::string& module, Leaf leaf) {
  switch (leaf) {
    case Leaf::Weight: return module + "/weight";
    case Leaf::Bias: return module + "/bias";
    case Leaf::LoraA: return module + "/lora_a";
    case Leaf::LoraB: return module + "/lora_b";
  }
  return module;
}

bool is_lora_tensor(const std::string& name) {
  auto ends_with = [&](const std::string& leaf) {
    return name.size() > leaf.size() && name.compare(name.size() - leaf.size(), leaf.size(), leaf) == 0;
  };
  return ends_with("/lora_a") || ends_with("/lora_b");
}

std::string tensor_name(Module module, Leaf leaf, Stack stack, int layer) {
  return tensor_name(module_name(module, stack, layer), leaf);
}

std::string source_embedding_name(const ModelConfig& c) {
  return c.shared_embeddings() ? tensor_name(Module::SharedEmbedding, Leaf::Weight)
                               : tensor_name(Module::Embedding, Leaf::Weight, Stack::Encoder);
}

std::string target_embedding_name(const ModelConfig& c) {
  return c.shared_embeddings() ? tensor_name(Module::SharedEmbedding, Leaf::Weight)
                               : tensor_name(Module::Embedding, Leaf::Weight, Stack::Decoder);
}

std::string output_projection_name(const ModelConfig& c) {
  return c.own_output_layer() ? tensor_name(Module::OutputProjection, Leaf::Weight) : target_embedding_name(c);
}

std::array<Module, 2> relative_bias_modules(const ModelConfig& c) {
  if (c.untie_relative) return {Module::LayerRelativeU, Module::LayerRelativeV};
  return {Module::RelativeU, Module::RelativeV};
}

}  // namespace heptapod
