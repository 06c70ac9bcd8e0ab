// Shape-checked tensor copies from foreign state dicts.
#include "heptapod/io/state_dict_copy.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

// Drops unit dimensions, so that (1, n) and (n) compare equal.
std::vector<std::int64_t> squeezed(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> out;
  for (auto d : shape)
    if (d != 1) out.push_back(d);
  return out;
}

}  // namespace

StateDictCopier::StateDictCopier(std::vector<const SafetensorsFile*> files, Transformer<float>& model)
    : files_(std::move(files)), model_(model) {
  require(!files_.empty(), "import: a checkpoint of no files");
  for (const SafetensorsFile* f : files_)
    for (const TensorEntry& e : f->tensors()) {
      const auto [it, fresh] = owner_.emplace(e.name, f);
      require(fresh, f->where() + ": tensor \"" + e.name + "\" is also in " + it->second->where());
    }
}

const SafetensorsFile& StateDictCopier::file_of(const std::string& src) const {
  const auto it = owner_.find(src);
  return it == owner_.end() ? *files_.front() : *it->second;
}

const std::vector<std::int64_t>& StateDictCopier::shape_of(const std::string& dst) const {
  for (const auto& spec : model_.parameters().specs())
    if (spec.name == dst) return spec.shape;
  throw Error("import: the model has no parameter " + dst);
}

std::vector<double> StateDictCopier::values(const std::string& src) {
  used_.insert(src);
  return file_of(src).floats<double>(src);
}

void StateDictCopier::copy(const std::string& src, const std::string& dst) {
  const SafetensorsFile& file = file_of(src);
  const TensorEntry& e = file.at(src);
  const auto& shape = shape_of(dst);
  require(squeezed(e.shape) == squeezed(shape), file.where() + ": tensor \"" + src + "\" has shape " +
                                                   shape_text(e.shape) + ", but " + dst + " needs " + shape_text(shape));
  const std::vector<float> v = file.floats<float>(src);
  std::copy(v.begin(), v.end(), model_.parameters().value(dst));
  used_.insert(src);
}

void StateDictCopier::copy_part(const std::string& src, std::int64_t first, const std::string& dst) {
  const TensorEntry& e = file_of(src).at(src);
  std::int64_t count = 1;
  for (auto d : shape_of(dst)) count *= d;
  require(first >= 0 && first + count <= e.numel(),
          file_of(src).where() + ": tensor \"" + src + "\" " + shape_text(e.shape) + " is too small for " + dst);
  const std::vector<float>& v = part_source(src);
  std::copy(v.begin() + first, v.begin() + first + count, model_.parameters().value(dst));
  used_.insert(src);
}

void StateDictCopier::copy_transposed_columns(const std::string& src, std::int64_t first, const std::string& dst) {
  const TensorEntry& e = file_of(src).at(src);
  const auto& shape = shape_of(dst);
  require(e.shape.size() == 2 && shape.size() == 2 && e.shape[0] == shape[1] && first >= 0 &&
              first + shape[0] <= e.shape[1],
          file_of(src).where() + ": tensor \"" + src + "\" has shape " + shape_text(e.shape) + ", but " + dst + " " +
              shape_text(shape) + " needs (" + std::to_string(shape[1]) + ", at least " +
              std::to_string(first + shape[0]) + ") stored as (in, out)");
  const std::vector<float>& v = part_source(src);
  const std::int64_t rows = shape[0], in = shape[1], stride = e.shape[1];
  float* out = model_.parameters().value(dst);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t i = 0; i < in; ++i) out[r * in + i] = v[static_cast<std::size_t>(i * stride + first + r)];
  used_.insert(src);
}

const std::vector<float>& StateDictCopier::part_source(const std::string& src) {
  if (part_name_ != src) {
    part_values_ = file_of(src).floats<float>(src);
    part_name_ = src;
  }
  return part_values_;
}

void StateDictCopier::copy_module(const std::string& theirs, const std::string& ours, Stored stored, int block) {
  const std::string weight = tensor_name(ours, Leaf::Weight), bias = tensor_name(ours, Leaf::Bias);
  switch (stored) {
    case Stored::AsOurs:
      require(block < 0, "import: " + theirs + " stored as ours has no blocks");
      copy(theirs + ".weight", weight);
      if (model_.parameters().contains(bias)) copy(theirs + ".bias", bias);
      return;
    case Stored::Conv1D: {
      const std::int64_t rows = shape_of(weight)[0];
      copy_transposed_columns(theirs + ".weight", std::max(block, 0) * rows, weight);
      if (block < 0) copy(theirs + ".bias", bias);
      else copy_part(theirs + ".bias", block * rows, bias);
      return;
    }
    case Stored::InProjection: {
      require(block >= 0, "import: " + theirs + " is an in-projection, stacked by blocks");
      const std::int64_t rows = shape_of(weight)[0], in = shape_of(weight)[1];
      copy_part(theirs + "_weight", block * rows * in, weight);
      copy_part(theirs + "_bias", block * rows, bias);
      return;
    }
  }
}

