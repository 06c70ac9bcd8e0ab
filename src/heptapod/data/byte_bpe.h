// GPT-2's byte-level BPE (also RoBERTa's, GPT-Neo's...): text is cut by GPT-2's pre-tokenization pattern
// (contractions, letters, numbers, other characters, white space), each part's UTF-8 bytes become the
// printable characters of GPT-2's byte-to-unicode map, and adjacent symbols merge by the rank of their merge
// rule. Decoding maps pieces back to the exact bytes, so any text round-trips; text output replaces bytes that
// are not valid UTF-8 (a sample cut inside a character) with U+FFFD. Pieces that are neither a byte nor a
// merge's result (<|endoftext|>) are special: text names them only as they are written, and they decode to
// that text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heptapod/data/tokenizer.h"

namespace heptapod {

class ByteBpe : public Tokenizer {
 public:
  // vocab.json (piece -> id, ids 0..n-1) and merges.txt ("#version" line, then one "left right" rule per line
  // by rank), as Hugging Face and OpenAI (encoder.json, vocab.bpe) ship them.
  static ByteBpe from_files(const std::string& vocab_json_path, const std::string& merges_path);
  // pieces in id order and merge rules "left right" by rank; `where` names their origin in errors.
  ByteBpe(std::vector<std::string> pieces, const std::vector<std::string>& merges, const std::string& where);

  std::string decode(const std::vector<int>& ids) const override;
  std::string decode_bytes(const std::vector<int>& ids) const;  // the exact bytes, valid UTF-8 or not
  std::string serialize() const override;
  const char* kind() const override { return "byte-bpe"; }
  bool starts_word(int id) const override;
  std::string token_bytes(int id) const override { return decode_bytes({id}); }

 private:
  struct Merge {
    int rank, merged;
  };
  void encode_text(std::string_view text, std::vector<int>& out) const override;
  void encode_part(std::string_view bytes, std::vector<int>& out) const;

  std::vector<std::string> merges_;                   // "left right" by rank
  std::unordered_map<std::uint64_t, Merge> by_pair_;  // (left id << 32 | right id) -> its rule
  int byte_id_[256] = {};                             // the piece of each byte
};

// The key of an adjacent pair of piece ids (merges, and the training's counts).
inline std::uint64_t bpe_pair(int left, int right) {
  return static_cast<std::uint64_t>(left) << 32 | static_cast<std::uint32_t>(right);
}

// GPT-2's pre-tokenization: the byte ranges [begin, end) the text is cut into. Bytes that are not valid UTF-8
// count as characters of the "other" class.
std::vector<std::pair<std::size_t, std::size_t>> gpt2_pretokenize(std::string_view text);

// GPT-2's printable stand-in for each byte (as UTF-8).
const std::string& byte_symbol(unsigned char byte);
// The inverse: the byte a code point stands for, -1 for code points that stand for no byte.
int symbol_byte(char32_t c);

}  // namespace heptapod
