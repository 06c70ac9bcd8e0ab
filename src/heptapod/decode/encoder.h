// The Encoder, the encoder-only models' front end (beside Translator and Generator), shared by `heptapod
// embed`, `heptapod classify` and `heptapod score`, the Python module and any program that links the
// library. It loads an encoder-only model file (which carries its vocabulary, and a classifier's class
// names) and turns texts into vectors, a classifier's classes or a pre-trained encoder's masked-token
// scores: each text read as BERT reads it (the start token [CLS], its tokens, the end token [SEP]; a
// sentence pair as [CLS] first [SEP] second [SEP] with the second segment's token type; cut to the model's
// learned positions), the texts batched by length, the encoder run once per batch.
//
//   heptapod::Encoder encoder("enc.htp");
//   heptapod::EmbedOptions options;  // the model's pooling and normalisation (mean, not normalised, unless
//                                    // it was converted from sentence-transformers)
//   std::vector<std::vector<float>> v = encoder.embed({"a sentence", "another"}, options);
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/data/encoder_input.h"
#include "heptapod/data/masking.h"
#include "heptapod/decode/inference_model.h"
#include "heptapod/decode/scoring.h"

namespace heptapod {

struct EmbedOptions {
  // The mean of the text's output rows (the start and end tokens included, as sentence-transformers pools
  // BERT), the start token's row ([CLS]), each dimension's largest value over the rows (max), or another of
  // sentence-transformers' modes (config.h's Pooling); unset: the model's own (ModelConfig::embed_pooling: a
  // converted sentence-transformers model's modes, else mean). The model's Dense module (embed_dense_features)
  // follows a pooling of its input width: the model's own, or one mode of a model that pools by one.
  std::optional<Pooling> pooling;
  // Scale each vector to unit L2 norm; unset: the model's own (ModelConfig::embed_normalize).
  std::optional<bool> normalize;
  bool pairs = false;       // each text a sentence pair "first<TAB>second" (data/encoder_input.h); always for a
                            // classifier of pairs (ModelConfig::sentence_pairs)
  int batch_tokens = 4096;  // padded tokens per batch
};

struct ClassifyOptions {
  int top_k = 1;            // classes listed per text, most probable first
  bool pairs = false;       // each text a sentence pair: "first<TAB>second"
  int batch_tokens = 4096;  // padded tokens per batch
};

// Masked-token scoring of a pre-trained encoder (a masked-language-model head): each text's ordinary tokens
// chosen and replaced as pre-training does (data/masking.h), the draws keyed by the seed and the text's
// index, so a text's masks do not depend on its batch-mates.
struct MaskedScoreOptions {
  MaskingOptions masking;
  std::uint64_t seed = 1;
  bool pairs = false;       // each text a sentence pair: "first<TAB>second"
  int batch_tokens = 4096;  // padded tokens per batch
};

struct ClassScore {
  std::string label;
  int id = 0;
  float probability = 0;  // softmax over the classes, or each class's sigmoid (multi-label)
};

struct Classification {
  std::vector<std::string> labels;  // the prediction: the most probable class, or every class above 0.5 (multi-label)
  std::vector<ClassScore> top;      // the top_k most probable classes, best first
};

class Encoder {
 public:
  // Loads the model and its vocabulary; a file that does not load, is not an encoder-only model or has no
  // vocabulary is an Error naming it and `purpose` (what the caller loads it for: "embedding",
  // "classification", "scoring").
  explicit Encoder(const std::string& model_path, const ModelLoadOptions& options = {},
                   const std::string& purpose = "embedding");
  // An encoder-only model already in memory (packed for inference), with its vocabularies.
  explicit Encoder(InferenceModel loaded);

  // A text, or a sentence pair, as the encoder reads it (data/encoder_input.h), cut to input_limit() tokens.
  EncoderInput encode_text(const std::string& text) const;
  EncoderInput encode_pair(const std::string& first, const std::string& second) const;
  // Lines as the encoder reads them: each a text, or with `pairs` (or for a classifier of sentence pairs,
  // config().sentence_pairs) a sentence pair "first<TAB>second" (a line without a tab is an Error naming
  // `source` and the line: first_line + its index + 1).
  std::vector<EncoderInput> encode_lines(const std::vector<std::string>& lines, bool pairs,
                                         const std::string& source = "input", std::size_t first_line = 0) const;

  // One vector per text, in order (embedding_width() floats with the model's pooling, d_model per pooling mode
  // without its Dense module); a text's vector does not depend on its batch-mates.
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts, const EmbedOptions& options);
  std::vector<std::vector<float>> embed_inputs(const std::vector<EncoderInput>& inputs, const EmbedOptions& options);
  // The width of embed's vectors under `options`.
  int embedding_width(const EmbedOptions& options) const;
  // A classifier's (config().labels > 0) classes of each text, in order.
  std::vector<Classification> classify(const std::vector<std::string>& texts, const ClassifyOptions& options);
  std::vector<Classification> classify_inputs(const std::vector<EncoderInput>& inputs, const ClassifyOptions& options);
  // A pre-trained encoder's (config().mlm_head) masked-token scores of the texts, in order: log_prob and
  // token_log_probs of the masked tokens' originals (in text order), tokens the count masked, correct those
  // the most probable piece recovers, truncated as the input's. `first_index` is the first text's index in
  // the whole input (the key of its draws), so a file scored window by window is masked as one.
  std::vector<SentenceScore> score_masked(const std::vector<std::string>& texts, std::size_t first_index,
                                          const MaskedScoreOptions& options);
  std::vector<SentenceScore> score_masked_inputs(std::vector<EncoderInput> inputs, std::size_t first_index,
                                                 const MaskedScoreOptions& options);

  // The most tokens an input holds: the model's (ModelConfig::encoder_input_limit(): its max_input_tokens, a
  // sentence-transformers model's max_seq_length, else its learned positions), or what limit_inputs set.
  int input_limit() const { return input_limit_; }
  // Cut inputs to `tokens` instead (`embed --max-length`): 3 up to the learned positions, else an Error naming
  // `option`.
  void limit_inputs(int tokens, const std::string& option);

  const LabelNames& labels() const { return vocabs_.labels; }
  const ModelConfig& config() const { return model_->config(); }
  const Vocabulary& vocabulary() const { return vocabs_.source; }
  const InferencePrecision& precision() const { return model_->precision(); }

 private:
  // Whether the model's Dense module follows the pooling `options` ask for (one of its input width).
  bool applies_dense(const EmbedOptions& options) const;
  // Inputs batched by length under batch_tokens padded tokens (src, src_len, and src_types where an input
  // has a second segment): run(indices of the batch's inputs, their padded batch), the arena reset before
  // each.
  void for_each_batch(const std::vector<EncoderInput>& inputs, int batch_tokens,
                      const std::function<void(const std::vector<std::size_t>&, Batch&)>& run);

  std::shared_ptr<Transformer<float>> model_;  // shared with a server's adapters over it
  ModelVocabularies vocabs_;
  int input_limit_ = 0;
  Arena arena_;
};

// Throws Error naming the first option out of range.
void validate(const EmbedOptions& options);
void validate(const ClassifyOptions& options);
void validate(const MaskedScoreOptions& options);

}  // namespace heptapod
