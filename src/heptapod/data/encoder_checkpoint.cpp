// Encoder checkpoints: the family's tokenizer and special ids, then its weights; sentence-transformers'
// embedding defaults and Dense weights on top.
#include "heptapod/data/encoder_checkpoint.h"

#include "heptapod/core/error.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/sentence_transformers.h"

namespace heptapod {

namespace {

ImportedEncoder import_with(const std::string& dir, BertFamily family, const SentenceTransformersLayout* layout) {
  BertVocabulary vocabulary = family == BertFamily::Roberta ? roberta_vocabulary(dir) : bert_vocabulary(dir);
  BertImport imported = import_bert(dir, vocabulary.ids, family, [&](ModelConfig& c) {
    if (layout) apply_sentence_embedding(*layout, c);
  });
  if (layout) copy_dense_weights(*layout, *imported.model);
  ImportedEncoder out{std::move(imported.model), {std::move(vocabulary.vocabulary), {}, {}}, std::move(imported.notices)};
  if (!imported.labels.empty()) out.vocabs.labels = LabelNames(imported.labels);
  check_vocabularies(out.vocabs, out.model->config(), dir);
  return out;
}

}  // namespace

ImportedEncoder import_encoder(const std::string& dir, BertFamily family) { return import_with(dir, family, nullptr); }

ImportedEncoder import_sentence_transformers(const std::string& dir) {
  const SentenceTransformersLayout layout = read_sentence_transformers(dir);
  const std::string config = layout.transformer_dir + "/config.json";
  return import_with(layout.transformer_dir, bert_family(read_file(config), config), &layout);
}

}  // namespace heptapod
