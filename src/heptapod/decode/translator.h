// The Translator, the translation front end: everything between text in and text out, shared by `heptapod
// translate`, `heptapod score`, `heptapod serve`, the Python module and any program that links the library.
// It loads an encoder-decoder model file (which carries its vocabularies), batches sentences by length under a
// token budget, searches, and restores input order.
//
//   heptapod::Translator translator("model.htp");
//   heptapod::TranslateOptions options;  // beam 4, alpha 0.6, up to source length + 50
//   auto result = translator.translate({"hola mundo"}, options);
//   std::cout << result[0].hypotheses[0].text << "\n";
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/inference_model.h"
#include "heptapod/decode/sampling_search.h"
#include "heptapod/decode/scoring.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

struct TranslateOptions {
  SearchOptions search;
  bool sample = false;        // draw search.nbest samples per sentence (sampling_search.h) instead of beam search
  SamplingOptions sampling;
  int batch_tokens = 4096;       // source tokens per search batch (sentences sorted by length)
  int max_input_tokens = 1024;   // longer inputs are truncated to this many tokens (or rejected)
  bool reject_long_inputs = false;
  // A multilingual model's languages (data/language_codes.h: its codes, or ISO 639-1 codes resolved to them;
  // empty: none): the source tagged with its code first ([code] X </s>), every translation forced to begin with
  // the target's code after the decoder's start token (the code is not part of the translation's text).
  std::string source_language, target_language;
};

struct TranslatedHypothesis {
  std::string text;
  std::vector<int> tokens;
  float score = 0;          // length-normalised log-probability
  float log_prob = 0;
  std::string alignment;    // "i-j" pairs: source token i aligned to output token j (sub-word positions)
};

struct Translation {
  std::vector<TranslatedHypothesis> hypotheses;  // best first; empty for an empty input line
  std::string warning;                           // e.g. truncation; empty if none
};

class Translator {
 public:
  // Loads the model and its vocabularies; a file that does not load, or has no vocabularies, is an Error.
  explicit Translator(const std::string& model_path, const ModelLoadOptions& options = {});

  // target_prefixes: empty, or one per sentence: text every translation of it begins with (an empty one
  // forces nothing); the translation is the prefix and the model's continuation.
  std::vector<Translation> translate(const std::vector<std::string>& sentences, const TranslateOptions& options,
                                     const std::vector<std::string>& target_prefixes = {});
  // Log-probabilities of target sentences given source sentences (same count); with a multilingual model's
  // languages (as TranslateOptions names them) the pairs tagged as translate tags them, the target's code
  // scored as its first token.
  std::vector<SentenceScore> score(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                                   int batch_tokens = 4096, const std::string& source_language = "",
                                   const std::string& target_language = "");

  const ModelConfig& config() const { return model_->config(); }
  const ModelVocabularies& vocabularies() const { return vocabs_; }
  // A multilingual model's language codes (empty for others).
  const LanguageCodes& languages() const { return languages_; }
  // How the model computes (ModelLoadOptions resolved against the file).
  const InferencePrecision& precision() const { return model_->precision(); }

 private:
  std::shared_ptr<Transformer<float>> model_;  // shared with a server's adapters over it
  ModelVocabularies vocabs_;
  LanguageCodes languages_;
  std::unique_ptr<IncrementalDecoder> decoder_;
  bool prepared_ = false;  // prepare_for_batches() done
};

}  // namespace heptapod
