// Tokenizers with their own piece tables, for vocabularies that are not SentencePiece's: GPT-2's byte-level BPE
// (data/byte_bpe.h), BERT's WordPiece (data/wordpiece.h) and Hugging Face's tokenizer.json tokenizers
// (data/hf_tokenizer.h). A Vocabulary holds one; it travels inside the model file as its JSON (serialize()),
// which begins with '{' where a SentencePiece model never does.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace heptapod {

// A tokenizer's pieces in id order, looked up both ways; `special` marks the pieces text never tokenizes to.
class PieceTable {
 public:
  PieceTable() = default;
  // Distinct pieces; `where` names their origin in errors.
  PieceTable(std::vector<std::string> pieces, const std::string& where);
  int size() const { return static_cast<int>(pieces_.size()); }
  const std::string& piece(int id) const { return pieces_[static_cast<std::size_t>(id)]; }
  const std::vector<std::string>& pieces() const { return pieces_; }
  int id_of(std::string_view piece) const;  // -1 when absent
  bool contains(int id) const { return id >= 0 && id < size(); }
  bool is_special(int id) const { return contains(id) && special_[static_cast<std::size_t>(id)]; }
  void mark_special(int id) { special_[static_cast<std::size_t>(id)] = true; }

 private:
  std::vector<std::string> pieces_;
  std::vector<bool> special_;
  std::unordered_map<std::string, int> by_piece_;
};

// Special tokens written in the text ("<|endoftext|>", "[MASK]") become their ids, as Hugging Face's tokenizers
// read them (case-sensitive, the longest first where two start at one place); the text between them is
// tokenized as text. A special token marked lstrip (rstrip) takes the white space before (after) it into
// itself, as Hugging Face's added tokens with those flags do (RoBERTa's <mask>: "Hello <mask>!" reads "Hello",
// <mask>, "!"). Decoding writes them back as they are written, so text survives a round trip.
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  std::vector<int> encode(std::string_view text) const;
  // Valid UTF-8 text; ids out of range decode to nothing.
  virtual std::string decode(const std::vector<int>& ids) const = 0;
  // JSON text from which tokenizer_from_json makes the same tokenizer.
  virtual std::string serialize() const = 0;
  // "byte-bpe", "wordpiece" or "tokenizer.json".
  virtual const char* kind() const = 0;
  // Whether the piece of `id` begins a word (a byte-level piece: after the space's symbol; a WordPiece: not a
  // "##" continuation).
  virtual bool starts_word(int id) const = 0;
  // One token's raw bytes (Vocabulary::token_bytes); empty for an id out of range.
  virtual std::string token_bytes(int id) const = 0;
  const PieceTable& table() const { return table_; }
  // The special tokens read in text, as their pieces.
  const std::vector<std::string>& text_specials() const { return text_specials_; }
  // Makes the special token `piece` (one of text_specials()) take the white space (ASCII's: space, tab, line
  // ends, vertical tab, form feed) before it (lstrip) and, or, after it (rstrip), besides what it took; another
  // piece is an Error naming `where`.
  void strip_around(const std::string& piece, bool lstrip, bool rstrip, const std::string& where);
  // The special tokens marked lstrip, and rstrip.
  const std::vector<std::string>& lstrip_specials() const { return lstrip_; }
  const std::vector<std::string>& rstrip_specials() const { return rstrip_; }

 protected:
  // Text without special tokens, its ids appended to `out`.
  virtual void encode_text(std::string_view text, std::vector<int>& out) const = 0;
  // Pieces of the table that text may name; each must be a special piece.
  void set_text_specials(std::vector<std::string> pieces, const std::string& where);

  PieceTable table_;

 private:
  std::vector<std::string> text_specials_;
  std::vector<std::string> lstrip_, rstrip_;
};

// The end of text[from, end) less the ASCII white space (space, tab, line ends, vertical tab, form feed) at its
// end: where the text before a special token marked lstrip stops.
std::size_t end_before_white_space(std::string_view text, std::size_t from, std::size_t end);

// The tokenizer serialize() wrote; `where` names its origin in errors.
std::unique_ptr<Tokenizer> tokenizer_from_json(const std::string& json_text, const std::string& where);

// The pieces of a JSON object piece -> id (vocab.json, encoder.json) in id order; the ids must be 0 .. n-1,
// each once. `where` names the file in errors.
std::vector<std::string> pieces_from_id_map(const std::string& json_text, const std::string& where);

// Whether a serialized vocabulary is a Tokenizer's JSON rather than a SentencePiece model.
inline bool is_tokenizer_json(std::string_view blob) { return !blob.empty() && blob.front() == '{'; }

}  // namespace heptapod
