// SentencePiece-backed vocabulary.
#include "heptapod/data/vocabulary.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <unordered_map>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

namespace {

class VectorIterator : public sentencepiece::SentenceIterator {
 public:
  explicit VectorIterator(const std::vector<std::string>& v) : v_(v) {}
  bool done() const override { return i_ >= v_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return v_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& v_;
  std::size_t i_ = 0;
};

}  // namespace

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

VocabConfig::Model vocab_model_from_name(const std::string& name) {
  if (name == "bpe") return VocabConfig::Model::Bpe;
  if (name == "unigram") return VocabConfig::Model::Unigram;
  if (name == "char") return VocabConfig::Model::Char;
  if (name == "word") return VocabConfig::Model::Word;
  throw Error("unknown vocabulary model \"" + name + "\" (known: bpe, unigram, char, word)");
}

Vocabulary Vocabulary::train(const std::vector<std::string>& sentences, const VocabConfig& c) {
  require(!sentences.empty(), "cannot train a vocabulary on no text");
  require(!c.byte_fallback || c.model == VocabConfig::Model::Bpe || c.model == VocabConfig::Model::Unigram,
          "byte fallback needs a bpe or unigram vocabulary");
  std::unordered_map<std::string, std::string> args = {
      {"model_type", c.model == VocabConfig::Model::Bpe       ? "bpe"
                     : c.model == VocabConfig::Model::Unigram ? "unigram"
                     : c.model == VocabConfig::Model::Char    ? "char"
                                                              : "word"},
      {"character_coverage", std::to_string(c.character_coverage)},
      {"input_sentence_size", std::to_string(c.max_training_sentences)},
      {"shuffle_input_sentence", "true"},
      {"pad_id", std::to_string(kPadId)},
      {"bos_id", std::to_string(kBosId)},
      {"eos_id", std::to_string(kEosId)},
      {"unk_id", std::to_string(kUnkId)},
      {"pad_piece", "<pad>"},
      {"num_threads", "2"},
      {"minloglevel", "2"},
  };
  if (c.model == VocabConfig::Model::Char || c.model == VocabConfig::Model::Word) {
    args["vocab_size"] = "1000000";
    args["hard_vocab_limit"] = "false";
    args["use_all_vocab"] = "true";
  } else {
    args["vocab_size"] = std::to_string(c.size);
    args["hard_vocab_limit"] = "false";  // a small corpus yields fewer pieces instead of an error
    if (c.byte_fallback) args["byte_fallback"] = "true";
  }
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned>(c.seed));
  VectorIterator it(sentences);
  std::string blob;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &it, &blob);
  require(status.ok(), "vocabulary training failed: " + status.ToString());
  return from_serialized(blob, "trained vocabulary");
}

Vocabulary Vocabulary::from_serialized(const std::string& blob, const std::string& where) {
  Vocabulary v;
  v.processor_ = std::make_shared<sentencepiece::SentencePieceProcessor>();
  const auto status = v.processor_->LoadFromSerializedProto(blob);
  require(status.ok(), where + ": not a valid SentencePiece model (" + status.ToString() + ")");
  require(v.processor_->pad_id() == kPadId && v.processor_->bos_id() == kBosId && v.processor_->eos_id() == kEosId &&
              v.processor_->unk_id() == kUnkId,
          where + ": the vocabulary's special ids must be pad 0, bos 1, eos 2, unk 3 (train it with heptapod vocab)");
  v.serialized_ = blob;
  return v;
}

Vocabulary Vocabulary::load(const std::string& path) { return from_serialized(read_file(path), path); }

void Vocabulary::save(const std::string& path) const {
  write_file_atomic(path, [&](std::ostream& out) { out.write(serialized_.data(), static_cast<std::streamsize>(serialized_.size())); });
}

std::vector<int> Vocabulary::encode(std::string_view text) const {
  std::vector<int> ids;
  processor_->Encode(absl::string_view(text.data(), text.size()), &ids).IgnoreError();
  return ids;
}

std::string Vocabulary::decode(const std::vector<int>& ids) const {
  std::string text;
  processor_->Decode(ids, &text).IgnoreError();
  return text;
}

std::string Vocabulary::piece(int id) const { return processor_->IdToPiece(id); }
int Vocabulary::size() const { return processor_->GetPieceSize(); }
std::uint64_t Vocabulary::fingerprint() const { return fnv1a(serialized_); }

}  // namespace heptapod
