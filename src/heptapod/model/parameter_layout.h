// The list of named parameters a config implies, in storage order (docs/model-format.md names them), each with
// its module (its name from parameter_names.h, the one table of names), shape, role and the part of the model
// it belongs to. The model, its backward stages, freezing, quantization, the model file and the importers all
// read this layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heptapod/model/parameter_names.h"
#include "heptapod/model/stack_id.h"

namespace heptapod {

struct ModelConfig;

// What a tensor is: a linear layer's weight matrix, an embedding table, a layer norm's gain or shift, a bias, a
// LoRA adapter's A or B (model/lora_config.h).
enum class ParamRole { Matrix, Embedding, Norm, Bias, Adapter };
// Where it sits: an embedding table, a layer of a stack, a decoder layer's cross-attention key/value
// projection (run for all layers at once from the encoder output), a stack's final norm, the output layer.
enum class ParamPart { Embedding, Layer, CrossKeysValues, FinalNorm, Output };

struct ParamSpec {
  std::string name;
  Module module = Module::SharedEmbedding;  // the module the tensor is of
  std::vector<std::int64_t> shape;
  // KaimingUniform: PEFT's LoRA A, kaiming-uniform with a = sqrt(5), i.e. uniform in +-1/sqrt(in).
  enum class Init { Xavier, Embedding, Zero, One, KaimingUniform } init = Init::Zero;
  ParamRole role = ParamRole::Bias;
  ParamPart part = ParamPart::Layer;
  Stack stack = Stack::Shared;  // the stack it belongs to; Shared: an embedding table both stacks read
  int layer = -1;               // the layer index within the stack (parts Layer and CrossKeysValues)
  // Frozen (a LoRA model's base): no backward pass computes its gradient and no optimiser keeps state for it.
  bool frozen = false;
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

// With LoRA (config.lora), the base's tensors are frozen but for a classifier's head (its pooler and
// classifier, trained in full beside the adapters), and the adapters follow them all: each targeted matrix's A
// and B, of its matrix's part, stack and layer. The trained tensors are thus the layout's tail.
std::vector<ParamSpec> parameter_layout(const ModelConfig& config);

}  // namespace heptapod
