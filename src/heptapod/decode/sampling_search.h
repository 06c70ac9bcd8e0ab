// Sampling on the incremental decoder, for back-translation and varied outputs: each output token is drawn
// from the model's distribution after the repetition guards and the sampling warpers (logits_processors.h).
// Reproducible: a sentence's draws come from a random stream keyed by the seed, its tokens and the sample's
// index, so its samples are the same whatever else is in its batch and however many threads run.
#pragma once

#include <vector>

#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/logits_processors.h"

namespace heptapod {

// Draws options.nbest samples for each source (token sequences as beam_search takes them); result[i] holds
// them best score first. Each hypothesis's log_prob is the model's, under the repetition guards but not the
// warpers; its score is log_prob / lp(|Y|) as in beam search. The length limit, min_length, banned ids and
// prefixes are beam_search's.
std::vector<std::vector<Hypothesis>> sample_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                   const SearchOptions& options, const SamplingOptions& sampling,
                                                   const std::vector<std::vector<int>>& prefixes = {});

}  // namespace heptapod