void StateDictCopier::copy_layers(const std::string& prefix, std::span<const ModuleMapping> modules, Stack stack,
                                  int layers) {
  for (int i = 0; i < layers; ++i)
    for (const ModuleMapping& m : modules)
      copy_module(prefix + std::to_string(i) + "." + m.theirs, module_name(m.ours, stack, i), m.stored, m.block);
}

void StateDictCopier::require_tied(const std::string& name, const std::string& reference) {
  if (!has(name) || name == reference) return;
  require(values(name) == values(reference),
          file_of(name).where() + ": \"" + name + "\" differs from \"" + reference + "\", but the config ties them");
}

std::vector<ModuleMapping> bart_layer_modules(Stack stack) {
  std::vector<ModuleMapping> modules = {
      {"self_attn.q_proj", Module::SelfAttnQuery},   {"self_attn.k_proj", Module::SelfAttnKey},
      {"self_attn.v_proj", Module::SelfAttnValue},   {"self_attn.out_proj", Module::SelfAttnOutput},
      {"self_attn_layer_norm", Module::SelfAttnNorm}};
  if (stack == Stack::Decoder)
    modules.insert(modules.end(), {{"encoder_attn.q_proj", Module::CrossAttnQuery},
                                   {"encoder_attn.k_proj", Module::CrossAttnKey},
                                   {"encoder_attn.v_proj", Module::CrossAttnValue},
                                   {"encoder_attn.out_proj", Module::CrossAttnOutput},
                                   {"encoder_attn_layer_norm", Module::CrossAttnNorm}});
  modules.insert(modules.end(),
                 {{"fc1", Module::FfnIn}, {"fc2", Module::FfnOut}, {"final_layer_norm", Module::FfnNorm}});
  return modules;
}

void StateDictCopier::require_all_used(const std::vector<std::string>& ignorable, const std::string& what) const {
  for (const auto& [name, file] : owner_) {
    const TensorEntry& e = *file->find(name);
    // PyTorch names are dotted module paths; names with a slash are not parameters (test fixtures keep their
    // batches and expected values beside the weights under such names).
    if (used_.count(e.name) || e.name.find('/') != std::string::npos) continue;
    bool ignored = false;
    for (const auto& suffix : ignorable)
      ignored = ignored || (e.name.size() >= suffix.size() && e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0);
    require(ignored, file->where() + ": tensor \"" + e.name + "\" has no place in the converted model: the " + what +
                         " has a part that Heptapod's model config cannot express (or the config does not say it is there)");
  }
}

void copy_bart_embeddings(StateDictCopier& copy, const ModelConfig& c) {
  // A tied checkpoint may keep only one name of the shared matrix.
  auto first_present = [&](std::initializer_list<const char*> names) -> std::string {
    for (const char* n : names)
      if (copy.has(n)) return n;
    throw Error(copy.file_of(*names.begin()).where() + ": none of " + std::string(*names.begin()) +
                " and its tied names is present");
  };
  const std::string src_emb = first_present({"model.shared.weight", "model.encoder.embed_tokens.weight"});
  if (c.tie_embeddings == EmbeddingTying::All) {
    copy.copy(src_emb, source_embedding_name(c));
    for (const char* n : {"model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                          "lm_head.weight"})
      copy.require_tied(n, src_emb);
  } else {
    copy.copy(src_emb, source_embedding_name(c));
    copy.copy("model.decoder.embed_tokens.weight", target_embedding_name(c));
    if (c.tie_embeddings == EmbeddingTying::TargetOutput) copy.require_tied("lm_head.weight", "model.decoder.embed_tokens.weight");
    else copy.copy("lm_head.weight", output_projection_name(c));
  }
}

void require_close(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what) {
  require(a.size() == b.size(), what + ": sizes differ");
  for (std::size_t i = 0; i < a.size(); ++i)
    require(std::abs(a[i] - b[i]) <= tol * (1 + std::abs(b[i])),
            what + ": element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", expected " + std::to_string(b[i]));
}

}  // namespace heptapod
