// Vocabulary tensors in model files.
#include "heptapod/data/model_vocab.h"

#include "heptapod/core/error.h"

namespace heptapod {

std::vector<ExtraTensor> vocabulary_tensors(const ModelVocabularies& v) {
  std::vector<ExtraTensor> out;
  auto add = [&](const std::string& name, const std::string& bytes) {
    out.push_back({name, DType::U8, {static_cast<std::int64_t>(bytes.size())}, bytes.data()});
  };
  for (const auto& [role, vocab] : {std::pair<const char*, const Vocabulary*>{"source", &v.source}, {"target", &v.target}}) {
    if (vocab->empty()) continue;
    add(std::string("extra/vocab/") + role, vocab->serialized());
    if (vocab->ids()) add(std::string("extra/vocab/") + role + "_ids", vocab->serialized_ids());
  }
  return out;
}

std::optional<ModelVocabularies> read_vocabularies(const SafetensorsFile& file, const ModelConfig& config) {
  const TensorEntry* s = file.find("extra/vocab/source");
  const TensorEntry* t = file.find("extra/vocab/target");
  if (!s && !t) return std::nullopt;
  // The sides the model has (a vocabulary size): each needs its vocabulary, and only those.
  const bool has_source = config.src_vocab_size > 0, has_target = config.tgt_vocab_size > 0;
  require(has_source == (s != nullptr) && has_target == (t != nullptr),
          file.where() + ": a " + architecture_name(config.architecture) + " model stores " +
              (has_source && has_target ? "extra/vocab/source and extra/vocab/target"
                                        : has_source ? "extra/vocab/source alone" : "extra/vocab/target alone"));
  require((!s || s->dtype == DType::U8) && (!t || t->dtype == DType::U8),
          file.where() + ": vocabulary tensors extra/vocab/source and extra/vocab/target must be U8");
  auto blob = [&](const TensorEntry* e) {
    std::string bytes(reinterpret_cast<const char*>(file.data(*e)), e->end - e->begin);
    file.check_intact();
    return bytes;
  };
  auto load = [&](const TensorEntry* e, const std::string& role) {
    const std::string where = file.where() + " (" + role + " vocabulary)";
    const TensorEntry* ids = file.find("extra/vocab/" + role + "_ids");
    if (!ids) return Vocabulary::from_serialized(blob(e), where);
    require(ids->dtype == DType::U8, file.where() + ": tensor extra/vocab/" + role + "_ids must be U8");
    return Vocabulary::from_serialized(blob(e), vocab_ids_from_json(blob(ids), where), where);
  };
  ModelVocabularies v;
  if (s) v.source = load(s, "source");
  if (t) v.target = load(t, "target");
  require((!s || v.source.size() == config.src_vocab_size) && (!t || v.target.size() == config.tgt_vocab_size),
          file.where() + ": the stored vocabularies (" + std::to_string(v.source.size()) + ", " +
              std::to_string(v.target.size()) + " pieces) do not match the model's vocabulary sizes (" +
              std::to_string(config.src_vocab_size) + ", " + std::to_string(config.tgt_vocab_size) + ")");
  return v;
}

ModelVocabularies fine_tuning_vocabularies(const std::string& path) {
  const SafetensorsFile file = SafetensorsFile::read(path);
  auto vocabs = read_vocabularies(file, read_model_config(file));
  require(vocabs.has_value(), path + " holds no vocabularies, so it cannot be fine-tuned on text");
  return std::move(*vocabs);
}

}  // namespace heptapod
