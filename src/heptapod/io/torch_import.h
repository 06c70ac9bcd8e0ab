// Import of weights trained in PyTorch, from a state dict saved as safetensors
// (tools/export_state_dict.py writes one from a .pt file):
//   - "heptapod": a state dict that already uses Heptapod's parameter names (e.g. the parity reference
//     model in tools/make_parity_fixtures.py); the config is given.
//   - "nn-transformer": a plain nn.Transformer-based model in the layout of PyTorch's translation tutorial
//     (transformer.*, src_tok_emb.embedding, tgt_tok_emb.embedding, generator); the architecture is read from
//     the tensor shapes (final norms: present or not, in both stacks alike), the rest of the config is given:
//     the heads and the norm position (nn.Transformer's norm_first leaves the same tensors either way).
#pragma once

#include <memory>
#include <string>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

struct NnTransformerImportOptions {
  int n_heads = 8;  // not recoverable from the weights
  NormPosition norm = NormPosition::Post;  // nor is this
  float layer_norm_eps = 1e-5f;
  int pad_id = 0, bos_id = 1, eos_id = 2;
  float dropout = 0.1f;  // training settings stored in the config for fine-tuning
};

std::unique_ptr<Transformer<float>> import_nn_transformer(const SafetensorsFile& file,
                                                          const NnTransformerImportOptions& options);

std::unique_ptr<Transformer<float>> import_heptapod_state_dict(const SafetensorsFile& file, const ModelConfig& config);

}  // namespace heptapod
