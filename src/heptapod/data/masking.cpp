// BERT's masking of encoder inputs: choice, 80/10/10 replacement, whole words, reproducible draws.
#include "heptapod/data/masking.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/data/document_stream.h"

namespace heptapod {

MaskingPlan::MaskingPlan(const Vocabulary& vocab, int mask_id, const MaskingOptions& options)
    : mask_id_(mask_id), options_(options) {
  require(options.rate > 0.0f && options.rate < 1.0f, "masking: the mask rate must be in (0, 1)");
  const int V = vocab.size();
  ordinary_.assign(static_cast<std::size_t>(V), 0);
  word_start_.assign(static_cast<std::size_t>(V), 1);
  for (int id = 0; id < V; ++id) {
    if (vocab.is_special(id) || id == mask_id) continue;
    ordinary_[static_cast<std::size_t>(id)] = 1;
    replacements_.push_back(id);
    word_start_[static_cast<std::size_t>(id)] = vocab.starts_word(id) ? 1 : 0;
  }
  require(!replacements_.empty(), "masking: the vocabulary has no ordinary tokens");
}

void MaskingPlan::mask(std::vector<int>& tokens, std::vector<int>& targets, std::uint64_t key) const {
  const std::size_t n = tokens.size();
  targets.assign(n, -1);
  auto ordinary = [&](std::size_t i) {
    const int t = tokens[i];
    return t >= 0 && static_cast<std::size_t>(t) < ordinary_.size() && ordinary_[static_cast<std::size_t>(t)];
  };
  Rng rng(mix64(key));
  // Units to choose from: single ordinary tokens, or whole words (a word start and the ordinary pieces
  // after it that do not start a word).
  std::vector<std::pair<std::size_t, std::size_t>> units;  // [begin, end)
  for (std::size_t i = 0; i < n;) {
    if (!ordinary(i)) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    if (options_.whole_words)
      while (end < n && ordinary(end) && !word_start_[static_cast<std::size_t>(tokens[end])]) ++end;
    units.emplace_back(i, end);
    i = end;
  }
  if (units.empty()) return;
  std::vector<char> chosen(units.size(), 0);
  bool any = false;
  for (char& c : chosen) any |= (c = rng.uniform() < options_.rate ? 1 : 0);
  if (!any) chosen[rng.below(units.size())] = 1;  // every block teaches something
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (!chosen[u]) continue;
    for (std::size_t i = units[u].first; i < units[u].second; ++i) {
      targets[i] = tokens[i];
      const double r = rng.uniform();
      if (r < 0.8)
        tokens[i] = mask_id_;
      else if (r < 0.9)
        tokens[i] = replacements_[rng.below(replacements_.size())];
    }
  }
}

Batch MaskingPlan::batch(const DocumentStream& stream, const std::vector<std::int64_t>& blocks, int context,
                         std::uint64_t key) const {
  require(context >= 2, "masking: a context of at least 2 (the start token and one more)");
  Batch b;
  b.B = static_cast<int>(blocks.size());
  std::vector<int> lengths;  // (B) start token included
  for (const std::int64_t block : blocks)
    lengths.push_back(1 + static_cast<int>(std::min<std::int64_t>(context - 1, stream.size() - block * (context - 1))));
  b.S = *std::max_element(lengths.begin(), lengths.end());
  b.src_len = lengths;
  b.src.assign(static_cast<std::size_t>(b.B) * b.S, stream.pad_id());
  b.mlm_targets.assign(b.src.size(), -1);
  b.src_types.assign(b.src.size(), 0);
  b.tgt_len.assign(static_cast<std::size_t>(b.B), 0);
  std::vector<int> tokens, targets;
  for (int i = 0; i < b.B; ++i) {
    tokens.assign(static_cast<std::size_t>(lengths[i]), stream.bos_id());
    stream.read(blocks[i] * (context - 1), lengths[i] - 1, tokens.data() + 1);
    mask(tokens, targets, mix64(key) ^ mix64(static_cast<std::uint64_t>(i) + 0x6d61736bull));
    std::copy(tokens.begin(), tokens.end(), b.src.begin() + static_cast<long>(i) * b.S);
    std::copy(targets.begin(), targets.end(), b.mlm_targets.begin() + static_cast<long>(i) * b.S);
  }
  return b;
}

}  // namespace heptapod
