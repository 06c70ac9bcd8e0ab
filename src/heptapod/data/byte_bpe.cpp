// Byte-level BPE: GPT-2's pre-tokenization, byte symbols and merges by rank.
#include "heptapod/data/byte_bpe.h"

#include <nlohmann/json.hpp>

#include <array>
#include <climits>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/unicode_text.h"
#include "heptapod/data/utf8.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

namespace {

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the others for 256, 257, ... in
// byte order.
const std::array<std::string, 256>& byte_symbols() {
  static const std::array<std::string, 256> symbols = [] {
    std::array<std::string, 256> s;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      append_utf8(printable ? static_cast<char32_t>(b) : next++, s[static_cast<std::size_t>(b)]);
    }
    return s;
  }();
  return symbols;
}


enum class CharClass { Letter, Number, Space, Other };

struct Char {
  char32_t c;
  CharClass cls;
  std::size_t begin, end;  // its bytes
};

std::vector<Char> classify(std::string_view text) {
  std::vector<Char> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_sequence_length(text, i);  // 0: an invalid byte, taken alone
    if (len == 0) {
      out.push_back({0xFFFD, CharClass::Other, i, i + 1});
      ++i;
      continue;
    }
    const char32_t c = utf8_code_point(text, i, len);
    const CharClass cls = unicode::is_letter(c)        ? CharClass::Letter
                          : unicode::is_number(c)      ? CharClass::Number
                          : unicode::is_white_space(c) ? CharClass::Space
                                                       : CharClass::Other;
    out.push_back({c, cls, i, i + len});
    i += len;
  }
  return out;
}

// The length of the contraction ('s 't 're 've 'm 'll 'd) starting at chars[i], or 0.
std::size_t contraction(const std::vector<Char>& chars, std::size_t i) {
  if (chars[i].c != U'\'' || i + 1 >= chars.size()) return 0;
  const char32_t a = chars[i + 1].c, b = i + 2 < chars.size() ? chars[i + 2].c : 0;
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

}  // namespace

const std::string& byte_symbol(unsigned char byte) { return byte_symbols()[byte]; }

int symbol_byte(char32_t c) {
  static const std::array<int, 324> bytes = [] {
    std::array<int, 324> out;
    out.fill(-1);
    for (int b = 0; b < 256; ++b) out[decode_utf8(byte_symbols()[static_cast<std::size_t>(b)])[0]] = b;
    return out;
  }();
  return c < bytes.size() ? bytes[c] : -1;
}

// The pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+, alternative by
// alternative at each position, as a backtracking regex engine tries them.
std::vector<std::pair<std::size_t, std::size_t>> gpt2_pretokenize(std::string_view text) {
  const std::vector<Char> chars = classify(text);
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  const std::size_t n = chars.size();
  for (std::size_t i = 0; i < n;) {
    std::size_t end = i + contraction(chars, i);
    if (end == i) {
      const std::size_t j = chars[i].c == U' ' && i + 1 < n && chars[i + 1].cls != CharClass::Space ? i + 1 : i;
      if (chars[j].cls != CharClass::Space) {  // a run of one class, after an optional space
        end = j;
        while (end < n && chars[end].cls == chars[j].cls) ++end;
      } else {  // white space: all of it at the end of the text, else all but the last character (if that
                // leaves any), which then leads what follows
        end = i;
        while (end < n && chars[end].cls == CharClass::Space) ++end;
        if (end < n && end - i >= 2) --end;
      }
    }
    parts.emplace_back(chars[i].begin, chars[end - 1].end);
    i = end;
  }
  return parts;
}

