// Synthetic sequence tasks (copy, reverse) for demos and learning tests: no files needed.
#pragma once

#include <cstdint>
#include <vector>

namespace heptapod {

struct TokenPair {
  std::vector<int> source;
  std::vector<int> target;
};

// n pairs of random token strings with ids in [first_id, vocab_size) and lengths in [min_len, max_len];
// the target is the source, or the source reversed.
std::vector<TokenPair> synthetic_pairs(std::uint64_t seed, int n, int min_len, int max_len, int first_id,
                                       int vocab_size, bool reverse);

}  // namespace heptapod
