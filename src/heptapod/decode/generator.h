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

#include "heptapod/decode/chat_prompt.h"
#include "heptapod/decode/generate_options.h"
#include "heptapod/decode/inference_model.h"
#include "heptapod/decode/scoring.h"
#include "heptapod/decode/stream_scoring.h"

namespace heptapod {

class Generator {
 public:
  // Loads the model, its vocabulary and its chat template; a file that does not load, is not a decoder-only
  // model, has no vocabulary or has a template the engine cannot render is an Error naming it.
  explicit Generator(const std::string& model_path, const ModelLoadOptions& options = {});
  Generator(const Generator&) = delete;  // its decoder and chat template refer to its own members
  Generator& operator=(const Generator&) = delete;

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
  // The sampling defaults the model file carries (a converted model's generation_config.json), which
  // apply_generation_defaults lays under a caller's options.
  const GenerationDefaults& generation_defaults() const { return generation_; }
  // The model's chat template over its vocabulary (decode/chat_prompt.h); null when the file has none.
  const ChatPrompt* chat() const { return chat_.get(); }
  // The loaded model, for what decodes with it beside the Generator's own searches (decode/generation_batch.h).
  Transformer<float>& model() { return *model_; }

 private:
  std::shared_ptr<Transformer<float>> model_;  // shared with a server's adapters over it
  ModelVocabularies vocabs_;
  GenerationDefaults generation_;
  std::unique_ptr<ChatPrompt> chat_;
  std::unique_ptr<IncrementalDecoder> decoder_;
};

}  // namespace heptapod
