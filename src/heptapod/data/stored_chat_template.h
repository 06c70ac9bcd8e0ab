// A model's chat template as it travels: the Jinja text that lays a conversation out as the model's prompt,
// and the special-token strings it refers to (bos_token, eos_token, ...: what transformers passes it). It comes
// from a Hugging Face checkpoint (chat_template.jinja, or tokenizer_config.json's "chat_template") or a file
// given to `heptapod convert --chat-template`, and is kept in the model file's metadata under
// "chat_template" as JSON. Rendering is chat_template.h's; this file only reads, checks and writes the text.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "heptapod/io/safetensors.h"

namespace heptapod {

inline constexpr const char* kChatTemplateMetadata = "chat_template";

struct StoredChatTemplate {
  std::string source;                         // the Jinja template
  std::map<std::string, std::string> tokens;  // template variable ("bos_token", ...) -> the token's text
};

// The metadata form and back; parse refuses unknown keys and wrong types, naming `where`.
std::string to_json(const StoredChatTemplate& chat);
StoredChatTemplate chat_template_from_json(const std::string& json_text, const std::string& where);

// A model file's template (none when its metadata has no "chat_template").
std::optional<StoredChatTemplate> read_chat_template(const SafetensorsFile& file);

// A Hugging Face checkpoint directory's template: chat_template.jinja where the checkpoint ships one, else
// tokenizer_config.json's "chat_template" (a string, or a list of named templates, of which "default" is
// taken); the special-token strings from tokenizer_config.json. None when the directory has neither.
std::optional<StoredChatTemplate> read_checkpoint_chat_template(const std::string& dir);

// The template in `path` for `convert --chat-template`: a tokenizer_config.json (a JSON object with
// "chat_template", whose special tokens come along), or a Jinja file whose text is the template, the special
// tokens kept from `base` (the model's own, when it had one).
StoredChatTemplate read_chat_template_file(const std::string& path, const std::optional<StoredChatTemplate>& base);

}  // namespace heptapod
