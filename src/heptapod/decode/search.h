// What every search over the incremental decoder shares (decode/decoding_loop.h runs them): the options of a
// search (beam width or samples, length limit and penalty, guards, prefixes or prompts, stop hook), the
// finished hypotheses it returns, and the helpers that start a sentence, score a finished output and rank
// them. Beam search (beam_search.h) and sampling (sampling_search.h) are the strategies.
#pragma once

#include <functional>
#include <vector>

#include "heptapod/decode/incremental_decoder.h"
#include "heptapod/decode/logits_processors.h"
#include "heptapod/decode/token_log_probs.h"

namespace heptapod {

struct SearchOptions {
  int beam = 4;
  float length_penalty = 0.6f;  // alpha of lp(Y) = ((5 + |Y|) / 6)^alpha; 0 ranks by log-probability
  int max_extra_length = 50;    // outputs stop at source length + this many tokens
  int nbest = 1;                // hypotheses returned per sentence (<= beam)
  int min_length = 0;           // the end token is banned until the output has this many tokens
  CachePrecision cache = CachePrecision::Float16;  // the decoder's key/value storage
  RepetitionGuards guards;      // applied to every row's logits (log-probabilities then rank the candidates)
  // The prefixes are prompts (a language model's): fed in one pass before the search (prefill), their
  // tokens not scored, and max_extra_length counted from their end.
  bool prompts = false;
  // -1: none (costing nothing); K >= 0: each output token's record (token_log_probs.h) with its K most likely
  // tokens. Beam search then reads whole logits.
  int logprobs = -1;
};

struct Hypothesis {
  std::vector<int> tokens;     // without bos/eos
  float score = 0;             // log-probability / lp(|Y|), |Y| counting the end token
  float log_prob = 0;          // total log-probability, end token included
  std::vector<int> alignment;  // per output token, the source position it attended most (last layer, heads averaged)
  bool ended = false;          // the end token ended it (else the length limit, a stop or nothing left to draw)
  int sample = 0;              // a sample's index among its sentence's samples (draw order); 0 in a beam search
  // With SearchOptions::logprobs >= 0: one record per output token (a prompt's are not; the end token that
  // ended it is not an output token), following the row's own history when beams reorder.
  std::vector<TokenLogProb> token_log_probs;
};

// What a request of the decoding loop (decoding_loop.h) tells whoever added it.
struct SearchHooks {
  // After a row took a token other than the end token, with the row's sample (its index among the request's
  // samples; 0 in a beam search) and tokens (prefix included): true ends the row there without the end token,
  // as the length limit does (stop strings). Front ends that stream text read the tokens here too, and the
  // row's records of its output tokens (token_log_probs: empty unless SearchOptions::logprobs >= 0).
  std::function<bool(int sample, const std::vector<int>& tokens, const std::vector<TokenLogProb>& token_log_probs)>
      stop_after;
  // Each sample as it ends (sampling).
  std::function<void(const Hypothesis& sample)> ended;
  // Once, when the request has ended: a beam's best nbest hypotheses, best first, or the samples in the order
  // they ended.
  std::function<void(std::vector<Hypothesis> outputs)> done;
};

// Checks a search's options and prefixes (every prefix id in the vocabulary, none the end, start or padding
// token); throws Error naming the first problem. Both searches call it before anything else.
void validate_search(const ModelConfig& config, const std::vector<std::vector<int>>& sources,
                     const SearchOptions& options, const std::vector<std::vector<int>>& prefixes);

// A sentence's length limit: the output tokens allowed before the end token (its source's length as the model
// reads it + max_extra_length, and at least the prefix and one more; with prompts, the prompt +
// max_extra_length; at most the model's position_limit()).
int length_limit(const ModelConfig& config, const std::vector<int>& source, const std::vector<int>& prefix,
                 const SearchOptions& options);

// The tokens of a sentence's prefix that are a prompt (options.prompts), which neither the length penalty nor
// min_length counts; 0 for a forced prefix.
inline int prompt_length(const SearchOptions& options, const std::vector<int>& prefix) {
  return options.prompts ? static_cast<int>(prefix.size()) : 0;
}

// The token a row that has made `made` tokens must take from its forced prefix, or -1 (the prefix done).
inline int forced_token(const std::vector<int>& prefix, std::size_t made) {
  return made < prefix.size() ? prefix[made] : -1;
}

// Hypotheses best score first (equal scores keep their order).
void sort_best_first(std::vector<Hypothesis>& hypotheses);

// The source position row `row` attended most at the last step (last layer, heads averaged); 0 without a
// source.
int aligned_source_position(const IncrementalDecoder& decoder, int row);

// A finished output: its tokens (without the end token), each token's alignment (the end token's, when
// `ended`, dropped here), its log-probability and score log_prob / lp(|Y|), |Y| counting the end token but
// not the first `unscored` tokens (a prompt), and its output tokens' records (empty when none were asked).
Hypothesis finished_hypothesis(std::vector<int> tokens, std::vector<int> alignment, float log_prob, bool ended,
                               float length_penalty_alpha, int unscored, std::vector<TokenLogProb> token_log_probs);

// GNMT length penalty ((5 + length) / 6)^alpha.
float length_penalty(int length, float alpha);

}  // namespace heptapod
