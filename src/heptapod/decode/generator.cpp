// Generator: prompts tokenized and kept within bounds, prefilled and continued by sampling or beam search,
// outputs cut at stop strings and streamed as they are made.
#include "heptapod/decode/generator.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/decode/generation_batch.h"

namespace heptapod {

Generator::Generator(const std::string& model_path, const ModelLoadOptions& options) {
  InferenceModel loaded = load_for_inference(model_path, options, Architecture::DecoderOnly, "generation");
  model_ = std::move(loaded.model);
  vocabs_ = std::move(loaded.vocabs);
  generation_ = loaded.generation;
  if (loaded.chat_template)
    chat_ = std::make_unique<ChatPrompt>(*loaded.chat_template, vocabs_.target, config(), model_path + ": chat template");
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
  std::vector<KeptPrompt> kept;
  kept.reserve(prompts.size());
  for (const std::string& prompt : prompts) kept.push_back(keep_prompt(prompt, o));
  return generate_kept(kept, o);
}

std::vector<Generation> Generator::generate_kept(const std::vector<KeptPrompt>& prompts, const GenerateOptions& o) {
  validate(o);
  const std::size_t n = prompts.size();
  std::vector<Generation> out(n);
  for (const KeptPrompt& prompt : prompts)
    require(static_cast<int>(prompt.tokens.size()) <= config().max_target_tokens(),
            "generate: a prompt of " + std::to_string(prompt.tokens.size()) + " tokens leaves no room within the " +
                "model's context of " + std::to_string(config().position_limit()) + " positions");
  // Only a sampled token is final when it is taken (beam search shows it candidates).
  const bool streaming = o.stream && o.nbest == 1 && o.beam == 0;
  const auto batch_prompts = static_cast<std::size_t>(o.batch_prompts);
  // Each batch of prompts starts afresh, sized for its own outputs.
  GenerationBatch batch(*decoder_, vocabs_.target,
                        {o.batch_prompts * GenerationBatch::rows_of(o), 0, o.cache});
  for (std::size_t b0 = 0; b0 < n; b0 += batch_prompts) {
    for (std::size_t p = b0; p < std::min(n, b0 + batch_prompts); ++p) {
      GenerationJob job;
      job.prompt = prompts[p];
      job.options = o;
      job.options.stream = nullptr;
      if (streaming)
        job.piece = [&o, p](int, std::string_view piece, std::span<const TokenLogProb> records) {
          o.stream(p, piece, records);
        };
      job.done = [&out, p](std::vector<GeneratedText> outputs, std::string warning) {
        // Samples best score first (equal scores in draw order), as a beam's are.
        std::stable_sort(outputs.begin(), outputs.end(),
                         [](const GeneratedText& a, const GeneratedText& b) { return a.score > b.score; });
        out[p].outputs = std::move(outputs);
        out[p].warning = std::move(warning);
      };
      batch.add(std::move(job));
    }
    while (!batch.empty()) batch.step();
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
