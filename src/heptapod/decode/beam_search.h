// Beam search as in the paper (beam 4, GNMT length penalty alpha 0.6, at most source length + 50 tokens),
// batched over sentences on the incremental decoder; greedy search is beam 1. Finished sentences leave the
// batch; a sentence stops once `beam` hypotheses have ended (as fairseq does).
#pragma once

#include <functional>
#include <vector>

#include "heptapod/decode/incremental_decoder.h"
#include "heptapod/decode/logits_processors.h"

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
  // Called after a row takes a token other than the end token, with the row's sentence and tokens (prefix
  // included); true ends the row there without the end token, as the length limit does (stop strings).
  // Front ends that stream text read the tokens here too.
  std::function<bool(int sentence, const std::vector<int>& tokens)> stop_after;
};

struct Hypothesis {
  std::vector<int> tokens;     // without bos/eos
  float score = 0;             // log-probability / lp(|Y|), |Y| counting the end token
  float log_prob = 0;          // total log-probability, end token included
  std::vector<int> alignment;  // per output token, the source position it attended most (last layer, heads averaged)
  bool ended = false;          // the end token ended it (else the length limit, a stop or nothing left to draw)
};

// Translates token sequences (without the end token a model with source_eos reads: it is added here);
// result[i] holds up to nbest hypotheses for sources[i], best first. The ids the model config bans
// (banned_output_ids: pad and the start token) are never emitted. prefixes: empty, or one per source: the
// tokens every hypothesis of that sentence begins with (forced, their log-probabilities counted), the search
// continuing after them; outputs may be as long as the prefix and one more token whatever the length limit.
std::vector<std::vector<Hypothesis>> beam_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                 const SearchOptions& options,
                                                 const std::vector<std::vector<int>>& prefixes = {});

// Checks a search's options and prefixes (every prefix id in the vocabulary, none the end, start or padding
// token); throws Error naming the first problem. Both searches call it before anything else.
void validate_search(const ModelConfig& config, const std::vector<std::vector<int>>& sources,
                     const SearchOptions& options, const std::vector<std::vector<int>>& prefixes);

// What every search over the decoder begins with: starts `decoder` on the sources (each padded as the
// model reads it) with rows_per_sentence rows each, room for the longest output, and returns each
// sentence's length limit: the output tokens allowed before the end token (source length +
// max_extra_length, and at least the prefix and one more; with prompts, the prompt + max_extra_length; at
// most the model's position_limit()).
std::vector<int> start_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                              const SearchOptions& options, const std::vector<std::vector<int>>& prefixes,
                              int rows_per_sentence);

// With options.prompts, after start_search: feeds each sentence's prompt but its last token (bos first) to
// the first of its rows in one pass and gives the sentence's other rows that row's state; returns every row's
// tokens so far (its prompt), so that the search's first step feeds the prompt's last token. Without
// prompts: every row's empty tokens.
std::vector<std::vector<int>> prefill_prompts(IncrementalDecoder& decoder, const SearchOptions& options,
                                              const std::vector<std::vector<int>>& prefixes, int rows_per_sentence);

// The token a row of sentence `sentence` that has made `made` tokens must take from its forced prefix, or -1
// (no prefixes, or the prefix done).
int forced_token(const std::vector<std::vector<int>>& prefixes, int sentence, std::size_t made);

// Hypotheses best score first (equal scores keep their order).
void sort_best_first(std::vector<Hypothesis>& hypotheses);

// The source position row `row` attended most at the last step (last layer, heads averaged); 0 without a
// source.
int aligned_source_position(const IncrementalDecoder& decoder, int row);

// A finished output: its tokens (without the end token), each token's alignment (the end token's, when
// `ended`, dropped here), its log-probability and score log_prob / lp(|Y|), |Y| counting the end token but
// not the first `unscored` tokens (a prompt).
Hypothesis finished_hypothesis(std::vector<int> tokens, std::vector<int> alignment, float log_prob, bool ended,
                               float length_penalty_alpha, int unscored = 0);

// The tokens of sentence `sentence` that are a prompt (options.prompts: its prefix), which neither the
// length penalty nor min_length counts; 0 otherwise.
int prompt_length(const SearchOptions& options, const std::vector<std::vector<int>>& prefixes, int sentence);

// GNMT length penalty ((5 + length) / 6)^alpha.
float length_penalty(int length, float alpha);

}  // namespace heptapod
