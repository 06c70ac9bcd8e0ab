// The Encoder, the encoder-only models' front end (beside Translator and Generator), shared by `heptapod
// embed`, `heptapod classify` and `heptapod score`, the Python module and any program that links the library. It loads an
// encoder-only model file (which carries its vocabulary, and a classifier's class names) and turns texts
// into vectors, or a classifier's classes: each text read as BERT reads it (the start
// token [CLS], its tokens, the end token [SEP]; cut to the model's learned positions), the texts batched by
// length, the encoder run once per batch, its output rows pooled into one vector per text.
//
//   heptapod::Encoder encoder("enc.htp");
//   heptapod::EmbedOptions options;  // mean pooling, not normalised
//   std::vector<std::vector<float>> v = encoder.embed({"a sentence", "another"}, options);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/data/masking.h"
#include "heptapod/decode/inference_model.h"
#include "heptapod/decode/scoring.h"

namespace heptapod {

struct EmbedOptions {
  // The mean of the text's output rows (the start and end tokens included, as sentence-transformers pools
  // BERT), or the start token's row ([CLS]).
  Pooling pooling = Pooling::Mean;
  bool normalize = false;   // scale each vector to unit L2 norm
  int batch_tokens = 4096;  // padded tokens per batch
};

struct EncodedText {
  std::vector<int> tokens;  // as the encoder read them: start token, the text's tokens (as kept), end token
  bool truncated = false;   // longer than the learned positions: only its first tokens were read
};

struct ClassifyOptions {
  int top_k = 1;            // classes listed per text, most probable first
  int batch_tokens = 4096;  // padded tokens per batch
};

// Masked-token scoring of a pre-trained encoder (a masked-language-model head): each text's ordinary tokens
// chosen and replaced as pre-training does (data/masking.h), the draws keyed by the seed and the text's
// index, so a text's masks do not depend on its batch-mates.
struct MaskedScoreOptions {
  MaskingOptions masking;
  std::uint64_t seed = 1;
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
  // vocabulary is an Error naming it.
  explicit Encoder(const std::string& model_path, const ModelLoadOptions& options = {});
  // An encoder-only model already in memory (packed for inference), with its vocabularies.
  explicit Encoder(InferenceModel loaded);
  // One vector of d_model floats per text, in order; a text's vector does not depend on its batch-mates.
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts, const EmbedOptions& options);
  // The same of texts already read as the encoder reads them (encode_text's tokens: start, tokens, end).
  std::vector<std::vector<float>> embed_tokens(const std::vector<std::vector<int>>& inputs, const EmbedOptions& options);
  // A classifier's (config().labels > 0) classes of each text, in order.
  std::vector<Classification> classify(const std::vector<std::string>& texts, const ClassifyOptions& options);
  // A pre-trained encoder's (config().mlm_head) masked-token scores of the texts, in order: log_prob and
  // token_log_probs of the masked tokens' originals (in text order), tokens the count masked, correct those
  // the most probable piece recovers. `first_index` is the first text's index in the whole input (the key of
  // its draws), so a file scored window by window is masked as one.
  std::vector<SentenceScore> score_masked(const std::vector<std::string>& texts, std::size_t first_index,
                                          const MaskedScoreOptions& options);
  const LabelNames& labels() const { return vocabs_.labels; }
  // A text as the encoder reads it.
  EncodedText encode_text(const std::string& text) const;
  const ModelConfig& config() const { return model_->config(); }
  const Vocabulary& vocabulary() const { return vocabs_.source; }
  const InferencePrecision& precision() const { return model_->precision(); }

 private:
  // Inputs as the encoder reads them, batched by length under batch_tokens padded tokens: run(indices of
  // the batch's inputs, their padded batch), the arena reset before each.
  void for_each_batch(const std::vector<std::vector<int>>& inputs, int batch_tokens,
                      const std::function<void(const std::vector<std::size_t>&, Batch&)>& run);
  std::vector<std::vector<int>> encode_texts(const std::vector<std::string>& texts) const;

  std::unique_ptr<Transformer<float>> model_;
  ModelVocabularies vocabs_;
  Arena arena_;
};

// Throws Error naming the first option out of range.
void validate(const EmbedOptions& options);
void validate(const ClassifyOptions& options);
void validate(const MaskedScoreOptions& options);

}  // namespace heptapod
