// Generator: prompts tokenized and kept within bounds, prefilled and continued by sampling or beam search,
// outputs cut at stop strings and streamed as they are made.
#include "heptapod/decode/generator.h"

#include <algorithm>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

// An output's new text: its whole text past the prompt's (SentencePiece joins pieces across the seam, so the
// new tokens alone could lose a leading space), or the new tokens' own text if the whole does not begin with
// the prompt's.
std::string new_text(const Vocabulary& vocab, const std::string& prompt_text, std::size_t prompt_tokens,
                     const std::vector<int>& tokens) {
  const std::string whole = vocab.decode(tokens);
  if (whole.compare(0, prompt_text.size(), prompt_text) == 0) return whole.substr(prompt_text.size());
  return vocab.decode({tokens.begin() + static_cast<long>(prompt_tokens), tokens.end()});
}

// Where the first stop string begins in `text`, or npos.
std::size_t first_stop(const std::string& text, const std::vector<std::string>& stop) {
  std::size_t at = std::string::npos;
  for (const std::string& s : stop) at = std::min(at, text.find(s));
  return at;
}

}  // namespace

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

std::vector<Generation> Generator::generate(const std::vector<std::string>& prompts, const GenerateOptions& o) {
  validate(o);
  const Vocabulary& vocab = vocabs_.target;
  const std::size_t n = prompts.size();
  std::vector<Generation> out(n);
  std::vector<std::vector<int>> tokens(n);  // each prompt's tokens, as kept
  std::vector<std::string> heads(n);        // and their text
  const int context = config().position_limit();
  for (std::size_t i = 0; i < n; ++i) {
    KeptPrompt kept = keep_prompt(prompts[i], o);
    tokens[i] = std::move(kept.tokens);
    heads[i] = std::move(kept.text);
    out[i].warning = std::move(kept.warning);
  }
  // Only a sampled token is final when the hook sees it (beam search shows it candidates).
  const bool streaming = o.stream && o.nbest == 1 && o.beam == 0;
  std::size_t hold = 0;  // text held back while it may still become a stop string
  for (const std::string& s : o.stop) hold = std::max(hold, s.size() - 1);
  std::vector<std::string> emitted(n);  // each prompt's new text streamed so far
  // Streams text[emitted, ready) when the text still begins with what was streamed (decoding a longer
  // output can change its end: a byte-fallback character is U+FFFD until its last byte arrives, so that is
  // held back too), never ending inside a character.
  auto stream_up_to = [&](std::size_t p, const std::string& text, std::size_t ready, bool final) {
    static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
    if (text.compare(0, emitted[p].size(), emitted[p]) != 0) return;
    const std::size_t unfinished = text.rfind(kReplacement);
    if (!final && unfinished != std::string::npos && unfinished + kReplacement.size() == text.size())
      ready = std::min(ready, unfinished);
    while (ready > emitted[p].size() && ready < text.size() &&
           (static_cast<unsigned char>(text[ready]) & 0xC0) == 0x80)
      --ready;
    if (ready <= emitted[p].size()) return;
    o.stream(p, std::string_view(text).substr(emitted[p].size(), ready - emitted[p].size()));
    emitted[p] = text.substr(0, ready);
  };

  for (std::size_t b0 = 0; b0 < n; b0 += static_cast<std::size_t>(o.batch_prompts)) {
    const std::size_t b1 = std::min(n, b0 + static_cast<std::size_t>(o.batch_prompts));
    const std::vector<std::vector<int>> sources(b1 - b0), prefixes(tokens.begin() + static_cast<long>(b0),
                                                                     tokens.begin() + static_cast<long>(b1));
    SearchOptions s;
    s.beam = std::max(o.beam, 1);
    s.nbest = o.nbest;
    s.length_penalty = o.length_penalty;
    s.max_extra_length = o.max_tokens;
    s.cache = o.cache;
    s.guards = o.guards;
    s.prompts = true;
    if (!o.stop.empty() || streaming)
      s.stop_after = [&](int sentence, const std::vector<int>& row) {
        const std::size_t p = b0 + static_cast<std::size_t>(sentence);
        const std::string text = new_text(vocab, heads[p], tokens[p].size(), row);
        const std::size_t cut = first_stop(text, o.stop);
        if (streaming)
          stream_up_to(p, text, cut != std::string::npos ? cut : text.size() - std::min(hold, text.size()), false);
        return cut != std::string::npos;
      };
    const auto results = o.beam == 0 ? sample_search(*decoder_, sources, s, o.sampling, prefixes)
                                     : beam_search(*decoder_, sources, s, prefixes);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::size_t p = b0 + i;
      for (const Hypothesis& h : results[i]) {
        GeneratedText g;
        std::string text = new_text(vocab, heads[p], tokens[p].size(), h.tokens);
        const std::size_t cut = first_stop(text, o.stop);
        if (cut != std::string::npos) text.resize(cut);
        g.end = cut != std::string::npos ? "stop" : h.ended ? "end" : "length";
        if (g.end == "length" && static_cast<int>(h.tokens.size()) >= context &&
            static_cast<int>(h.tokens.size() - tokens[p].size()) < o.max_tokens &&
            out[p].warning.find("stopped at the model's context") == std::string::npos)
          out[p].warning += std::string(out[p].warning.empty() ? "" : "; ") + "stopped at the model's context (" +
                            std::to_string(context) + " positions)";
        g.new_text = std::move(text);
        g.text = heads[p] + g.new_text;
        g.tokens = h.tokens;
        g.new_tokens = static_cast<int>(h.tokens.size() - tokens[p].size());
        g.log_prob = h.log_prob;
        g.score = h.score;
        if (streaming) stream_up_to(p, g.new_text, g.new_text.size(), true);
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
