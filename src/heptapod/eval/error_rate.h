// Token and line error rates: Levenshtein distance between whitespace-separated token sequences, with any
// number of acceptable references per line (the closest one counts). For grapheme-to-phoneme this gives the
// phoneme error rate (token error rate) and the word error rate (line error rate: a word is right when it
// equals one of its pronunciations); over words of sentences it is the usual WER.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heptapod::eval {

struct ErrorRates {
  std::int64_t lines = 0, wrong_lines = 0;
  std::int64_t edits = 0, reference_tokens = 0;  // edits against each line's closest reference
  double token_error_rate() const { return reference_tokens ? 100.0 * edits / reference_tokens : 0.0; }
  double line_error_rate() const { return lines ? 100.0 * wrong_lines / lines : 0.0; }
};

// Minimum number of token insertions, deletions and substitutions turning a into b.
std::size_t edit_distance(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b);

// references[i] holds the acceptable references of line i (at least one). Throws Error on a count mismatch
// or a line without references.
ErrorRates error_rates(const std::vector<std::string>& hypotheses,
                       const std::vector<std::vector<std::string>>& references);

}  // namespace heptapod::eval
