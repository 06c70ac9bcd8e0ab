// Sampling on the decoding loop, for back-translation and varied outputs: each output token is drawn from the
// model's distribution after the repetition guards and the sampling warpers (logits_processors.h).
// Reproducible: a sentence's draws come from a random stream keyed by the seed, its tokens and the sample's
// index, so its samples are the same whatever else is in its batch and however many threads run. Greedy
// decoding is temperature 0.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heptapod/decode/decoding_loop.h"
#include "heptapod/decode/logits_processors.h"
#include "heptapod/decode/search.h"

namespace heptapod {

// One sample being drawn: its tokens (a prompt's first), each output token's alignment, the log-probability
// of its drawn tokens, and its random stream.
struct SampleRow {
  std::vector<int> tokens, alignment;
  double log_prob = 0;
  std::uint64_t stream = 0;
};

// The random stream of sample `index` of a sentence: keyed by its tokens and prefix, not where it sits in a
// batch, so a sample draws the same in any batch.
std::uint64_t sample_stream(const std::vector<int>& source, const std::vector<int>& prefix, int index);

// What every draw of one sentence's samples shares.
struct SampleDraw {
  const RepetitionGuards& guards;
  const SamplingOptions& sampling;
  const std::vector<int>& banned;  // ids never drawn (banned_output_ids)
  const ModelConfig& config;        // its end tokens (eos_id, extra_eos_ids)
};

// Row's next token from its raw logits (V): `forced` (>= 0: a prefix's token, taken as it is) or drawn under
// the guards and warpers (the end token too when !end_allowed: min_length), the draw keyed by the seed, the
// row's stream and its token count. Adds the token's log-probability under the guards to row.log_prob.
// Returns -1 when every token was removed (nothing drawn, nothing added). model and warped: (V) scratch.
int draw_sample(const float* logits, int V, SampleRow& row, int forced, bool end_allowed, const SampleDraw& draw,
                std::vector<float>& model, std::vector<float>& warped);

// One sentence's options.nbest samples as a request of a decoding loop (source and prefix as beam_request
// takes them). Each sample's log_prob is the model's, under the repetition guards but not the warpers; its
// score is log_prob / lp(|Y|) as in beam search. The length limit, min_length, banned ids and prefixes are
// beam search's. hooks.ended gets each sample as it ends, hooks.done all of them in the order they ended.
std::unique_ptr<SearchRequest> sample_request(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix,
                                              const SearchOptions& options, const SamplingOptions& sampling,
                                              SearchHooks hooks);

// Draws options.nbest samples for each source (token sequences as beam_search takes them); result[i] holds
// them best score first.
std::vector<std::vector<Hypothesis>> sample_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                   const SearchOptions& options, const SamplingOptions& sampling,
                                                   const std::vector<std::vector<int>>& prefixes = {});

}  // namespace heptapod
