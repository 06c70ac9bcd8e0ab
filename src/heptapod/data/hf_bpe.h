// The BPE model of a tokenizer.json ("model": {"type": "BPE", ...}): the vocabulary (piece -> id), the merge
// rules by rank (written "a b" or ["a", "b"]; a later rule for the same pair replaces an earlier one, as Hugging
// Face's map of them does), and the options: unk_token, fuse_unk, byte_fallback (a character without a piece
// becomes one "<0xAB>" piece per UTF-8 byte when all exist), ignore_merges (a pre-token that is a piece is
// that piece), continuing_subword_prefix and end_of_word_suffix. Dropout must be null or 0 (a sampling
// tokenizer is refused). A pre-token's characters become pieces, then the adjacent pair of lowest rank
// merges, leftmost first among equals, until no pair has a rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heptapod/data/hf_json.h"

namespace heptapod::hf {

class Bpe {
 public:
  // The "model" node of tokenizer.json.
  explicit Bpe(const JsonNode& model);

  // The ids of one pre-token (non-empty valid UTF-8), appended to `out`.
  void tokenize(std::string_view word, std::vector<int>& out) const;
  // The vocabulary, piece -> id.
  const std::unordered_map<std::string, int>& vocab() const { return vocab_; }

 private:
  struct Merge {
    int rank, merged;
  };
  // The pieces of the word's characters (or their fallbacks), before any merge.
  std::vector<int> symbols(std::string_view word) const;
  int id_of(const std::string& piece) const;  // -1 when absent

  std::unordered_map<std::string, int> vocab_;
  std::unordered_map<std::uint64_t, Merge> merges_;  // bpe_pair(left, right) -> its rule
  int unk_id_ = -1;                                  // -1: no unk_token
  bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
  std::string prefix_, suffix_;  // continuing_subword_prefix, end_of_word_suffix
  int byte_ids_[256];            // byte_fallback's "<0xAB>" pieces (-1 where absent)
};

}  // namespace heptapod::hf
