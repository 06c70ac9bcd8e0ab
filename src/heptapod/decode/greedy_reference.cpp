// Greedy decoding by full recomputation.
#include "heptapod/decode/greedy_reference.h"

#include <algorithm>

namespace heptapod {

std::vector<int> greedy_reference(Transformer<float>& model, const std::vector<int>& source, int max_len,
                                  Arena& arena) {
  const ModelConfig& c = model.config();
  std::vector<int> out;
  for (int step = 0; step < max_len; ++step) {
    arena.reset();
    Batch b = make_batch({source}, {out}, c);  // tgt_in = bos + out; the last position predicts the next token
    const float* logits = model.logits(b, arena);  // (T, V)
    const float* last = logits + static_cast<long>(b.tgt_len[0] - 1) * c.tgt_vocab_size;
    const int next = static_cast<int>(std::max_element(last, last + c.tgt_vocab_size) - last);
    if (next == c.eos_id) break;
    out.push_back(next);
  }
  return out;
}

}  // namespace heptapod
