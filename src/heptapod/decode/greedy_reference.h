// Greedy decoding by full recomputation: every step re-runs the whole model on the prefix. Slow (quadratic)
// but obviously correct; it is the oracle the incremental decoder is tested against, and enough for demos.
#pragma once

#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// Returns the target tokens (without bos/eos) for one source sentence, at most max_len of them.
std::vector<int> greedy_reference(Transformer<float>& model, const std::vector<int>& source, int max_len,
                                  Arena& arena);

}  // namespace heptapod
