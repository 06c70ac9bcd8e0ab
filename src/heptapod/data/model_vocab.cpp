// Vocabulary tensors in model files.
#include "heptapod/data/model_vocab.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/data/tokenizer.h"

namespace heptapod {

LabelNames::LabelNames(std::vector<std::string> names) : names_(std::move(names)) {
  std::set<std::string> seen;
  for (const std::string& n : names_) {
    require(!n.empty(), "labels: an empty class name");
    require(seen.insert(n).second, "labels: the class \"" + n + "\" twice");
  }
  json_ = nlohmann::json(names_).dump();
}

LabelNames LabelNames::from_json(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_array(), where + ": extra/labels is not a JSON array");
  std::vector<std::string> names;
  for (const auto& n : j) {
    require(n.is_string(), where + ": extra/labels holds a non-string");
    names.push_back(n.get<std::string>());
  }
  try {
    return LabelNames(std::move(names));
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
}

int LabelNames::id_of(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
}

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
  if (!v.labels.empty()) add("extra/labels", v.labels.json());
  return out;
}

bool vocabulary_fits(const Vocabulary& vocab, int rows) {
  const bool padded_table = (vocab.tokenizer() && std::string(vocab.tokenizer()->kind()) == "tokenizer.json") ||
                            (vocab.ids() && vocab.ids()->written_specials);
  return padded_table ? vocab.size() <= rows : vocab.size() == rows;
}

LabelNames read_label_names(const SafetensorsFile& file, const ModelConfig& config) {
  const TensorEntry* labels = file.find("extra/labels");
  require((labels != nullptr) == (config.labels > 0),
          file.where() + (config.labels > 0 ? ": a classifier's file needs extra/labels, its class names"
                                            : ": extra/labels in a model without a classifier"));
  if (!labels) return {};
  require(labels->dtype == DType::U8, file.where() + ": tensor extra/labels must be U8");
  std::string text(reinterpret_cast<const char*>(file.data(*labels)), labels->end - labels->begin);
  file.check_intact();
  LabelNames names = LabelNames::from_json(text, file.where());
  require(names.size() == config.labels, file.where() + ": extra/labels names " + std::to_string(names.size()) +
                                             " classes, the config " + std::to_string(config.labels));
  return names;
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
  v.labels = read_label_names(file, config);
  require((!s || vocabulary_fits(v.source, config.src_vocab_size)) &&
              (!t || vocabulary_fits(v.target, config.tgt_vocab_size)),
          file.where() + ": the stored vocabularies (" + std::to_string(v.source.size()) + ", " +
              std::to_string(v.target.size()) + " pieces) do not match the model's vocabulary sizes (" +
              std::to_string(config.src_vocab_size) + ", " + std::to_string(config.tgt_vocab_size) + ")");
  return v;
}

ModelVocabularies fine_tuning_vocabularies(const SafetensorsFile& file, const ModelConfig& config) {
  auto vocabs = read_vocabularies(file, config);
  require(vocabs.has_value(), file.where() + " holds no vocabularies, so it cannot be fine-tuned on text");
  return std::move(*vocabs);
}

}  // namespace heptapod
