// Batched scoring of given outputs.
#include "heptapod/decode/scoring.h"

#include <algorithm>
#include <numeric>

#include "heptapod/core/error.h"

namespace heptapod {

std::vector<std::vector<std::size_t>> length_batches(const std::vector<std::size_t>& lengths, int budget) {
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });
  std::vector<std::vector<std::size_t>> batches;
  std::vector<std::size_t> current;
  std::size_t longest = 0;
  for (std::size_t i : order) {
    const std::size_t l = std::max<std::size_t>(std::max(longest, lengths[i]), 1);
    if (!current.empty() && (current.size() + 1) * l > static_cast<std::size_t>(std::max(budget, 1))) {
      batches.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(i);
    longest = std::max(longest, lengths[i]);
  }
  if (!current.empty()) batches.push_back(std::move(current));
  return batches;
}

std::vector<SentenceScore> score_tokens(Transformer<float>& model, const std::vector<std::vector<int>>& sources,
                                        const std::vector<std::vector<int>>& targets, int batch_tokens) {
  require(sources.size() == targets.size(), "score: " + std::to_string(sources.size()) + " sources but " +
                                                std::to_string(targets.size()) + " targets");
  // What fits the learned positions (if any): a source and its end token, the start token and a target.
  const ModelConfig& c = model.config();
  const auto max_source = static_cast<std::size_t>(c.max_source_tokens());
  const auto max_target = static_cast<std::size_t>(c.max_target_tokens());
  std::vector<SentenceScore> out(sources.size());
  std::vector<std::size_t> lengths(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    out[i].truncated = sources[i].size() > max_source || targets[i].size() > max_target;
    lengths[i] = std::min(sources[i].size(), max_source) + std::min(targets[i].size(), max_target) + 1;
  }
  auto fit = [&](const std::vector<int>& tokens, std::size_t max) {
    return std::vector<int>(tokens.begin(), tokens.begin() + static_cast<long>(std::min(tokens.size(), max)));
  };
  Arena arena;
  for (const auto& group : length_batches(lengths, batch_tokens)) {
    std::vector<std::vector<int>> bs, bt;
    for (std::size_t i : group) {
      bs.push_back(fit(sources[i], max_source));
      bt.push_back(fit(targets[i], max_target));
    }
    const Batch b = make_batch(bs, bt, model.config());
    std::vector<float> nll(static_cast<std::size_t>(b.B) * b.T);  // (B, T) -log p per target position
    arena.reset();
    model.evaluate(b, 0.0f, arena, nll.data());
    for (std::size_t k = 0; k < group.size(); ++k) {
      SentenceScore& s = out[group[k]];
      s.tokens = b.tgt_len[k];
      for (int t = 0; t < b.tgt_len[k]; ++t) {
        s.token_log_probs.push_back(-nll[k * b.T + t]);
        s.log_prob -= nll[k * b.T + t];
      }
    }
  }
  return out;
}

}  // namespace heptapod
