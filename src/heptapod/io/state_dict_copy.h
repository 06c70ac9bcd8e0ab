// Copies tensors of a foreign state dict (safetensors, F32 or F64) into a model's parameters, checking shapes
// and remembering what was read, so that an importer can refuse a checkpoint holding tensors it did not use:
// a tensor left over means the model has a part Heptapod's config cannot express. Importers name what they copy
// by tables of ModuleMapping: their module's name -> our module.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/parameter_names.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// How a checkpoint stores one of its modules.
enum class Stored {
  AsOurs,        // "<theirs>.weight" and "<theirs>.bias" shaped as ours: a linear layer (out, in), a norm
  Conv1D,        // GPT-2's: "<theirs>.weight" (in, out), transposed into ours, and "<theirs>.bias"
  InProjection,  // nn.MultiheadAttention's q|k|v: "<theirs>_weight" (3C, C) and "<theirs>_bias", stacked by rows
};

// One row of an importer's table of names: a module of the checkpoint (its name below a layer's, or whole) and
// the module of ours (parameter_names.h) it holds. A module of theirs that stacks several of ours (q|k|v) has
// a row for each, `block` the place of ours among them.
struct ModuleMapping {
  const char* theirs;
  Module ours;
  Stored stored = Stored::AsOurs;
  int block = -1;  // -1: the whole of theirs; k: the k-th of the blocks of ours' size that theirs stacks
};

class StateDictCopier {
 public:
  StateDictCopier(const SafetensorsFile& file, Transformer<float>& model) : StateDictCopier({&file}, model) {}
  // A checkpoint in several files (shards): each tensor name in one of them.
  StateDictCopier(std::vector<const SafetensorsFile*> files, Transformer<float>& model);

  // The whole of tensor `src` into parameter `dst`, whose shape it must have (a (1, n) row or a (n, 1) column
  // counts as (n)).
  void copy(const std::string& src, const std::string& dst);
  // Their module `theirs` (its whole name) into our module `ours` (module_name()), stored as `stored` says;
  // block: as ModuleMapping's. A bias our layout does not have is not copied (and, left unread, makes
  // require_all_used refuse the checkpoint).
  void copy_module(const std::string& theirs, const std::string& ours, Stored stored = Stored::AsOurs,
                   int block = -1);
  // Layers [0, layers) of `stack`: in layer i, each row's module "<prefix><i>.<theirs>" into ours.
  void copy_layers(const std::string& prefix, std::span<const ModuleMapping> modules, Stack stack, int layers);
  // A tied duplicate: `name`, if present, must hold exactly the values of `reference` (it is then marked read).
  void require_tied(const std::string& name, const std::string& reference);
  // Marks a tensor as read without copying it (checked by the caller, or a duplicate of a tied one).
  void skip(const std::string& src) { used_.insert(src); }
  // The values of `src` (F32 or F64) as doubles, marking it read.
  std::vector<double> values(const std::string& src);
  bool has(const std::string& src) const { return owner_.count(src) > 0; }
  // The file holding `src` (the first file when none does, for its messages).
  const SafetensorsFile& file_of(const std::string& src) const;

  // Throws Error naming the first tensor never read, unless its name ends with one of `ignorable`.
  void require_all_used(const std::vector<std::string>& ignorable, const std::string& what) const;

 private:
  const std::vector<std::int64_t>& shape_of(const std::string& dst) const;
  // Elements [first, first + count) of `src` into `dst` (count = dst's size): one block of a stacked tensor.
  void copy_part(const std::string& src, std::int64_t first, const std::string& dst);
  // Columns [first, first + rows) of `src`, an (in, out) matrix as GPT-2's Conv1D keeps its weight, transposed
  // into `dst` (rows, in): one projection of a stacked q|k|v weight, or (first 0) a whole one.
  void copy_transposed_columns(const std::string& src, std::int64_t first, const std::string& dst);
  const std::vector<float>& part_source(const std::string& src);

  std::vector<const SafetensorsFile*> files_;
  std::map<std::string, const SafetensorsFile*> owner_;  // tensor name -> its file
  Transformer<float>& model_;
  std::set<std::string> used_;
  std::string part_name_;          // the stacked tensor copy_part read last
  std::vector<float> part_values_;  // its values, kept for its next block
};

// The layer modules Hugging Face's BART family (Marian) and fairseq name alike ("self_attn.q_proj",
// "self_attn_layer_norm", "fc1", ...): an encoder layer's, or a decoder layer's with its cross-attention
// ("encoder_attn").
std::vector<ModuleMapping> bart_layer_modules(Stack stack);

// The token embeddings of Hugging Face's BART family (MarianMT, M2M100, mBART) as the config's tying says:
// all tied, the shared matrix under whichever of its names ("model.shared.weight", the stacks'
// "embed_tokens", "lm_head.weight") the checkpoint keeps, every other copy required equal; else the source
// and target tables, and "lm_head.weight" tied to the target's or copied.
void copy_bart_embeddings(StateDictCopier& copy, const ModelConfig& config);

// Throws Error if `a` and `b` (same size) differ anywhere by more than tol * (1 + |b|).
void require_close(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what);

}  // namespace heptapod
