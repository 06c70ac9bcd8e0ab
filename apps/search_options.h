// The search options `heptapod translate` and `heptapod serve` share (serve's are the defaults of requests
// that set none): beam, length penalty, lengths, repetition guards, cache storage, batching and over-long
// inputs; and those of a language model's replies that `generate` and `chat` share.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "heptapod/decode/generator.h"
#include "heptapod/decode/translator.h"

namespace heptapod::app {

// The repetition guards' options.
inline void add_guard_options(CLI::App* cmd, RepetitionGuards& guards) {
  cmd->add_option("--repetition-penalty", guards.repetition_penalty,
                  "Tokens already in the output are less likely: their logits divided by this when positive, "
                  "multiplied when negative (1: off; 1.2 is common)")
      ->check(CLI::PositiveNumber & kFinite);
  cmd->add_option("--no-repeat-ngram", guards.no_repeat_ngram,
                  "No n-gram of this many tokens appears twice in an output (0: off)")
      ->check(CLI::NonNegativeNumber);
}

// The sampling options (temperature, top-k, top-p, seed); `when` starts their help ("With --sample: ").
inline std::vector<CLI::Option*> add_sampling_options(CLI::App* cmd, SamplingOptions& sampling, const std::string& when) {
  return {
      cmd->add_option("--temperature", sampling.temperature, when + "logits / temperature (0: greedy)")
          ->check(CLI::NonNegativeNumber & kFinite),
      cmd->add_option("--top-k", sampling.top_k, when + "draw from the k most likely tokens (0: all)")
          ->check(CLI::NonNegativeNumber),
      cmd->add_option("--top-p", sampling.top_p,
                      when + "draw from the smallest set of most likely tokens whose probability reaches p")
          ->check(real_check([](double v) { return v > 0 && v <= 1; }, "(0, 1]", "in (0, 1]")),
      cmd->add_option("--seed", sampling.seed, when + "the random seed")->check(integer_check<std::uint64_t>()),
  };
}

// The storage of the decoder's key/value cache.
inline void add_cache_option(CLI::App* cmd, CachePrecision& cache) {
  cmd->add_option("--cache", cache,
                  "Storage of the decoder's cached keys and values: float16 (half the memory; attention computes in "
                  "float) or float32 (the exact numbers of a full forward pass)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, CachePrecision>{{"float16", CachePrecision::Float16},
                                                                                 {"float32", CachePrecision::Float32}}))
      ->option_text("float16|float32 (default float16)");
}

// The options of a language model's replies that `generate` and `chat` share: length, sampling, stop strings,
// repetition guards, cache.
inline void add_reply_options(CLI::App* cmd, GenerateOptions& o) {
  cmd->add_option("--max-tokens", o.max_tokens, "New tokens per output at most")->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_sampling_options(cmd, o.sampling, "Sampling: ");
  cmd->add_option("--stop", o.stop, "An output ends before this string (repeatable)")
      ->check([](const std::string& s) { return s.empty() ? std::string("a stop string is empty") : std::string(); });
  add_guard_options(cmd, o.guards);
  add_cache_option(cmd, o.cache);
}

// The sampling settings given on `cmd`'s command line, which the model's generation defaults do not override.
inline ChosenSettings chosen_settings(const CLI::App* cmd) {
  auto given = [&](const char* name) {
    const CLI::Option* option = cmd->get_option_no_throw(name);
    return option != nullptr && option->count() > 0;
  };
  return ChosenSettings{given("--beam"), given("--temperature"), given("--top-k"), given("--top-p"),
                        given("--repetition-penalty")};
}

inline void add_search_options(CLI::App* cmd, TranslateOptions& options) {
  SearchOptions& s = options.search;
  cmd->add_option("--beam", s.beam, "Beam size (1: greedy)")->check(CLI::Range(1, 256));
  cmd->add_option("--alpha", s.length_penalty, "Length penalty alpha, ((5 + |Y|) / 6)^alpha")->check(kFinite);
  cmd->add_option("--max-extra-length", s.max_extra_length, "Outputs stop at input length + this many tokens")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--min-length", s.min_length, "The end token is banned until the output has this many tokens")
      ->check(CLI::NonNegativeNumber);
  add_guard_options(cmd, s.guards);
  add_cache_option(cmd, s.cache);
  cmd->add_option("--batch-tokens", options.batch_tokens, "Source tokens per search batch")->check(CLI::PositiveNumber);
  cmd->add_option("--max-input-tokens", options.max_input_tokens, "Truncate longer inputs (with a warning)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--reject-long", options.reject_long_inputs, "Leave over-long inputs untranslated instead");
}

}  // namespace heptapod::app
