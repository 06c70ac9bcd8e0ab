// The Generator, the language-model front end (beside Translator): prompts in, continued text out; shared by
// `heptapod generate`, the Python module and any program that links the library. It loads a decoder-only
// model file (which carries its vocabulary), feeds every prompt in one batched pass (prefill), then samples
// (the default) or searches, each prompt's output ending at the end token, a stop string or max_tokens.
//
//   heptapod::Generator generator("lm.htp");
//   heptapod::GenerateOptions options;  // sampling: temperature 0.8, top-k 40, top-p 0.95, seed 1
//   auto out = generator.generate({"In the beginning"}, options);
//   std::cout << out[0].outputs[0].text << "\n";
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/inference_model.h"
#include "heptapod/decode/sampling_search.h"
#include "heptapod/decode/scoring.h"
#include "heptapod/decode/stream_scoring.h"

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
  // Called with each piece of an output's new text as soon as it is final (sampling, one output per prompt;
  // temperature 0 is greedy): the prompt's index and the piece. The pieces add up to the output's new text.
  std::function<void(std::size_t prompt, std::string_view piece)> stream;
};

struct GeneratedText {
  std::string text;          // the prompt and the new text
  std::string new_text;      // the new text alone
  std::vector<int> tokens;   // the prompt's tokens (as kept) and the new ones, without bos/eos
  int new_tokens = 0;
  float log_prob = 0;        // of the new tokens (the end token included when it ended the output)
  float score = 0;           // log_prob / lp(|new|) with the length penalty; log_prob without
  std::string end;           // "end" (the end token), "stop" (a stop string) or "length" (max_tokens)
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

class Generator {
 public:
  // Loads the model and its vocabulary; a file that does not load, is not a decoder-only model or has no
  // vocabulary is an Error naming it.
  explicit Generator(const std::string& model_path, const ModelLoadOptions& options = {});

  std::vector<Generation> generate(const std::vector<std::string>& prompts, const GenerateOptions& options);
  // The same for prompts already kept (keep_prompt), e.g. a server's that checked their length itself.
  std::vector<Generation> generate_kept(const std::vector<KeptPrompt>& prompts, const GenerateOptions& options);
  KeptPrompt keep_prompt(const std::string& prompt, const GenerateOptions& options) const;
  // Each text's log-probability as a document (start token, its tokens, end token: what training reads),
  // token by token, end token included.
  std::vector<SentenceScore> score(const std::vector<std::string>& texts, int batch_tokens = 4096);
  // The texts as documents end to end in one token stream, scored as `options` says (decode/stream_scoring.h:
  // segments with Transformer-XL's memory, fixed blocks, or a sliding window): each text's score counts its
  // tokens and end token given what the mode lets them see of the stream before them.
  std::vector<SentenceScore> score_stream(const std::vector<std::string>& texts, const StreamScoring& options);

  const ModelConfig& config() const { return model_->config(); }
  const Vocabulary& vocabulary() const { return vocabs_.target; }
  const InferencePrecision& precision() const { return model_->precision(); }
  // The loaded model, for what decodes with it beside the Generator's own searches (decode/generation_batch.h).
  Transformer<float>& model() { return *model_; }

 private:
  std::unique_ptr<Transformer<float>> model_;
  ModelVocabularies vocabs_;
  std::unique_ptr<IncrementalDecoder> decoder_;
};

// Throws Error naming the first option out of range.
void validate(const GenerateOptions& options);

// The search a generation runs: options.beam (at least 1) wide, the prompts prefilled, max_tokens counted from
// their end.
SearchOptions search_options(const GenerateOptions& options);

// A finished hypothesis as output (`text` left for the caller: the prompt's text and new_text): its new text
// (cut at a stop string when `stopped`), tokens, scores and why it ended.
GeneratedText generated_text(const Hypothesis& h, std::size_t prompt_tokens, std::string new_text, bool stopped);
// Notes in `warning` (once) that an output which ended by length stopped at the model's context
// (`context` positions) before max_tokens.
void warn_at_context(const GeneratedText& g, int context, int max_tokens, std::string& warning);

}  // namespace heptapod
