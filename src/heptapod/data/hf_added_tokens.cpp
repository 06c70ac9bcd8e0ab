// Finding tokenizer.json's added tokens in text: leftmost-longest over a byte trie of their contents, with
// Hugging Face's single_word, lstrip and rstrip rules (word and space as Rust's regex \w and \s have them).
#include "heptapod/data/hf_added_tokens.h"

#include <algorithm>
#include <unordered_set>

#include "heptapod/data/unicode_text.h"
#include "heptapod/data/utf8.h"

namespace heptapod::hf {

namespace {

char32_t code_point_at(std::string_view text, std::size_t i) {
  return utf8_code_point(text, i, utf8_sequence_length(text, i));
}

// Where the code point ending at `end` (> 0) starts.
std::size_t previous_start(std::string_view text, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return start;
}

char32_t code_point_before(std::string_view text, std::size_t end) {
  const std::size_t start = previous_start(text, end);
  return utf8_code_point(text, start, end - start);
}

}  // namespace

std::vector<AddedToken> read_added_tokens(const JsonNode& tokenizer_json) {
  std::vector<AddedToken> out;
  if (!tokenizer_json.has("added_tokens")) return out;
  std::unordered_set<std::string> seen;
  for (const JsonNode& node : tokenizer_json.items("added_tokens")) {
    AddedToken t;
    t.id = node.integer("id");
    t.content = node.text("content");
    if (t.content.empty()) node.fail("an added token's content is empty");
    if (!seen.insert(t.content).second) node.fail("the added token \"" + t.content + "\" appears twice");
    t.special = node.boolean("special", false);
    t.single_word = node.boolean("single_word", false);
    t.lstrip = node.boolean("lstrip", false);
    t.rstrip = node.boolean("rstrip", false);
    t.normalized = node.boolean("normalized", !t.special);
    out.push_back(std::move(t));
  }
  return out;
}

void AddedTokens::Trie::add(std::string_view content, int token) {
  int node = 0;
  for (const unsigned char b : content) {
    auto& next = nodes_[static_cast<std::size_t>(node)].next;
    const auto it = std::find_if(next.begin(), next.end(), [&](const auto& e) { return e.first == b; });
    if (it != next.end()) {
      node = it->second;
      continue;
    }
    next.emplace_back(b, static_cast<int>(nodes_.size()));
    node = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[static_cast<std::size_t>(node)].token = token;
}

std::pair<int, std::size_t> AddedTokens::Trie::longest(std::string_view text, std::size_t at) const {
  std::pair<int, std::size_t> best{-1, 0};
  int node = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    const auto& next = nodes_[static_cast<std::size_t>(node)].next;
    const auto b = static_cast<unsigned char>(text[i]);
    const auto it = std::find_if(next.begin(), next.end(), [&](const auto& e) { return e.first == b; });
    if (it == next.end()) break;
    node = it->second;
    if (nodes_[static_cast<std::size_t>(node)].token >= 0) best = {nodes_[static_cast<std::size_t>(node)].token, i + 1 - at};
  }
  return best;
}

AddedTokens::AddedTokens(std::vector<AddedToken> tokens, const std::vector<Normalizer>& normalizers)
    : tokens_(std::move(tokens)) {
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken& t = tokens_[i];
    if (!t.normalized) {
      raw_.add(t.content, static_cast<int>(i));
    } else if (const std::string n = normalize(normalizers, t.content); !n.empty()) {
      normalized_.add(n, static_cast<int>(i));
    }
  }
}

void AddedTokens::split(std::string_view text, bool at_start, const Trie& trie, std::vector<Piece>& out) const {
  const auto text_piece = [&](std::size_t begin, std::size_t end) {
    if (end > begin) out.push_back({std::string(text.substr(begin, end - begin)), -1, at_start && begin == 0});
  };
  std::size_t done = 0;  // the end of the last piece written
  for (std::size_t at = 0; !trie.empty() && at < text.size();) {
    const auto [token, length] = trie.longest(text, at);
    if (token < 0) {
      ++at;
      continue;
    }
    const AddedToken& t = tokens_[static_cast<std::size_t>(token)];
    std::size_t start = at, stop = at + length;
    at = stop;  // the search goes on after the match, whatever becomes of it
    if (t.single_word && ((start > 0 && unicode::is_word_character(code_point_before(text, start))) ||
                          (stop < text.size() && unicode::is_word_character(code_point_at(text, stop)))))
      continue;  // inside a word: not the token
    if (t.lstrip)
      while (start > done && unicode::is_white_space(code_point_before(text, start))) start = previous_start(text, start);
    if (t.rstrip)
      while (stop < text.size() && unicode::is_white_space(code_point_at(text, stop)))
        stop += utf8_sequence_length(text, stop);
    start = std::max(start, done);
    text_piece(done, start);
    out.push_back({std::string(text.substr(start, stop - start)), t.id, false});
    done = stop;
  }
  text_piece(done, text.size());
}

std::vector<Piece> AddedTokens::split_raw(std::string_view text) const {
  std::vector<Piece> out;
  split(text, true, raw_, out);
  return out;
}

void AddedTokens::split_normalized(const Piece& piece, std::vector<Piece>& out) const {
  split(piece.text, piece.at_start, normalized_, out);
}

}  // namespace heptapod::hf
