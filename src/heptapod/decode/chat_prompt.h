// A conversation as a language model reads it: the messages checked (chat_messages), laid out by the model's
// chat template (data/chat_template.h) and tokenized, as `heptapod chat`, the server's /v1/chat/completions and
// the Python module all do it.
//
//   heptapod::Generator generator("instruct.htp");
//   const heptapod::ChatPrompt& chat = *generator.chat();      // null when the model has no template
//   auto messages = heptapod::chat_messages(json::parse(R"([{"role":"user","content":"Hi"}])"), "messages");
//   heptapod::KeptPrompt prompt = chat.prompt(messages, generator.config(), 100);
//   auto out = generator.generate_kept({prompt}, options);
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "heptapod/data/chat_template.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/decode/generate_options.h"

namespace heptapod {

// OpenAI's messages checked and put as a template reads them: an array of objects, each with "role"
// ("system", "user" or "assistant"; "developer" is read as "system") and "content" (a string, or an array of
// {"type": "text", "text"} parts, joined); "name" and "reasoning_content" (a string) pass through; anything
// else is an Error naming the field ("messages[2].role: ...", `where` first).
nlohmann::ordered_json chat_messages(const nlohmann::json& messages, const std::string& where);

// A reply is sampled, one row per choice, as OpenAI's API and the chat front ends stream it: where a model's
// generation defaults chose greedy search (do_sample false: beam 1), the same argmax by sampling at temperature 0.
void make_reply_options(GenerateOptions& options);

class ChatPrompt {
 public:
  // Parses the template: one the engine cannot render is an Error naming `where`, the line and the construct.
  // The special-token strings the file kept are the template's variables; bos_token and eos_token default to
  // the vocabulary's start and end pieces.
  ChatPrompt(const StoredChatTemplate& stored, const Vocabulary& vocabulary, const ModelConfig& config,
             const std::string& where);

  // The template's text for `messages` (chat_messages'), with add_generation_prompt, and `extra` variables
  // (e.g. enable_thinking) over the special tokens. raise_exception's message is an Error.
  std::string render(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                     const nlohmann::ordered_json& extra = nlohmann::ordered_json::object()) const;
  // The prompt a reply continues: the rendering with add_generation_prompt, tokenized as it stands (the
  // special tokens it writes are read as the tokens they name); where the model's sequences begin with the
  // start token and the rendering writes it first, the token is the one generation feeds first, not a second.
  // A conversation with no room for `max_tokens` new tokens within the model's context is an Error saying
  // both lengths; so is an empty prompt for a model that needs one.
  KeptPrompt prompt(const nlohmann::ordered_json& messages, int max_tokens,
                    const nlohmann::ordered_json& extra = nlohmann::ordered_json::object()) const;

  // New tokens `prompt` leaves room for within the model's context (the start token fed first, where the
  // model's sequences begin with one).
  long reply_room(const KeptPrompt& prompt) const;

  const StoredChatTemplate& stored() const { return stored_; }

 private:
  StoredChatTemplate stored_;
  ChatTemplate template_;
  const Vocabulary& vocabulary_;
  const ModelConfig& config_;
  nlohmann::ordered_json tokens_;  // the special-token variables
};

}  // namespace heptapod
