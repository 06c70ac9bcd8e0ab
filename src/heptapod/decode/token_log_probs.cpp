// A row's raw log-normalizer and its K most likely tokens.
#include "heptapod/decode/token_log_probs.h"

#include <algorithm>

#include "heptapod/decode/logits_processors.h"

namespace heptapod {

RowLogProbs row_log_probs(const float* logits, int V, int top) {
  RowLogProbs row;
  row.log_z = log_normalizer(logits, V);
  const auto k = static_cast<std::size_t>(std::clamp(top, 0, V));
  if (k == 0) return row;
  // The k best so far, best first: a token enters when it beats the last (equal values keep the smaller id,
  // which came first).
  auto better = [](const std::pair<int, float>& a, const std::pair<int, float>& b) {
    return a.second > b.second || (a.second == b.second && a.first < b.first);
  };
  row.top.reserve(k + 1);
  for (int v = 0; v < V; ++v) {
    const std::pair<int, float> entry{v, static_cast<float>(logits[v] - row.log_z)};
    if (row.top.size() == k && !better(entry, row.top.back())) continue;
    row.top.insert(std::upper_bound(row.top.begin(), row.top.end(), entry, better), entry);
    if (row.top.size() > k) row.top.pop_back();
  }
  return row;
}

}  // namespace heptapod
