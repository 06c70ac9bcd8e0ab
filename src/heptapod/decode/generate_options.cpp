// Generation's options checked and turned into a search's; a search's hypotheses turned into texts.
#include "heptapod/decode/generate_options.h"

#include <algorithm>

#include "heptapod/core/error.h"

namespace heptapod {

SearchOptions search_options(const GenerateOptions& o) {
  SearchOptions s;
  s.beam = std::max(o.beam, 1);
  s.nbest = o.nbest;
  s.length_penalty = o.length_penalty;
  s.max_extra_length = o.max_tokens;
  s.cache = o.cache;
  s.guards = o.guards;
  s.prompts = true;
  s.logprobs = o.logprobs;
  return s;
}

void validate(const GenerateOptions& o) {
  require(o.max_tokens >= 1, "generate: max_tokens must be at least 1");
  require(o.beam >= 0, "generate: beam must be 0 (sampling) or more");
  require(o.nbest >= 1 && (o.beam == 0 || o.nbest <= o.beam),
          "generate: nbest must be at least 1, and at most the beam when searching");
  require(o.batch_prompts >= 1, "generate: batch_prompts must be at least 1");
  require(o.max_prompt_tokens >= 1, "generate: max_prompt_tokens must be at least 1");
  require(o.logprobs >= -1, "generate: logprobs must be -1 (none) or a number of most likely tokens (0 or more)");
  for (const std::string& s : o.stop) require(!s.empty(), "generate: a stop string is empty");
  validate(o.guards);
  if (o.beam == 0) validate(o.sampling);
}

GeneratedText generated_text(const Hypothesis& h, std::size_t prompt_tokens, std::string new_text, bool stopped,
                             std::size_t text_tokens) {
  GeneratedText g;
  g.end = stopped ? "stop" : h.ended ? "end" : "length";
  g.new_text = std::move(new_text);
  g.tokens = h.tokens;
  g.new_tokens = static_cast<int>(h.tokens.size() - prompt_tokens);
  g.log_prob = h.log_prob;
  g.score = h.score;
  const std::size_t kept = std::min(text_tokens, h.token_log_probs.size());
  g.token_log_probs.assign(h.token_log_probs.begin(), h.token_log_probs.begin() + static_cast<long>(kept));
  return g;
}

void warn_at_context(const GeneratedText& g, int context, int max_tokens, std::string& warning) {
  const std::string note = "stopped at the model's context (" + std::to_string(context) + " positions)";
  if (g.end == "length" && static_cast<int>(g.tokens.size()) >= context && g.new_tokens < max_tokens &&
      warning.find(note) == std::string::npos)
    warning += (warning.empty() ? "" : "; ") + note;
}

void apply_generation_defaults(GenerateOptions& o, const GenerationDefaults& d, const ChosenSettings& chosen) {
  const bool sampling_chosen = chosen.temperature || chosen.top_k || chosen.top_p;
  if (d.do_sample == false && !chosen.beam && !sampling_chosen) o.beam = 1;
  if (d.temperature && !chosen.temperature) o.sampling.temperature = *d.temperature;
  if (d.top_k && !chosen.top_k) o.sampling.top_k = *d.top_k;
  if (d.top_p && !chosen.top_p) o.sampling.top_p = *d.top_p;
  if (d.repetition_penalty && !chosen.repetition_penalty) o.guards.repetition_penalty = *d.repetition_penalty;
}

}  // namespace heptapod
