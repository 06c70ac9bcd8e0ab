// OpenAI's chat completions: request fields, the conversation as a prompt, replies and stream chunks.
#include "heptapod/serve/chat_api.h"

#include <algorithm>

#include "heptapod/decode/chat_prompt.h"
#include "heptapod/serve/log_probs_json.h"

namespace heptapod {

using nlohmann::json;

ChatCall parse_chat_completion(const json& body, const ServerOptions& server) {
  only_known_fields(body, {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "n",
                           "stop", "seed", "stream", "stream_options", "response_format", "top_k",
                           "repetition_penalty", "chat_template_kwargs", "logprobs", "top_logprobs",
                           "frequency_penalty", "presence_penalty", "logit_bias", "user"});
  // The fields chat shares with completions read as completions read them.
  json shared = json::object();
  for (const char* name : {"model", "temperature", "top_p", "n", "stop", "seed", "stream", "stream_options", "top_k",
                           "repetition_penalty", "frequency_penalty", "presence_penalty", "logit_bias", "user"})
    if (body.contains(name)) shared[name] = body[name];
  shared["prompt"] = "";
  ChatCall chat;
  chat.generation = parse_completion(shared, server);
  GenerateOptions& o = chat.generation.options;
  const RequestLimits& l = server.limits;
  if (has_field(body, "max_tokens") && has_field(body, "max_completion_tokens"))
    throw field_error("max_completion_tokens", "give max_tokens or max_completion_tokens, not both");
  const char* length_field = has_field(body, "max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
  chat.max_tokens_given = has_field(body, length_field);
  o.max_tokens = int_field(body, length_field, l.max_new_tokens, 1, l.max_new_tokens);
  // logprobs: true gives each reply token's log-probability, top_logprobs (0-20) the most likely beside it.
  const bool logprobs = bool_field(body, "logprobs", false);
  const int top = int_field(body, "top_logprobs", 0, 0, 20);
  if (has_field(body, "top_logprobs") && !logprobs) throw field_error("top_logprobs", "only with logprobs: true");
  o.logprobs = logprobs ? top : -1;
  if (!has_field(body, "messages")) throw field_error("messages", "required: an array of messages");
  try {
    chat.messages = chat_messages(body["messages"], "messages");
  } catch (const Error& e) {
    throw HttpError(400, std::string("Invalid request: ") + e.what(), 0, "messages");
  }
  if (has_field(body, "response_format")) {
    const json& format = body["response_format"];
    if (!format.is_object() || !format.contains("type") || format["type"] != "text")
      throw field_error("response_format", "only {\"type\": \"text\"} is supported");
  }
  chat.variables = nlohmann::ordered_json::object();
  if (has_field(body, "chat_template_kwargs")) {
    if (!body["chat_template_kwargs"].is_object())
      throw field_error("chat_template_kwargs", "must be an object of template variables");
    for (const auto& [name, value] : body["chat_template_kwargs"].items()) {
      if (name == "messages" || name == "add_generation_prompt")
        throw field_error("chat_template_kwargs", "\"" + name + "\" is the server's to set");
      chat.variables[name] = value;
    }
  }
  return chat;
}

KeptPrompt chat_prompt(ChatCall& call, const Generator& generator, const std::string& model) {
  const ChatPrompt* chat = generator.chat();
  if (chat == nullptr)
    throw HttpError(400, "The model " + model + " has no chat template; use /v1/completions, or give the model one "
                         "(heptapod convert MODEL --chat-template FILE)", 0, "messages");
  GenerateOptions& o = call.generation.options;
  KeptPrompt prompt;
  try {
    prompt = chat->prompt(call.messages, call.max_tokens_given ? o.max_tokens : 1, call.variables);
  } catch (const Error& e) {
    throw HttpError(400, std::string("Invalid request: ") + e.what(), 0, "messages");
  }
  const auto length = static_cast<int>(prompt.tokens.size());
  if (length > o.max_prompt_tokens)
    throw field_error("messages", "a conversation of " + std::to_string(length) + " tokens; this server takes at most " +
                                      std::to_string(o.max_prompt_tokens));
  // The reply may fill what the context leaves.
  if (!call.max_tokens_given) o.max_tokens = static_cast<int>(std::min<long>(o.max_tokens, chat->reply_room(prompt)));
  return prompt;
}

json chat_completion_reply(const ChatCall& call, const std::vector<KeptPrompt>& prompts,
                           const std::vector<Generation>& out, const std::string& model, const CompletionId& id,
                           const Vocabulary& vocab) {
  json choices = json::array();
  for (std::size_t s = 0; s < out.at(0).outputs.size(); ++s) {
    const GeneratedText& g = out[0].outputs[s];
    choices.push_back(
        {{"index", s},
         {"message", {{"role", "assistant"}, {"content", g.new_text}}},
         {"logprobs", call.generation.options.logprobs >= 0 ? chat_logprobs(g.token_log_probs, vocab) : json(nullptr)},
         {"finish_reason", finish_reason(g)}});
  }
  return {{"id", id.id},       {"object", "chat.completion"}, {"created", id.created},
          {"model", model},    {"choices", choices},          {"usage", completion_usage(prompts, out)}};
}

json chat_chunk(const CompletionId& id, const std::string& model, std::size_t index, const json& delta,
                const std::string& finish_reason, const json& logprobs) {
  json choice = {{"index", index}, {"delta", delta}, {"logprobs", logprobs}, {"finish_reason", nullptr}};
  if (!finish_reason.empty()) choice["finish_reason"] = finish_reason;
  return {{"id", id.id},    {"object", "chat.completion.chunk"}, {"created", id.created},
          {"model", model}, {"choices", json::array({choice})}};
}

}  // namespace heptapod
