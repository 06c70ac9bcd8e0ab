// Generator: prompts tokenized and kept within bounds, prefilled and continued by sampling or beam search,
// outputs cut at stop strings and streamed as they are made.
#include "heptapod/decode/generator.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/decode/output_text.h"

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
  return s;
}

void validate(const GenerateOptions& o) {
  require(o.max_tokens >= 1, "generate: max_tokens must be at least 1");
  require(o.beam >= 0, "generate: beam must be 0 (sampling) or more");
  require(o.nbest >= 1 && (o.beam == 0 || o.nbest <= o.beam),
          "generate: nbest must be at least 1, and at most the beam when searching");
  require(o.batch_prompts >= 1, "generate: batch_prompts must be at least 1");
  require(o.max_prompt_tokens >= 1, "generate: max_prompt_tokens must be at least 1");
  for (const std::string& s : o.stop) require(!s.empty(), "generate: a stop string is empty");
  validate(o.guards);
  if (o.beam == 0) validate(o.sampling);
}

Generator::Generator(const std::string& model_path, const ModelLoadOptions& options) {
  InferenceModel loaded = load_for_inference(model_path, options, Architecture::DecoderOnly, "generation");
  model_ = std::move(loaded.model);
  vocabs_ = std::move(loaded.vocabs);
  decoder_ = std::make_unique<IncrementalDecoder>(*model_);
}

KeptPrompt Generator::keep_prompt(const std::string& prompt, const GenerateOptions& o) const {
  // A prompt keeps room for one new token within the model's learned positions (if it has them).
  const int context = config().position_limit();
  const int max_prompt = std::min(o.max_prompt_tokens, config().max_target_tokens());
  KeptPrompt kept;
  kept.tokens = vocabs_.target.encode(prompt);
  const auto length = static_cast<int>(kept.tokens.size());
  if (length > max_prompt) {
    kept.warning = "prompt of " + std::to_string(length) + " tokens: kept its last " + std::to_string(max_prompt) +
                   (max_prompt < o.max_prompt_tokens ? " (the model's context is " + std::to_string(context) +
                                                           " positions)"
                                                     : "");
    kept.tokens.erase(kept.tokens.begin(), kept.tokens.end() - max_prompt);
  }
  kept.text = vocabs_.target.decode(kept.tokens);
  return kept;
}

GeneratedText generated_text(const Hypothesis& h, std::size_t prompt_tokens, std::string new_text, bool stopped) {
  GeneratedText g;
  g.end = stopped ? "stop" : h.ended ? "end" : "length";
  g.new_text = std::move(new_text);
  g.tokens = h.tokens;
  g.new_tokens = static_cast<int>(h.tokens.size() - prompt_tokens);
  g.log_prob = h.log_prob;
  g.score = h.score;
  return g;
}

void warn_at_context(const GeneratedText& g, int context, int max_tokens, std::string& warning) {
  const std::string note = "stopped at the model's context (" + std::to_string(context) + " positions)";
  if (g.end == "length" && static_cast<int>(g.tokens.size()) >= context && g.new_tokens < max_tokens &&
      warning.find(note) == std::string::npos)
    warning += (warning.empty() ? "" : "; ") + note;
}

std::vector<Generation> Generator::generate(const std::vector<std::string>& prompts, const GenerateOptions& o) {
  validate(o);
  std::vector<KeptPrompt> kept;
  kept.reserve(prompts.size());
  for (const std::string& prompt : prompts) kept.push_back(keep_prompt(prompt, o));
  return generate_kept(kept, o);
}

