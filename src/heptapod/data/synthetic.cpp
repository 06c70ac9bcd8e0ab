// Synthetic copy and reverse tasks.
#include "heptapod/data/synthetic.h"

#include <algorithm>

#include "heptapod/core/random.h"

namespace heptapod {

std::vector<TokenPair> synthetic_pairs(std::uint64_t seed, int n, int min_len, int max_len, int first_id,
                                       int vocab_size, bool reverse) {
  Rng rng(seed);
  std::vector<TokenPair> pairs(n);
  for (auto& p : pairs) {
    const int len = min_len + static_cast<int>(rng.below(static_cast<std::uint64_t>(max_len - min_len + 1)));
    for (int i = 0; i < len; ++i)
      p.source.push_back(first_id + static_cast<int>(rng.below(static_cast<std::uint64_t>(vocab_size - first_id))));
    p.target = p.source;
    if (reverse) std::reverse(p.target.begin(), p.target.end());
  }
  return pairs;
}

}  // namespace heptapod
