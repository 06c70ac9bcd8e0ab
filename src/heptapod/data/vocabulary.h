// Sub-word vocabularies: SentencePiece models (BPE, unigram, characters, or whole space-separated words for
// pre-tokenized symbol sequences such as phonemes) trained from raw text, with
// Heptapod's fixed special ids (pad 0, bos 1, eos 2, unk 3). A vocabulary is stored as SentencePiece's own
// serialized model, so it can travel inside a model file and be read by SentencePiece tools.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace heptapod {

inline constexpr int kPadId = 0, kBosId = 1, kEosId = 2, kUnkId = 3;

struct VocabConfig {
  enum class Model { Bpe, Unigram, Char, Word } model = Model::Bpe;
  int size = 8000;                   // ignored for Char and Word: every character (word) seen becomes a piece
  float character_coverage = 1.0f;   // below 1, the rarest characters map to unk
  int max_training_sentences = 2000000;  // sampled when the corpus is larger
  // bpe and unigram: characters without a piece become their UTF-8 bytes (256 byte pieces) instead of unk,
  // so text from another domain (placeholders such as %s, brackets) survives tokenization.
  bool byte_fallback = false;
  std::uint64_t seed = 1;
};

VocabConfig::Model vocab_model_from_name(const std::string& name);  // "bpe", "unigram", "char", "word"

class Vocabulary {
 public:
  // Trains on the given sentences. Throws Error if SentencePiece rejects the data or settings.
  static Vocabulary train(const std::vector<std::string>& sentences, const VocabConfig& config);
  // Loads a serialized SentencePiece model; `where` names its origin in errors.
  static Vocabulary from_serialized(const std::string& blob, const std::string& where);
  static Vocabulary load(const std::string& path);
  void save(const std::string& path) const;  // atomic

  std::vector<int> encode(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;
  std::string piece(int id) const;
  int size() const;
  const std::string& serialized() const { return serialized_; }
  // FNV-1a hash of the serialized model (binds caches and checkpoints to a vocabulary).
  std::uint64_t fingerprint() const;

 private:
  std::shared_ptr<sentencepiece::SentencePieceProcessor> processor_;
  std::string serialized_;
};

// 64-bit FNV-1a, for content fingerprints.
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace heptapod
