// Log-probabilities of generated tokens, as OpenAI's APIs report them (logprobs): for each new token, the
// model's raw log-softmax of its row's logits at the token taken, and the K most likely tokens with theirs.
// Raw: before the repetition guards, temperature, top-k/top-p and banned tokens, so they are the numbers
// `heptapod score --per-token` gives the same tokens after the same context. The searches record them when
// SearchOptions::logprobs >= 0 (sampling_search.h, beam_search.h); front ends turn them into JSON.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace heptapod {

// One new token's record.
struct TokenLogProb {
  int id = 0;          // the token taken
  float log_prob = 0;  // its natural log-probability under the model's raw distribution
  // The K most likely ids and their log-probabilities, best first (equal ones by smaller id); the token taken
  // is among them with the same value when it is one of the K.
  std::vector<std::pair<int, float>> top;
  // Where the token's text begins in its output's new text, in bytes: set by generation (GeneratedText, the
  // streamed pieces; decode/output_text.h), 0 from the searches.
  std::size_t text_offset = 0;
};

// One row's raw distribution as the records need it: log sum exp of its logits (as log_softmax computes it,
// in double) and its K most likely tokens.
struct RowLogProbs {
  double log_z = 0;
  std::vector<std::pair<int, float>> top;  // best first, equal ones by smaller id
};

// logits: (V) one row's raw logits; top: K (at most V are given).
RowLogProbs row_log_probs(const float* logits, int V, int top);

// The record of token `id` taken from the row whose raw logits (V) are `logits` and distribution `row`.
inline TokenLogProb token_log_prob(const float* logits, const RowLogProbs& row, int id) {
  return {id, static_cast<float>(logits[id] - row.log_z), row.top};
}

}  // namespace heptapod
