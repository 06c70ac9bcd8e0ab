// What a language model's generation is asked and gives back, shared by the Generator (generator.h) and the
// generation batch (generation_batch.h): the options, a prompt as kept, the generated texts, and the helpers
// that turn them into a search's options and a search's hypotheses into texts.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/decode/logits_processors.h"
#include "heptapod/decode/search.h"
#include "heptapod/io/generation_defaults.h"

namespace heptapod {

struct GenerateOptions {
  int max_tokens = 100;   // new tokens per output at most
  int beam = 0;           // 0: sample; n >= 1: beam search of width n (1: greedy), deterministic
  int nbest = 1;          // outputs per prompt: samples, or the beam's best (<= beam)
  float length_penalty = 0.0f;  // beam search's alpha; 0 ranks by log-probability
  SamplingOptions sampling = {0.8f, 40, 0.95f, 1};  // llama.cpp's defaults
  RepetitionGuards guards;      // over the prompt and the output, as Hugging Face applies them
  std::vector<std::string> stop;  // an output ends before the first of these strings in its new text
  CachePrecision cache = CachePrecision::Float16;
  int batch_prompts = 32;        // prompts prefilled and generated together
  int max_prompt_tokens = 1024;  // longer prompts keep their last tokens (with a warning)
  // -1: none (the default, costing nothing); K >= 0: each new token's log-probability under the model's raw
  // distribution and its K most likely tokens (GeneratedText::token_log_probs; token_log_probs.h).
  int logprobs = -1;
  // Called with each piece of an output's new text as soon as it is final (sampling, one output per prompt;
  // temperature 0 is greedy): the prompt's index, the piece and, with logprobs, the records of the tokens
  // whose text it completes (decode/output_text.h says which; empty without logprobs). The pieces add up to
  // the output's new text, their records to its token_log_probs. A piece may be empty when it carries records
  // alone.
  std::function<void(std::size_t prompt, std::string_view piece, std::span<const TokenLogProb> token_log_probs)>
      stream;
};

struct GeneratedText {
  std::string text;          // the prompt and the new text
  std::string new_text;      // the new text alone
  std::vector<int> tokens;   // the prompt's tokens (as kept) and the new ones, without bos/eos
  int new_tokens = 0;
  float log_prob = 0;        // of the new tokens (the end token included when it ended the output)
  float score = 0;           // log_prob / lp(|new|) with the length penalty; log_prob without
  std::string end;           // "end" (the end token), "stop" (a stop string) or "length" (max_tokens)
  // With GenerateOptions::logprobs >= 0: one record per token of new_text, in order. The end token that ended
  // the output is not a token of its text and has none; where a stop string cut the text, the tokens that end
  // at or before the cut and the one the cut falls inside (so new_tokens may count more).
  std::vector<TokenLogProb> token_log_probs;
};

// A prompt as generation keeps it: its last tokens that fit (max_prompt_tokens, and room for one new token
// within learned positions), their text, and a warning when it was cut.
struct KeptPrompt {
  std::vector<int> tokens;
  std::string text;     // what every output's text begins with
  std::string warning;  // empty if nothing was cut
};

struct Generation {
  std::vector<GeneratedText> outputs;  // best first (beam) or in draw order's ranking (samples)
  std::string warning;                 // e.g. prompt truncation; empty if none
};

// Throws Error naming the first option out of range.
void validate(const GenerateOptions& options);

// Which of the sampling settings a caller chose itself (the others may come from a model's defaults).
struct ChosenSettings {
  bool beam = false, temperature = false, top_k = false, top_p = false, repetition_penalty = false;
};
// A model's generation defaults laid under `options` where the caller chose nothing: do_sample false makes
// generation greedy (beam 1) unless a beam or a sampling setting was chosen; temperature, top-k, top-p and the
// repetition penalty take the model's values.
void apply_generation_defaults(GenerateOptions& options, const GenerationDefaults& defaults,
                               const ChosenSettings& chosen);

// The search a generation runs: options.beam (at least 1) wide, the prompts prefilled, max_tokens counted from
// their end.
SearchOptions search_options(const GenerateOptions& options);

// A finished hypothesis as output (`text` left for the caller: the prompt's text and new_text): its new text
// (cut at a stop string when `stopped`), tokens, scores, why it ended, and the records of its first
// `text_tokens` new tokens (those of new_text).
GeneratedText generated_text(const Hypothesis& h, std::size_t prompt_tokens, std::string new_text, bool stopped,
                             std::size_t text_tokens);
// Notes in `warning` (once) that an output which ended by length stopped at the model's context
// (`context` positions) before max_tokens.
void warn_at_context(const GeneratedText& g, int context, int max_tokens, std::string& warning);

}  // namespace heptapod