std::vector<Generation> Generator::generate_kept(const std::vector<KeptPrompt>& prompts, const GenerateOptions& o) {
  validate(o);
  const std::size_t n = prompts.size();
  std::vector<Generation> out(n);
  std::vector<std::vector<int>> tokens(n);  // each prompt's tokens, as kept
  std::vector<OutputText> texts;            // and its output's text
  texts.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    require(static_cast<int>(prompts[i].tokens.size()) <= config().max_target_tokens(),
            "generate: a prompt of " + std::to_string(prompts[i].tokens.size()) + " tokens leaves no room within the " +
                "model's context of " + std::to_string(config().position_limit()) + " positions");
    tokens[i] = prompts[i].tokens;
    texts.emplace_back(vocabs_.target, prompts[i].text, tokens[i].size(), o.stop);
    out[i].warning = prompts[i].warning;
  }
  // Only a sampled token is final when the hook sees it (beam search shows it candidates).
  const bool streaming = o.stream && o.nbest == 1 && o.beam == 0;
  auto emit_to = [&](std::size_t p) {
    return streaming ? OutputText::Emit([&o, p](std::string_view piece) { o.stream(p, piece); }) : OutputText::Emit();
  };

  for (std::size_t b0 = 0; b0 < n; b0 += static_cast<std::size_t>(o.batch_prompts)) {
    const std::size_t b1 = std::min(n, b0 + static_cast<std::size_t>(o.batch_prompts));
    const std::vector<std::vector<int>> sources(b1 - b0), prefixes(tokens.begin() + static_cast<long>(b0),
                                                                     tokens.begin() + static_cast<long>(b1));
    SearchOptions s = search_options(o);
    if (!o.stop.empty() || streaming)
      s.stop_after = [&](int sentence, const std::vector<int>& row) {
        const std::size_t p = b0 + static_cast<std::size_t>(sentence);
        return texts[p].advance(row, emit_to(p));
      };
    const auto results = o.beam == 0 ? sample_search(*decoder_, sources, s, o.sampling, prefixes)
                                     : beam_search(*decoder_, sources, s, prefixes);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::size_t p = b0 + i;
      for (const Hypothesis& h : results[i]) {
        bool stopped = false;
        std::string text = texts[p].finish(h.tokens, emit_to(p), stopped);
        GeneratedText g = generated_text(h, tokens[p].size(), std::move(text), stopped);
        g.text = texts[p].prompt_text() + g.new_text;
        warn_at_context(g, config().position_limit(), o.max_tokens, out[p].warning);
        out[p].outputs.push_back(std::move(g));
      }
    }
  }
  return out;
}

std::vector<SentenceScore> Generator::score(const std::vector<std::string>& texts, int batch_tokens) {
  std::vector<std::vector<int>> tokens(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) tokens[i] = vocabs_.target.encode(texts[i]);
  return score_tokens(*model_, std::vector<std::vector<int>>(texts.size()), tokens, batch_tokens);
}

std::vector<SentenceScore> Generator::score_stream(const std::vector<std::string>& texts,
                                                   const StreamScoring& options) {
  const ModelConfig& c = config();
  std::vector<int> stream;  // each text as bos, its tokens, eos
  std::vector<std::size_t> starts;  // each text's bos in the stream
  for (const std::string& text : texts) {
    starts.push_back(stream.size());
    stream.push_back(c.bos_id);
    const std::vector<int> tokens = vocabs_.target.encode(text);
    stream.insert(stream.end(), tokens.begin(), tokens.end());
    stream.push_back(c.eos_id);
  }
  const std::vector<double> log_probs = stream_log_probs(*model_, stream, options);  // of stream[1 ..]
  std::vector<SentenceScore> out(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::size_t end = i + 1 < texts.size() ? starts[i + 1] : stream.size();  // past the text's eos
    SentenceScore& s = out[i];
    for (std::size_t t = starts[i] + 1; t < end; ++t) {  // its tokens and eos; its bos is not its own
      s.token_log_probs.push_back(log_probs[t - 1]);
      s.log_prob += log_probs[t - 1];
    }
    s.tokens = static_cast<int>(s.token_log_probs.size());
  }
  return out;
}

}  // namespace heptapod
