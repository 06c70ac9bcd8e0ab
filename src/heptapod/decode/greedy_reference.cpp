// Batched greedy decoding by full recomputation.
#include "heptapod/decode/greedy_reference.h"

#include <algorithm>

namespace heptapod {

std::vector<std::vector<int>> greedy_reference(Transformer<float>& model, const std::vector<std::vector<int>>& sources,
                                               const std::vector<int>& max_lens, Arena& arena) {
  const ModelConfig& c = model.config();
  const std::vector<int> banned = banned_output_ids(c);
  const std::size_t n = sources.size();
  std::vector<std::vector<int>> out(n);
  std::vector<bool> done(n, false);
  for (std::size_t i = 0; i < n; ++i) done[i] = max_lens[i] <= 0;
  while (true) {
    std::vector<std::size_t> active;
    for (std::size_t i = 0; i < n; ++i)
      if (!done[i]) active.push_back(i);
    if (active.empty()) break;
    std::vector<std::vector<int>> src, prefix;
    for (std::size_t i : active) {
      src.push_back(sources[i]);
      prefix.push_back(out[i]);
    }
    arena.reset();
    const Batch b = make_batch(src, prefix, c);  // tgt_in = bos + prefix; its last position predicts the next token
    const float* logits = model.logits(b, arena);  // (B*T, V)
    for (std::size_t k = 0; k < active.size(); ++k) {
      const std::size_t i = active[k];
      const float* row = logits + (static_cast<long>(k) * b.T + b.tgt_len[k] - 1) * c.tgt_vocab_size;
      int next = -1;
      for (int v = 0; v < c.tgt_vocab_size; ++v)
        if (std::find(banned.begin(), banned.end(), v) == banned.end() && (next < 0 || row[v] > row[next])) next = v;
      if (c.is_end(next)) {
        done[i] = true;
        continue;
      }
      out[i].push_back(next);
      done[i] = static_cast<int>(out[i].size()) >= max_lens[i];
    }
  }
  return out;
}

std::vector<int> greedy_reference(Transformer<float>& model, const std::vector<int>& source, int max_len, Arena& arena) {
  return greedy_reference(model, std::vector<std::vector<int>>{source}, std::vector<int>{max_len}, arena)[0];
}

}  // namespace heptapod
