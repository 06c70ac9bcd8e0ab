// Sub-word vocabularies: SentencePiece models (BPE, unigram, characters, or whole space-separated words for
// pre-tokenized symbol sequences such as phonemes) trained from raw text, with
// Heptapod's fixed special ids (pad 0, bos 1, eos 2, unk 3). A vocabulary is stored as SentencePiece's own
// serialized model, so it can travel inside a model file and be read by SentencePiece tools.
// A vocabulary may also carry its own ids (VocabIds), as pre-trained models do: text is cut into pieces by the
// SentencePiece model, and each piece gets the id its table gives (unk_id if it has none), whatever id
// SentencePiece itself gives it (OPUS-MT's vocab.json, fairseq's dict.txt).
// Or it is a pre-trained model's own tokenizer (data/tokenizer.h: GPT-2's byte-level BPE, BERT's WordPiece),
// stored as that tokenizer's JSON.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace heptapod {

class Tokenizer;

inline constexpr int kPadId = 0, kBosId = 1, kEosId = 2, kUnkId = 3;

struct VocabConfig {
  // ByteBpe: GPT-2's byte-level BPE (data/byte_bpe_training.h), Heptapod's specials first, then the 256 bytes;
  // the others are SentencePiece's.
  enum class Model { Bpe, Unigram, Char, Word, ByteBpe } model = Model::Bpe;
  int size = 8000;                   // ignored for Char and Word: every character (word) seen becomes a piece
  float character_coverage = 1.0f;   // below 1, the rarest characters map to unk
  int max_training_sentences = 2000000;  // sampled when the corpus is larger
  // bpe and unigram: characters without a piece become their UTF-8 bytes (256 byte pieces) instead of unk,
  // so text from another domain (placeholders such as %s, brackets) survives tokenization.
  bool byte_fallback = false;
  // Pieces of the model's own (an encoder's "<mask>") that text never tokenizes to, given the ids after the
  // four specials.
  std::vector<std::string> control_symbols;
  std::uint64_t seed = 1;
};

VocabConfig::Model vocab_model_from_name(const std::string& name);  // "bpe", "unigram", "char", "word", "byte-bpe"

// A model's own token ids: pieces[id] is the piece of that id; unk_id stands for pieces not in the table.
struct VocabIds {
  std::vector<std::string> pieces;
  int unk_id = 0;
  // Whether a special piece of the table (one SentencePiece lacks or holds as a control or unknown piece: T5's
  // <extra_id_N>, </s>) written whole in text is read as its id, the text around it tokenized on its own, as
  // Hugging Face's tokenizers read their special tokens (T5).
  bool written_specials = false;
  // With written_specials: those special pieces that take the white space before them (ASCII's), as Hugging
  // Face's added tokens marked lstrip do (XLM-R's <mask>).
  std::vector<std::string> lstrip_specials;
};

class Vocabulary {
 public:
  // Trains on the given sentences. Throws Error if SentencePiece rejects the data or settings.
  static Vocabulary train(const std::vector<std::string>& sentences, const VocabConfig& config);
  // Loads a serialized SentencePiece model; `where` names its origin in errors. Without `ids` its special ids
  // must be Heptapod's; with them, the table gives every id (it must be non-empty, its pieces distinct, and
  // unk_id one of its ids).
  static Vocabulary from_serialized(const std::string& blob, const std::string& where);
  static Vocabulary from_serialized(const std::string& blob, VocabIds ids, const std::string& where);
  // A pre-trained model's tokenizer (serialized as its JSON).
  static Vocabulary from_tokenizer(std::shared_ptr<const Tokenizer> tokenizer);
  static Vocabulary load(const std::string& path);
  void save(const std::string& path) const;  // atomic

  std::vector<int> encode(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;
  std::string piece(int id) const;
  // One token's raw bytes as it adds them to a text, without what decoding does to a whole text (the leading
  // space SentencePiece and tokenizer.json's Strip drop, WordPiece's cleanups, U+FFFD for bytes that are not
  // UTF-8 on their own): a byte-level piece's bytes (possibly part of a character), a byte-fallback piece's
  // byte, SentencePiece's "\u2581" as a space, a WordPiece after a space unless it continues a word ("##"); a
  // special token (control, unknown, added) as its piece is written. Empty for an id out of range.
  std::string token_bytes(int id) const;
  int id_of(const std::string& piece) const;  // -1 when the vocabulary has no such piece
  int size() const;  // 0 when empty()
  // Whether the id is special, one that ordinary text never tokenizes to: a control or unknown piece, or one
  // SentencePiece lacks; a pre-trained tokenizer's special piece (which text names only by writing it whole).
  bool is_special(int id) const;
  // Whether the piece begins a word (SentencePiece's and GPT-2's: it starts with the space's symbol;
  // WordPiece's: it is not a "##" continuation). Whole-word masking groups a word's pieces by it.
  bool starts_word(int id) const;
  // Whether the ids are Heptapod's (pad 0, bos 1, eos 2, unk 3: a vocabulary trained by `heptapod vocab`)
  // rather than a pre-trained model's own.
  bool heptapod_ids() const;
  // The pre-trained tokenizer, or null for SentencePiece.
  const Tokenizer* tokenizer() const { return tokenizer_.get(); }
  const std::string& serialized() const { return serialized_; }
  // No vocabulary (default-constructed): the side a one-stack model lacks.
  bool empty() const { return serialized_.empty(); }
  // The vocabulary's own ids, or null when SentencePiece's are used.
  const VocabIds* ids() const { return ids_ ? &ids_->table : nullptr; }
  // Those ids as JSON, {"unk_id": N, "pieces": [...]} (empty without them): how a model file stores them.
  const std::string& serialized_ids() const;
  // FNV-1a hash of the serialized model (binds caches and checkpoints to a vocabulary).
  std::uint64_t fingerprint() const;

 private:
  struct IdTable {
    VocabIds table;
    std::unordered_map<std::string, int> by_piece;
    std::string json;
    std::vector<std::pair<std::string, int>> written;  // with written_specials: the special pieces, longest first
  };
  // Text with written special pieces: the pieces' ids, the text between them encoded piece by piece.
  std::vector<int> encode_with_specials(std::string_view text) const;
  std::shared_ptr<sentencepiece::SentencePieceProcessor> processor_;
  std::string serialized_;
  std::shared_ptr<const IdTable> ids_;  // null: SentencePiece's ids
  std::shared_ptr<const Tokenizer> tokenizer_;  // set instead of processor_ for a pre-trained tokenizer
};

// A SentencePiece model's own ids as a table (its pieces in id order, its unknown-token id).
VocabIds sentencepiece_ids(const std::string& blob, const std::string& where);

// A SentencePiece model's pieces in id order with their scores (BPE: minus the merge order) and kinds, as
// the model stores them (what llama.cpp's SentencePiece tokenizer reads).
struct ScoredPiece {
  enum class Kind { Normal, Unknown, Control, Unused, Byte };
  std::string piece;
  float score = 0.0f;
  Kind kind = Kind::Normal;
};
std::vector<ScoredPiece> sentencepiece_pieces(const std::string& blob, const std::string& where);

// Parses serialized_ids() text; `where` names its origin in errors.
VocabIds vocab_ids_from_json(const std::string& json_text, const std::string& where);

// 64-bit FNV-1a, for content fingerprints.
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace heptapod
