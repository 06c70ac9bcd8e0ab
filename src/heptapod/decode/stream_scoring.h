// A language model's scores of a long text read as one token stream, the way Transformer-XL's evaluation reads
// it (Dai et al. 2019, section 3.2 and table 9): in consecutive segments, each over the segment memory of the
// text before it (a relative model), or as fixed blocks that see only themselves; or the vanilla baseline the
// paper compares against, a sliding window in which every token is predicted from the `window` tokens before
// it, one forward pass per token.
#pragma once

#include <string>
#include <vector>

#include "heptapod/model/transformer.h"

namespace heptapod {

struct StreamScoring {
  int segment = 0;  // > 0: segments of this many inputs
  int memory = 0;   // with segment: the memory rows each segment attends over first (relative models; 0: none)
  int window = 0;   // > 0 (instead of segment): the sliding window's length
  int batch_tokens = 4096;  // blocks and windows scored together (memory segments run one at a time)
};

// Throws Error naming the option (--segment, --memory, --sliding-window) that does not fit `model`.
void validate(const StreamScoring& options, const ModelConfig& model);

// stream: (n) tokens -> (n - 1) natural log-probabilities, entry t - 1 that of stream[t] given what the mode
// lets it see of stream[0 .. t).
std::vector<double> stream_log_probs(Transformer<float>& model, const std::vector<int>& stream,
                                     const StreamScoring& options);

}  // namespace heptapod
