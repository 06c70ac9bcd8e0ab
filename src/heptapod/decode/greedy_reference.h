// Greedy decoding by full recomputation: every step re-runs the whole model on the prefixes. Quadratic in
// the output length, but obviously correct: the oracle the incremental decoder and greedy search are tested
// against (tests/test_decode.cpp), and what `heptapod demo` checks its tiny models with.
#pragma once

#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// Target tokens (without bos/eos) for each source sentence; sentence i gets at most max_lens[i] tokens. The
// model config's banned_output_ids are never chosen, as in beam_search.
std::vector<std::vector<int>> greedy_reference(Transformer<float>& model, const std::vector<std::vector<int>>& sources,
                                               const std::vector<int>& max_lens, Arena& arena);

// One sentence.
std::vector<int> greedy_reference(Transformer<float>& model, const std::vector<int>& source, int max_len, Arena& arena);

}  // namespace heptapod
