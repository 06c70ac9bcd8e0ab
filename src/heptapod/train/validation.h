// Validation on a dev set: cross-entropy and perplexity over every pair, and BLEU of beam-search
// translations of the first sentences against the raw reference lines.
#pragma once

#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/data/language_codes.h"
#include "heptapod/data/parallel_corpus.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

struct ValidationResult {
  double cross_entropy = 0;  // nats per target token (no label smoothing)
  double perplexity = 0;
  long long tokens = 0;
  double bleu = -1;          // -1 when not computed
  int bleu_sentences = 0;
};

struct DevSet {
  ParallelCorpus corpus;
  std::vector<std::string> references;  // raw target line of each corpus pair
};

// `tags`: a multilingual model's languages, each pair tagged as in training (the translations forced to begin
// with the target's code, which their text leaves out).
ValidationResult validate_model(Transformer<float>& model, const DevSet& dev, const ModelVocabularies& vocabs,
                                int batch_tokens, int bleu_sentences, const SearchOptions& search, Arena& arena,
                                const LanguageTags& tags = {});

}  // namespace heptapod
