// Vocabulary tensors in model files.
#include "heptapod/data/model_vocab.h"

#include "heptapod/core/error.h"

namespace heptapod {

std::vector<ExtraTensor> vocabulary_tensors(const ModelVocabularies& v) {
  const std::string& s = v.source.serialized();
  const std::string& t = v.target.serialized();
  return {{"extra/vocab/source", DType::U8, {static_cast<std::int64_t>(s.size())}, s.data()},
          {"extra/vocab/target", DType::U8, {static_cast<std::int64_t>(t.size())}, t.data()}};
}

std::optional<ModelVocabularies> read_vocabularies(const SafetensorsFile& file, const ModelConfig& config) {
  const TensorEntry* s = file.find("extra/vocab/source");
  const TensorEntry* t = file.find("extra/vocab/target");
  if (!s && !t) return std::nullopt;
  require(s && t && s->dtype == DType::U8 && t->dtype == DType::U8,
          file.where() + ": vocabulary tensors extra/vocab/source and extra/vocab/target must both be U8");
  auto blob = [&](const TensorEntry* e) {
    return std::string(reinterpret_cast<const char*>(file.data(*e)), e->end - e->begin);
  };
  ModelVocabularies v{Vocabulary::from_serialized(blob(s), file.where() + " (source vocabulary)"),
                      Vocabulary::from_serialized(blob(t), file.where() + " (target vocabulary)")};
  require(v.source.size() == config.src_vocab_size && v.target.size() == config.tgt_vocab_size,
          file.where() + ": the stored vocabularies (" + std::to_string(v.source.size()) + ", " +
              std::to_string(v.target.size()) + " pieces) do not match the model's vocabulary sizes (" +
              std::to_string(config.src_vocab_size) + ", " + std::to_string(config.tgt_vocab_size) + ")");
  return v;
}

}  // namespace heptapod
