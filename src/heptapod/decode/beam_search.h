// Beam search as in the paper (beam 4, GNMT length penalty alpha 0.6, at most source length + 50 tokens),
// batched over sentences on the decoding loop (decoding_loop.h); greedy search is beam 1. A sentence's `beam`
// rows run as one request of the loop, so it may share a running batch with other requests; it leaves the
// batch once `beam` hypotheses have ended (as fairseq does).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "heptapod/decode/decoding_loop.h"
#include "heptapod/decode/search.h"

namespace heptapod {

// Translates token sequences (without the end token a model with source_eos reads: it is added here);
// result[i] holds up to nbest hypotheses for sources[i], best first. The ids the model config bans
// (banned_output_ids: pad and the start token) are never emitted. prefixes: empty, or one per source: the
// tokens every hypothesis of that sentence begins with (forced, their log-probabilities counted), the search
// continuing after them; outputs may be as long as the prefix and one more token whatever the length limit.
std::vector<std::vector<Hypothesis>> beam_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                 const SearchOptions& options,
                                                 const std::vector<std::vector<int>>& prefixes = {});

// One sentence's beam search as a request of a decoding loop: `source` (without the end token a model with
// source_eos reads), `prefix` (forced tokens, or a prompt with options.prompts; may be empty). hooks.done gets
// up to options.nbest hypotheses, best first. Throws Error for options out of range.
std::unique_ptr<SearchRequest> beam_request(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix,
                                            const SearchOptions& options, SearchHooks hooks);

}  // namespace heptapod
