// OpenAI's chat completions over one request model: POST /v1/chat/completions parsed into a ChatCall checked
// against the server's limits, the conversation laid out by the model's chat template (decode/chat_prompt.h)
// as the prompt its reply continues, and the reply's shapes, whole ("chat.completion") or as server-sent
// events ("chat.completion.chunk" deltas). The generation itself is the completions' (generation_api.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "heptapod/serve/generation_api.h"

namespace heptapod {

struct ChatCall {
  GenerationCall generation;           // prompts filled in by chat_prompt
  nlohmann::ordered_json messages;     // decode/chat_prompt.h's chat_messages
  nlohmann::ordered_json variables;    // chat_template_kwargs: extra template variables (enable_thinking, ...)
  bool max_tokens_given = false;       // else the reply may fill the context, up to the server's limit
};

// POST /v1/chat/completions: model, messages (required), max_tokens / max_completion_tokens (the server's
// max_new_tokens and the room the context leaves), temperature (1), top_p (1), n (1), stop, seed, stream,
// stream_options.include_usage, response_format {"type": "text"}, top_k and repetition_penalty (extensions),
// chat_template_kwargs (an object of template variables), logprobs (false) with top_logprobs (0 to 20, only with
// logprobs true; GenerateOptions::logprobs carries it); frequency_penalty, presence_penalty, logit_bias at
// their neutral values; user. Anything else is a 400 naming it (tools among them: this server calls none).
ChatCall parse_chat_completion(const nlohmann::json& body, const ServerOptions& server);

// The conversation as the one prompt of the call, rendered and tokenized by `generator`'s chat template: a 400
// naming "messages" for a model without one, a template's raise_exception, or a conversation with no room for
// its reply within the context (OpenAI's context-length message), or naming "max_tokens" past the limit.
KeptPrompt chat_prompt(ChatCall& call, const Generator& generator, const std::string& model);

// OpenAI's chat.completion reply: one choice per sample, message {role "assistant", content}, and with
// logprobs the choice's (serve/log_probs_json.h's chat_logprobs; the vocabulary names the tokens).
nlohmann::json chat_completion_reply(const ChatCall& call, const std::vector<KeptPrompt>& prompts,
                                     const std::vector<Generation>& out, const std::string& model,
                                     const CompletionId& id, const Vocabulary& vocab);
// One streamed chat.completion.chunk of choice `index`: `delta` as given, its logprobs (null without), and
// finish_reason when it ends ("" while it goes on).
nlohmann::json chat_chunk(const CompletionId& id, const std::string& model, std::size_t index,
                          const nlohmann::json& delta, const std::string& finish_reason,
                          const nlohmann::json& logprobs = nullptr);

}  // namespace heptapod
