// Token-budget batching.
#include "heptapod/data/batcher.h"

#include <algorithm>
#include <numeric>

#include "heptapod/core/random.h"

namespace heptapod {

namespace {

template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

// Cuts consecutive indices into batches whose padded size B * (max S + max T + 1) stays within the budget.
void cut(const ParallelCorpus& c, const std::uint32_t* begin, const std::uint32_t* end, int max_tokens,
         std::vector<std::vector<std::uint32_t>>& out) {
  std::vector<std::uint32_t> batch;
  std::size_t max_s = 0, max_t = 0;
  for (const std::uint32_t* it = begin; it != end; ++it) {
    const std::size_t s = std::max(max_s, c.source(*it).size()), t = std::max(max_t, c.target(*it).size() + 1);
    if (!batch.empty() && (batch.size() + 1) * (s + t) > static_cast<std::size_t>(max_tokens)) {
      out.push_back(std::move(batch));
      batch.clear();
      max_s = c.source(*it).size();
      max_t = c.target(*it).size() + 1;
    } else {
      max_s = s;
      max_t = t;
    }
    batch.push_back(*it);
  }
  if (!batch.empty()) out.push_back(std::move(batch));
}

}  // namespace

std::vector<std::vector<std::uint32_t>> plan_epoch(const ParallelCorpus& c, const BatchingConfig& config,
                                                   std::uint64_t epoch) {
  Rng rng(mix64(config.seed) ^ mix64(epoch + 0x5eed));
  std::vector<std::uint32_t> order(c.size());
  std::iota(order.begin(), order.end(), 0u);
  shuffle(order, rng);
  std::vector<std::vector<std::uint32_t>> batches;
  const std::size_t window = static_cast<std::size_t>(std::max(config.window, 1));
  for (std::size_t w = 0; w < order.size(); w += window) {
    const auto begin = order.begin() + static_cast<long>(w);
    const auto end = order.begin() + static_cast<long>(std::min(order.size(), w + window));
    std::stable_sort(begin, end, [&](std::uint32_t a, std::uint32_t b) {
      const auto ka = std::pair(c.target(a).size(), c.source(a).size());
      const auto kb = std::pair(c.target(b).size(), c.source(b).size());
      return ka < kb;
    });
    cut(c, &*begin, &*begin + (end - begin), config.max_tokens, batches);
  }
  shuffle(batches, rng);
  return batches;
}

std::vector<std::vector<std::uint32_t>> plan_in_order(const ParallelCorpus& c, int max_tokens) {
  std::vector<std::uint32_t> order(c.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::vector<std::uint32_t>> batches;
  cut(c, order.data(), order.data() + order.size(), max_tokens, batches);
  return batches;
}

Batch make_corpus_batch(const ParallelCorpus& c, const std::vector<std::uint32_t>& indices, const ModelConfig& config,
                        const LanguageTags& tags) {
  std::vector<std::vector<int>> src, tgt;
  src.reserve(indices.size());
  tgt.reserve(indices.size());
  for (std::uint32_t i : indices) {
    src.push_back(tags.tag_source({c.source(i).begin(), c.source(i).end()}));
    tgt.push_back(tags.tag_target({c.target(i).begin(), c.target(i).end()}));
  }
  return make_batch(src, tgt, config);
}

}  // namespace heptapod
