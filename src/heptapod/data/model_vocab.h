// Vocabularies inside model files: tensors extra/vocab/source and extra/vocab/target hold SentencePiece's
// serialized models (U8), so `translate` needs nothing but the model file; a vocabulary with its own ids adds
// extra/vocab/source_ids or extra/vocab/target_ids (U8, Vocabulary::serialized_ids JSON). A one-stack model
// has one vocabulary: a decoder-only model's is its target (the tokens it reads and writes), an encoder-only
// model's its source. A classifier's class names are extra/labels.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "heptapod/data/vocabulary.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

// A classifier's class names in id order, stored as extra/labels: their JSON array (U8).
class LabelNames {
 public:
  LabelNames() = default;
  explicit LabelNames(std::vector<std::string> names);  // distinct, non-empty names; an Error otherwise
  static LabelNames from_json(const std::string& json_text, const std::string& where);
  const std::vector<std::string>& names() const { return names_; }
  const std::string& json() const { return json_; }
  int size() const { return static_cast<int>(names_.size()); }
  bool empty() const { return names_.empty(); }
  int id_of(const std::string& name) const;  // -1 when not a class

 private:
  std::vector<std::string> names_;
  std::string json_;
};

struct ModelVocabularies {
  Vocabulary source, target;  // a one-stack model's other side is empty()
  LabelNames labels;          // a classifier's (config.labels of them)
};

// Extra tensors pointing into the vocabularies' serialized models, the empty side left out (keep them alive
// until written).
std::vector<ExtraTensor> vocabulary_tensors(const ModelVocabularies& vocabs);

// Whether a vocabulary serves an embedding of `rows` rows: it has exactly that many pieces, or, a tokenizer.json
// tokenizer or an id table whose special pieces are read in text (T5's), at most that many (Qwen and T5 pad
// their tables past the tokenizer).
bool vocabulary_fits(const Vocabulary& vocab, int rows);

// The vocabularies stored in a model file, or nothing if it has none; a damaged one is an Error. Also checks
// that their sizes fit the model config (vocabulary_fits).
std::optional<ModelVocabularies> read_vocabularies(const SafetensorsFile& file, const ModelConfig& config);

// A classifier's class names as `file` stores them (extra/labels), none for a config without a classifier; an
// Error names the file when they are missing, damaged or not config.labels of them.
LabelNames read_label_names(const SafetensorsFile& file, const ModelConfig& config);

// The vocabularies of the model to fine-tune, its file and config (with their own ids, if it was converted);
// an Error naming the file when it holds none.
ModelVocabularies fine_tuning_vocabularies(const SafetensorsFile& file, const ModelConfig& config);

}  // namespace heptapod
