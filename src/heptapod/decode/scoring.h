// Scoring given outputs under a model, as `heptapod score` does for both kinds: each target's (a language
// model's text's) log-probability token by token, end token included, from the full forward pass, in
// batches of similar length.
#pragma once

#include <cstddef>
#include <vector>

#include "heptapod/model/transformer.h"

namespace heptapod {

struct SentenceScore {
  double log_prob = 0;             // natural log-probability of the target given the source (end token included)
  std::vector<double> token_log_probs;
  int tokens = 0;
  int correct = 0;                 // an encoder's masked scoring: masked tokens its most probable piece recovers
  bool truncated = false;          // longer than the model's learned positions: only what fits was scored
};

// Indices of `lengths` sorted by length (stable), cut into groups of at most `budget` padded tokens.
std::vector<std::vector<std::size_t>> length_batches(const std::vector<std::size_t>& lengths, int budget);

// Each target's score given its source (empty sources for a decoder-only model, which reads none), in input
// order; batch_tokens bounds each batch's padded tokens. A source or target longer than the model's learned
// positions is cut to what fits (truncated set).
std::vector<SentenceScore> score_tokens(Transformer<float>& model, const std::vector<std::vector<int>>& sources,
                                        const std::vector<std::vector<int>>& targets, int batch_tokens);

}  // namespace heptapod
