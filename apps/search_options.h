// The search options `heptapod translate` and `heptapod serve` share (serve's are the defaults of requests
// that set none): beam, length penalty, lengths, repetition guards, cache storage, batching and over-long
// inputs.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "commands.h"
#include "heptapod/decode/translator.h"

namespace heptapod::app {

inline void add_search_options(CLI::App* cmd, TranslateOptions& options) {
  SearchOptions& s = options.search;
  cmd->add_option("--beam", s.beam, "Beam size (1: greedy)")->check(CLI::Range(1, 256));
  cmd->add_option("--alpha", s.length_penalty, "Length penalty alpha, ((5 + |Y|) / 6)^alpha")->check(kFinite);
  cmd->add_option("--max-extra-length", s.max_extra_length, "Outputs stop at input length + this many tokens")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--min-length", s.min_length, "The end token is banned until the output has this many tokens")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repetition-penalty", s.guards.repetition_penalty,
                  "Tokens already in the output are less likely: their logits divided by this when positive, "
                  "multiplied when negative (1: off; 1.2 is common)")
      ->check(CLI::PositiveNumber & kFinite);
  cmd->add_option("--no-repeat-ngram", s.guards.no_repeat_ngram,
                  "No n-gram of this many tokens appears twice in an output (0: off)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cache", s.cache,
                  "Storage of the decoder's cached keys and values: float16 (half the memory; attention computes in "
                  "float) or float32 (the exact numbers of a full forward pass)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, CachePrecision>{{"float16", CachePrecision::Float16},
                                                                                 {"float32", CachePrecision::Float32}}))
      ->option_text("float16|float32 (default float16)");
  cmd->add_option("--batch-tokens", options.batch_tokens, "Source tokens per search batch")->check(CLI::PositiveNumber);
  cmd->add_option("--max-input-tokens", options.max_input_tokens, "Truncate longer inputs (with a warning)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--reject-long", options.reject_long_inputs, "Leave over-long inputs untranslated instead");
}

}  // namespace heptapod::app
