// A row's raw log-normalizer and its K most likely tokens.
#include "heptapod/decode/token_log_probs.h"

#include <algorithm>

#include "heptapod/decode/logits_processors.h"
#include "heptapod/kernels/logits_top.h"

namespace heptapod {

RowLogProbs row_log_probs(const float* logits, int V, int top) {
  RowLogProbs row;
  row.log_z = log_normalizer(logits, V);
  const int k = std::clamp(top, 0, V);
  if (k == 0) return row;
  // The k largest logits, best first (equal ones by smaller id), as the decoder's step takes its best tokens.
  std::vector<float> values(static_cast<std::size_t>(k));  // (k)
  std::vector<int> ids(static_cast<std::size_t>(k));       // (k)
  int count = 0;
  kernels::logits_top(logits, V, 0, k, count, values.data(), ids.data());
  row.top.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) row.top.emplace_back(ids[i], static_cast<float>(values[i] - row.log_z));
  return row;
}

}  // namespace heptapod
