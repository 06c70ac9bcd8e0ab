// Conversations checked, rendered by the model's chat template and tokenized.
#include "heptapod/decode/chat_prompt.h"

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A message's content: a string, or text parts joined.
std::string message_content(const json& content, const std::string& where) {
  if (content.is_string()) return content.get<std::string>();
  require(content.is_array(), where + ": must be a string or an array of text parts");
  std::string text;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    require(part.is_object(), at + ": must be an object {\"type\": \"text\", \"text\": ...}");
    require(part.contains("type") && part["type"] == "text",
            at + ".type: only \"text\" parts are supported (this model reads text)");
    require(part.contains("text") && part["text"].is_string(), at + ".text: must be a string");
    text += part["text"].get<std::string>();
  }
  return text;
}

}  // namespace

ordered_json chat_messages(const json& messages, const std::string& where) {
  require(messages.is_array() && !messages.empty(), where + ": must be a non-empty array of messages");
  ordered_json out = ordered_json::array();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    require(m.is_object(), at + ": must be an object with \"role\" and \"content\"");
    for (const auto& [key, value] : m.items())
      require(key == "role" || key == "content" || key == "name" || key == "reasoning_content",
              at + "." + key + ": not supported (a message has role, content, name and reasoning_content)");
    require(m.contains("role"), at + ".role: required");
    require(m["role"].is_string(), at + ".role: must be a string");
    std::string role = m["role"].get<std::string>();
    if (role == "developer") role = "system";
    require(role == "system" || role == "user" || role == "assistant",
            at + ".role: \"" + m["role"].get<std::string>() + "\" is not a role (system, user or assistant)");
    require(m.contains("content") && !m["content"].is_null(), at + ".content: required");
    ordered_json message = {{"role", role}, {"content", message_content(m["content"], at + ".content")}};
    for (const char* key : {"name", "reasoning_content"})
      if (m.contains(key)) {
        require(m[key].is_string(), at + "." + key + ": must be a string");
        message[key] = m[key];
      }
    out.push_back(std::move(message));
  }
  return out;
}

void make_reply_options(GenerateOptions& options) {
  if (options.beam == 0) return;
  options.beam = 0;
  options.sampling.temperature = 0.0f;
}

ChatPrompt::ChatPrompt(const StoredChatTemplate& stored, const Vocabulary& vocabulary, const ModelConfig& config,
                       const std::string& where)
    : stored_(stored), template_(stored.source, where), vocabulary_(vocabulary), config_(config) {
  tokens_ = ordered_json::object();
  for (const auto& [name, text] : stored_.tokens) tokens_[name] = text;
  if (!tokens_.contains("bos_token")) tokens_["bos_token"] = vocabulary_.piece(config_.bos_id);
  if (!tokens_.contains("eos_token")) tokens_["eos_token"] = vocabulary_.piece(config_.eos_id);
}

std::string ChatPrompt::render(const ordered_json& messages, bool add_generation_prompt,
                               const ordered_json& extra) const {
  ordered_json variables = tokens_;
  for (const auto& [name, value] : extra.items()) variables[name] = value;
  variables["messages"] = messages;
  variables["add_generation_prompt"] = add_generation_prompt;
  return template_.render(variables);
}

long ChatPrompt::reply_room(const KeptPrompt& prompt) const {
  return static_cast<long>(config_.position_limit()) - static_cast<long>(prompt.tokens.size()) -
         (config_.prompt_bos ? 1 : 0);
}

KeptPrompt ChatPrompt::prompt(const ordered_json& messages, int max_tokens, const ordered_json& extra) const {
  KeptPrompt kept;
  kept.tokens = vocabulary_.encode(render(messages, true, extra));
  if (config_.prompt_bos && !kept.tokens.empty() && kept.tokens.front() == config_.bos_id)
    kept.tokens.erase(kept.tokens.begin());
  kept.text = vocabulary_.decode(kept.tokens);  // what the outputs' texts begin with, as for any prompt
  require(!kept.tokens.empty() || config_.prompt_bos,
          "chat: the template laid the conversation out as no tokens, and this model's sequences begin with their "
          "text");
  const long length = static_cast<long>(kept.tokens.size()), room = reply_room(kept);
  require(max_tokens <= room, "chat: the conversation is " + std::to_string(length) + " tokens and the reply may be " +
                                  std::to_string(max_tokens) + ", more than this model's context of " +
                                  std::to_string(config_.position_limit()) +
                                  " tokens; shorten the conversation or max_tokens");
  return kept;
}

}  // namespace heptapod
