// The generation APIs over one request model: OpenAI's POST /v1/completions (so its clients work unchanged)
// and the native POST /v1/generate (every option of `heptapod generate`). Each parses a body into a
// GenerationCall checked against the server's limits, and turns the call's generations into its reply, whole
// or as server-sent events.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "heptapod/decode/generator.h"
#include "heptapod/serve/request_body.h"
#include "heptapod/serve/server_options.h"

namespace heptapod {

// One generation request, whichever API it came in through.
struct GenerationCall {
  std::string model;                              // as sent; empty: the server's only language model
  TextOrTokens prompts;                           // texts, or (OpenAI's) token ids
  GenerateOptions options;
  bool stream = false;
  bool include_usage = false;                     // OpenAI: stream_options.include_usage
  bool echo = false;                              // OpenAI: choices begin with their prompt
  std::chrono::milliseconds timeout{0};
};

// The identity of one completion: OpenAI's id (`prefix`, "cmpl-" or "chatcmpl-", and 24 hex digits) and
// creation time.
struct CompletionId {
  std::string id;
  std::int64_t created = 0;
};
CompletionId new_completion_id(const std::string& prefix = "cmpl-");

// POST /v1/completions: model, prompt (string, array of strings, array of ids, array of arrays of ids),
// max_tokens (16), temperature (1), top_p (1), n (1), stop, seed (absent: a random one), stream,
// stream_options, echo, top_k (0), repetition_penalty (1), logprobs (null, or 0 to 5 most likely tokens
// besides the one taken; not with echo, whose prompt tokens are not scored: a 400 naming logprobs); best_of,
// frequency_penalty, presence_penalty, logit_bias, suffix and user at their neutral values only. Anything
// else is a 400 naming it.
GenerationCall parse_completion(const nlohmann::json& body, const ServerOptions& server);
// POST /v1/generate: model, prompt (string or array), max_tokens, beam, nbest, length_penalty, temperature,
// top_k, top_p, seed, repetition_penalty, no_repeat_ngram, stop, stream, timeout_ms; `heptapod generate`'s
// defaults.
GenerationCall parse_generate(const nlohmann::json& body, const ServerOptions& server);

// The call's prompts as the model reads them. OpenAI's API (strict): a prompt beyond the server's
// max_prompt_tokens, or whose tokens and max_tokens pass the model's context, is a 400 naming "prompt" or
// "max_tokens"; token ids must be ordinary tokens of the vocabulary. The native API keeps a long prompt's
// last tokens, with a warning, as `heptapod generate` does.
std::vector<KeptPrompt> keep_prompts(const GenerationCall& call, const Generator& generator, bool strict);

// OpenAI's usage object of a finished call.
nlohmann::json completion_usage(const std::vector<KeptPrompt>& prompts, const std::vector<Generation>& out);
// OpenAI's text_completion reply (choice index = prompt * n + sample, samples in draw order); with logprobs,
// each choice's logprobs (serve/log_probs_json.h's completion_logprobs; the vocabulary names the tokens).
nlohmann::json completion_reply(const GenerationCall& call, const std::vector<KeptPrompt>& prompts,
                                const std::vector<Generation>& out, const std::string& model, const CompletionId& id,
                                const Vocabulary& vocab);
// One streamed text_completion chunk: `text` of choice `index`, its logprobs (null without), with its
// finish_reason when it ends ("" while it goes on).
nlohmann::json completion_chunk(const CompletionId& id, const std::string& model, std::size_t index,
                                const std::string& text, const std::string& finish_reason,
                                const nlohmann::json& logprobs = nullptr);
// OpenAI's finish_reason of an output: "stop" (the end token or a stop string) or "length".
std::string finish_reason(const GeneratedText& g);

// The native reply: {"model", "generations": [{"outputs": [{"text", "new_text", "new_tokens", "log_prob",
// "score", "end"}], "warning"}], "usage"}; a sampled prompt's outputs ranked best first, as the Generator
// ranks them.
nlohmann::json generate_reply(const std::vector<KeptPrompt>& prompts, std::vector<Generation> out,
                              const std::string& model);

// "data: <json>\n\n", one server-sent event.
std::string sse_event(const nlohmann::json& data);

}  // namespace heptapod
