// Hugging Face encoder checkpoints with their tokenizers, as `heptapod convert` takes them: a BERT, RoBERTa,
// XLM-R or DistilBERT directory (io/bert_import.h: the weights; data/pretrained_vocab.h: the tokenizer and
// its special ids), or a sentence-transformers directory over one of them (io/sentence_transformers.h: its
// pooling, normalisation and length become the model's embedding defaults).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/io/bert_import.h"

namespace heptapod {

struct ImportedEncoder {
  std::unique_ptr<Transformer<float>> model;
  ModelVocabularies vocabs;          // the tokenizer, and a classifier's label names
  std::vector<std::string> notices;  // what was dropped, and why
};

// dir: a checkpoint of `family` (its config.json's model_type must be one the family takes).
ImportedEncoder import_encoder(const std::string& dir, BertFamily family);

// dir: a sentence-transformers directory (modules.json) over a BERT, RoBERTa, XLM-R or DistilBERT checkpoint,
// the family from its config.json's model_type.
ImportedEncoder import_sentence_transformers(const std::string& dir);

}  // namespace heptapod
