// Copies tensors of a foreign state dict (safetensors, F32 or F64) into a model's parameters, checking shapes
// and remembering what was read, so that an importer can refuse a checkpoint holding tensors it did not use:
// a tensor left over means the model has a part Heptapod's config cannot express.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
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

  const SafetensorsFile& file_;
  Transformer<float>& model_;
  std::set<std::string> used_;
};

// The layers of an encoder-decoder under the names that Hugging Face's BART family (Marian) and fairseq share:
// <encoder_prefix>i.{self_attn.{q,k,v,out}_proj, self_attn_layer_norm, fc1, fc2, final_layer_norm} and
// <decoder_prefix>i.{self_attn.*, self_attn_layer_norm, encoder_attn.*, encoder_attn_layer_norm, fc1, fc2,
// final_layer_norm}.
void copy_encoder_decoder_layers(StateDictCopier& copy, const ModelConfig& config, const std::string& encoder_prefix,
                                 const std::string& decoder_prefix);

// Throws Error if `a` and `b` (same size) differ anywhere by more than tol * (1 + |b|).
void require_close(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what);

}  // namespace heptapod