ByteBpe::ByteBpe(std::vector<std::string> pieces, const std::vector<std::string>& merges, const std::string& where) {
  table_ = PieceTable(std::move(pieces), where);
  std::vector<bool> made(static_cast<std::size_t>(table_.size()), false);
  for (int b = 0; b < 256; ++b) {
    const int id = table_.id_of(byte_symbols()[static_cast<std::size_t>(b)]);
    require(id >= 0, where + ": byte " + std::to_string(b) + " (\"" + byte_symbols()[static_cast<std::size_t>(b)] +
                         "\") has no piece; a byte-level vocabulary needs all 256");
    byte_id_[b] = id;
    made[static_cast<std::size_t>(id)] = true;
  }
  merges_.reserve(merges.size());
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& rule = merges[rank];
    const std::size_t space = rule.find(' ');
    require(space != std::string::npos && space > 0 && space + 1 < rule.size() &&
                rule.find(' ', space + 1) == std::string::npos,
            where + ": merge " + std::to_string(rank + 1) + " \"" + rule + "\" is not two pieces separated by a space");
    const std::string left = rule.substr(0, space), right = rule.substr(space + 1);
    const int l = table_.id_of(left), r = table_.id_of(right), m = table_.id_of(left + right);
    require(l >= 0 && r >= 0 && m >= 0, where + ": merge " + std::to_string(rank + 1) + " \"" + rule +
                                            "\" names a piece the vocabulary lacks (\"" +
                                            (l < 0 ? left : r < 0 ? right : left + right) + "\")");
    by_pair_.emplace(bpe_pair(l, r), Merge{static_cast<int>(rank), m});  // the first rule of a pair ranks it
    made[static_cast<std::size_t>(m)] = true;
    merges_.push_back(rule);
  }
  std::vector<std::string> specials;
  for (int id = 0; id < table_.size(); ++id)
    if (!made[static_cast<std::size_t>(id)]) {
      table_.mark_special(id);
      specials.push_back(table_.piece(id));
    }
  set_text_specials(std::move(specials), where);
}

ByteBpe ByteBpe::from_files(const std::string& vocab_path, const std::string& merges_path) {
  std::vector<std::string> pieces = pieces_from_id_map(read_file(vocab_path), vocab_path);
  std::vector<std::string> merges = read_lines(merges_path);
  if (!merges.empty() && merges.front().rfind("#version", 0) == 0) merges.erase(merges.begin());
  std::erase(merges, std::string());
  return ByteBpe(std::move(pieces), merges, vocab_path + " and " + merges_path);
}

void ByteBpe::encode_part(std::string_view bytes, std::vector<int>& out) const {
  std::vector<int> symbols;  // (S) the part's pieces, merged in place
  symbols.reserve(bytes.size());
  for (unsigned char b : bytes) symbols.push_back(byte_id_[b]);
  while (symbols.size() > 1) {
    int best_rank = INT_MAX, merged = -1;
    std::uint64_t best_key = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const std::uint64_t key = bpe_pair(symbols[i], symbols[i + 1]);
      const auto it = by_pair_.find(key);
      if (it != by_pair_.end() && it->second.rank < best_rank) {
        best_rank = it->second.rank;
        merged = it->second.merged;
        best_key = key;
      }
    }
    if (merged < 0) break;
    std::size_t w = 0;  // every occurrence of the pair, left to right
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && bpe_pair(symbols[i], symbols[i + 1]) == best_key) {
        symbols[w++] = merged;
        ++i;
      } else {
        symbols[w++] = symbols[i];
      }
    }
    symbols.resize(w);
  }
  out.insert(out.end(), symbols.begin(), symbols.end());
}

void ByteBpe::encode_text(std::string_view text, std::vector<int>& ids) const {
  for (const auto& [begin, end] : gpt2_pretokenize(text)) encode_part(text.substr(begin, end - begin), ids);
}

std::string ByteBpe::decode_bytes(const std::vector<int>& ids) const {
  std::string bytes;
  for (int id : ids) {
    if (!table_.contains(id)) continue;
    if (table_.is_special(id)) {
      bytes += table_.piece(id);
      continue;
    }
    for (char32_t c : decode_utf8(table_.piece(id))) {
      const int b = symbol_byte(c);
      if (b >= 0) bytes += static_cast<char>(b);
    }
  }
  return bytes;
}

bool ByteBpe::starts_word(int id) const {
  return table_.contains(id) && table_.piece(id).rfind(byte_symbol(' '), 0) == 0;
}

std::string ByteBpe::decode(const std::vector<int>& ids) const { return replace_invalid_utf8(decode_bytes(ids)); }

std::string ByteBpe::serialize() const {
  nlohmann::json j{{"tokenizer", kind()}, {"pieces", table_.pieces()}, {"merges", merges_}};
  if (!lstrip_specials().empty()) j["lstrip"] = lstrip_specials();  // only where set, so older files read as before
  if (!rstrip_specials().empty()) j["rstrip"] = rstrip_specials();
  return j.dump();
}

}  // namespace heptapod
