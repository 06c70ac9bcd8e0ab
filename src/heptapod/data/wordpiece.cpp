// WordPiece: BERT's basic tokenizer and greedy longest-match-first pieces.
#include "heptapod/data/wordpiece.h"

#include <nlohmann/json.hpp>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/unicode_text.h"
#include "heptapod/data/utf8.h"

namespace heptapod {

namespace {

constexpr char32_t kCapitalSigma = 0x03A3, kFinalSigma = 0x03C2;

bool is_bert_punctuation(char32_t c) {  // all non-alphanumeric ASCII counts, as BERT's tokenizer has it
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
         unicode::is_punctuation(c);
}

bool is_bracketed(const std::string& piece) { return piece.size() > 2 && piece.front() == '[' && piece.back() == ']'; }

// Lower case as Python's str.lower: a capital sigma ending a word (after a letter, before none) is final.
void lower(std::vector<char32_t>& word) {
  std::vector<char32_t> out(word.size());
  for (std::size_t i = 0; i < word.size(); ++i) {
    out[i] = unicode::to_lower(word[i]);
    if (word[i] == kCapitalSigma && i > 0 && unicode::is_letter(word[i - 1]) &&
        (i + 1 == word.size() || !unicode::is_letter(word[i + 1])))
      out[i] = kFinalSigma;
  }
  word = std::move(out);
}

}  // namespace

WordPiece::WordPiece(std::vector<std::string> pieces, const WordPieceOptions& options, const std::string& where)
    : options_(options) {
  table_ = PieceTable(std::move(pieces), where);
  unk_id_ = table_.id_of(options_.unk_piece);
  require(unk_id_ >= 0, where + ": the vocabulary has no unknown piece \"" + options_.unk_piece + "\"");
  require(options_.max_word_chars >= 1, where + ": the longest word must be at least 1 character");
  for (int id = 0; id < table_.size(); ++id)
    if (id == unk_id_ || is_bracketed(table_.piece(id))) table_.mark_special(id);
  set_text_specials(options_.text_specials, where);
}

WordPiece WordPiece::from_file(const std::string& path, const WordPieceOptions& options) {
  return WordPiece(read_lines(path), options, path);
}

std::vector<std::vector<char32_t>> WordPiece::basic_words(std::string_view text) const {
  std::vector<std::vector<char32_t>> words;
  std::vector<char32_t> word;  // the word being read, as code points
  auto finish = [&] {
    if (word.empty()) return;
    if (options_.lowercase) lower(word);
    if (options_.strip_accents) {
      std::vector<char32_t> decomposed;
      for (char32_t c : word) unicode::append_decomposition(c, decomposed);
      word.clear();
      for (char32_t c : decomposed)
        if (!unicode::is_nonspacing_mark(c)) word.push_back(c);
    }
    std::vector<char32_t> run;
    for (char32_t c : word) {
      if (!is_bert_punctuation(c)) {
        run.push_back(c);
        continue;
      }
      if (!run.empty()) words.push_back(std::move(run));
      run.clear();
      words.push_back({c});
    }
    if (!run.empty()) words.push_back(std::move(run));
    word.clear();
  };
  for (char32_t c : decode_utf8(text)) {
    if (c == 0 || c == 0xFFFD) continue;
    const bool space = c == U'\t' || c == U'\n' || c == U'\r' || unicode::is_white_space(c);
    if (!space && unicode::is_control(c)) continue;
    if (space) {
      finish();
    } else if (options_.split_cjk && unicode::is_cjk_ideograph(c)) {
      finish();
      word.push_back(c);
      finish();
    } else {
      word.push_back(c);
    }
  }
  finish();
  return words;
}

void WordPiece::encode_word(const std::vector<char32_t>& word, std::vector<int>& out) const {
  if (static_cast<int>(word.size()) > options_.max_word_chars) {
    out.push_back(unk_id_);
    return;
  }
  const std::size_t first = out.size();
  for (std::size_t start = 0; start < word.size();) {
    int found = -1;
    std::size_t end = word.size();
    for (; end > start; --end) {
      std::string piece = start > 0 ? "##" : "";
      for (std::size_t k = start; k < end; ++k) append_utf8(word[k], piece);
      const int id = table_.id_of(piece);
      if (id >= 0 && !table_.is_special(id)) {
        found = id;
        break;
      }
    }
    if (found < 0) {  // no piece fits here: the whole word is unknown
      out.resize(first);
      out.push_back(unk_id_);
      return;
    }
    out.push_back(found);
    start = end;
  }
}

void WordPiece::encode_text(std::string_view text, std::vector<int>& ids) const {
  for (const std::vector<char32_t>& word : basic_words(text)) encode_word(word, ids);
}

std::string WordPiece::decode(const std::vector<int>& ids) const {
  std::string text;
  for (int id : ids) {
    if (!table_.contains(id)) continue;
    const std::string& piece = table_.piece(id);
    if (piece.rfind("##", 0) == 0 && !text.empty() && !table_.is_special(id)) {
      text += piece.substr(2);
    } else {
      if (!text.empty()) text += ' ';
      text += piece;
    }
  }
  return text;
}

std::string WordPiece::token_bytes(int id) const {
  if (!table_.contains(id)) return {};
  const std::string& piece = table_.piece(id);
  if (table_.is_special(id)) return piece;
  return piece.rfind("##", 0) == 0 ? piece.substr(2) : " " + piece;
}

std::string WordPiece::serialize() const {
  return nlohmann::json{{"tokenizer", kind()},
                        {"pieces", table_.pieces()},
                        {"lowercase", options_.lowercase},
                        {"strip_accents", options_.strip_accents},
                        {"split_cjk", options_.split_cjk},
                        {"unk_piece", options_.unk_piece},
                        {"max_word_chars", options_.max_word_chars},
                        {"text_specials", options_.text_specials}}
      .dump();
}

}  // namespace heptapod
