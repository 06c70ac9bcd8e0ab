// A padded batch of sentence pairs as the model consumes it.
#pragma once

#include <vector>

#include "heptapod/model/config.h"

namespace heptapod {

struct Batch {
  int B = 0;  // sentences
  int S = 0;  // padded source length (>= 1)
  int T = 0;  // padded target length (>= 1)
  std::vector<int> src;      // (B, S) source tokens, padded with pad_id
  std::vector<int> src_len;  // (B)
  std::vector<int> tgt_in;   // (B, T) bos + target tokens, padded
  std::vector<int> tgt_out;  // (B, T) target tokens + eos, padded
  std::vector<int> tgt_len;  // (B) target length including the bos/eos shift
  long long target_tokens() const;
};

// Pads token sequences (without bos/eos) into a batch; checks every id against the vocabularies.
Batch make_batch(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                 const ModelConfig& config);

// Checks shapes, lengths and token ids; throws Error naming the problem.
void validate_batch(const Batch& batch, const ModelConfig& config);

}  // namespace heptapod
