// The added tokens of a tokenizer.json ("added_tokens": special and ordinary ones, such as "<|eot_id|>" or
// Qwen's "<think>"), split out of the text before the normalizer, pre-tokenizer and model see it, as Hugging
// Face's AddedVocabulary does: first the tokens with "normalized": false are found in the raw text, then those
// with "normalized": true in each remaining part once normalized. At each place the leftmost match wins,
// the longest where several start there; "single_word" refuses a match inside a word, "lstrip" and "rstrip"
// take the white space on that side into the token (so it disappears).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "heptapod/data/hf_json.h"
#include "heptapod/data/hf_normalizers.h"
#include "heptapod/data/hf_pre_tokenizers.h"

namespace heptapod::hf {

struct AddedToken {
  int id = -1;
  std::string content;
  bool single_word = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

// The "added_tokens" list (absent: none); a token without "normalized" is normalized unless special.
std::vector<AddedToken> read_added_tokens(const JsonNode& tokenizer_json);

class AddedTokens {
 public:
  AddedTokens() = default;
  // The tokens (distinct non-empty contents), the normalized ones matched in their normalized form.
  AddedTokens(std::vector<AddedToken> tokens, const std::vector<Normalizer>& normalizers);

  const std::vector<AddedToken>& tokens() const { return tokens_; }
  // Valid UTF-8 text as pieces: its non-normalized added tokens, and the text between them.
  std::vector<Piece> split_raw(std::string_view text) const;
  // A piece of normalized text as pieces: its normalized added tokens, and the text between them (appended).
  void split_normalized(const Piece& piece, std::vector<Piece>& out) const;

 private:
  // The contents of a set of tokens, for the longest one starting at a place.
  class Trie {
   public:
    void add(std::string_view content, int token);
    bool empty() const { return nodes_.size() == 1; }
    // The token whose content is the longest starting at text[at], and that length; {-1, 0} when none.
    std::pair<int, std::size_t> longest(std::string_view text, std::size_t at) const;

   private:
    struct Node {
      std::vector<std::pair<unsigned char, int>> next;
      int token = -1;
    };
    std::vector<Node> nodes_{1};
  };
  void split(std::string_view text, bool at_start, const Trie& trie, std::vector<Piece>& out) const;

  std::vector<AddedToken> tokens_;
  Trie raw_, normalized_;
};

}  // namespace heptapod::hf
