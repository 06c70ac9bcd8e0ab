// Copies tensors of a foreign state dict (safetensors, F32 or F64) into a model's parameters, checking shapes
// and remembering what was read, so that an importer can refuse a checkpoint holding tensors it did not use:
// a tensor left over means the model has a part Heptapod's config cannot express.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/parameter_layout.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

class StateDictCopier {
 public:
  StateDictCopier(const SafetensorsFile& file, Transformer<float>& model) : file_(file), model_(model) {}

  // The whole of tensor `src` into parameter `dst`, whose shape it must have (a (1, n) row or a (n, 1) column
  // counts as (n)).
  void copy(const std::string& src, const std::string& dst);
  // Elements [first, first + count) of `src` into `dst` (count = dst's size): one block of a stacked tensor.
  void copy_part(const std::string& src, std::int64_t first, const std::string& dst);
  // Columns [first, first + rows) of `src`, an (in, out) matrix as GPT-2's Conv1D keeps its weight, transposed
  // into `dst` (rows, in): one projection of a stacked q|k|v weight, or (first 0) a whole one.
  void copy_transposed_columns(const std::string& src, std::int64_t first, const std::string& dst);
  // src.weight and src.bias into dst/weight and dst/bias (a linear layer or a layer norm).
  void copy_linear(const std::string& src, const std::string& dst);
  // A tied duplicate: `name`, if present, must hold exactly the values of `reference` (it is then marked read).
  void require_tied(const std::string& name, const std::string& reference);
  // Marks a tensor as read without copying it (checked by the caller, or a duplicate of a tied one).
  void skip(const std::string& src) { used_.insert(src); }
  // The values of `src` (F32 or F64) as doubles, marking it read.
  std::vector<double> values(const std::string& src);
  bool has(const std::string& src) const { return file_.find(src) != nullptr; }

  // Throws Error naming the first tensor never read, unless its name ends with one of `ignorable`.
  void require_all_used(const std::vector<std::string>& ignorable, const std::string& what) const;

 private:
  const std::vector<std::int64_t>& shape_of(const std::string& dst) const;
  const std::vector<float>& part_source(const std::string& src);

  const SafetensorsFile& file_;
  Transformer<float>& model_;
  std::set<std::string> used_;
  std::string part_name_;          // the stacked tensor copy_part read last
  std::vector<float> part_values_;  // its values, kept for its next block
};

// The names of one checkpoint layout's layer tensors: layer i's are "<prefix>i.<module>".
struct LayerNaming {
  std::string encoder_prefix, decoder_prefix;
  std::string self_attn, cross_attn, fc1, fc2;
  std::string encoder_norms[2];  // after self-attention, after the FFN
  std::string decoder_norms[3];  // after self-attention, after cross-attention, after the FFN
  // Q, K and V stacked by rows in one in_proj_weight (3C, C) and in_proj_bias (3C), as nn.MultiheadAttention
  // keeps them; otherwise q_proj, k_proj and v_proj linear layers.
  bool packed_qkv = false;
};

// The names Hugging Face's BART family (Marian) and fairseq share: self_attn, encoder_attn, fc1, fc2,
// self_attn_layer_norm, encoder_attn_layer_norm and final_layer_norm, attention as {q,k,v,out}_proj.
LayerNaming bart_layer_naming(const std::string& encoder_prefix, const std::string& decoder_prefix);

// Every encoder and decoder layer's attention, FFN and layer-norm tensors into the model.
void copy_encoder_decoder_layers(StateDictCopier& copy, const ModelConfig& config, const LayerNaming& names);

// Throws Error if `a` and `b` (same size) differ anywhere by more than tol * (1 + |b|).
void require_close(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what);

}  // namespace heptapod
