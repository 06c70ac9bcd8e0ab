// BERT's WordPiece tokenizer: the basic tokenizer (control characters dropped, white space made spaces, CJK
// ideographs set apart, lower case with accents stripped for uncased models, every punctuation character a
// word of its own), then greedy longest-match-first pieces with "##" marking a word's continuation, and the
// unknown piece for a word that has no match or is over 100 characters. Pieces in brackets ("[CLS]",
// "[unused0]") and the unknown piece are special: words never become them, since brackets are punctuation;
// text names the model's special tokens ([CLS], [SEP], [PAD], [MASK], [UNK]) as they are written. Decoding
// joins the pieces with spaces and glues "##" continuations to what precedes them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "heptapod/data/tokenizer.h"

namespace heptapod {

struct WordPieceOptions {
  bool lowercase = true;      // do_lower_case
  bool strip_accents = true;  // NFD, then combining marks dropped (BERT: whenever it lower-cases)
  bool split_cjk = true;      // tokenize_chinese_chars
  std::string unk_piece = "[UNK]";
  int max_word_chars = 100;
  // The special tokens text may name (the unknown piece among them, or not).
  std::vector<std::string> text_specials = {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"};
};

class WordPiece : public Tokenizer {
 public:
  // vocab.txt: one piece per line, the line number (from 0) its id; `where` names it in errors.
  static WordPiece from_file(const std::string& vocab_txt_path, const WordPieceOptions& options);
  WordPiece(std::vector<std::string> pieces, const WordPieceOptions& options, const std::string& where);

  std::string decode(const std::vector<int>& ids) const override;
  std::string serialize() const override;
  const char* kind() const override { return "wordpiece"; }
  bool starts_word(int id) const override { return table_.contains(id) && table_.piece(id).rfind("##", 0) != 0; }
  // A continuation without its "##", any other piece after a space (the space decode() puts between words, and
  // before punctuation too: its cleanups are not applied); a special piece as written.
  std::string token_bytes(int id) const override;
  const WordPieceOptions& options() const { return options_; }

 private:
  // The basic tokenizer's words as code points, before WordPiece cuts them.
  std::vector<std::vector<char32_t>> basic_words(std::string_view text) const;
  void encode_text(std::string_view text, std::vector<int>& out) const override;
  void encode_word(const std::vector<char32_t>& word, std::vector<int>& out) const;

  WordPieceOptions options_;
  int unk_id_ = -1;
};

}  // namespace heptapod
