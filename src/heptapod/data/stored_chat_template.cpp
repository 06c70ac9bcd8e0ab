// Chat templates: read from checkpoints and template files, kept in model files' metadata.
#include "heptapod/data/stored_chat_template.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "heptapod/core/error.h"
#include "heptapod/data/hf_json.h"
#include "heptapod/data/hf_tokenizer_config.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"

namespace heptapod {

namespace {

using nlohmann::json;

// The special tokens transformers hands a template by name (its special_tokens_map's single tokens).
constexpr const char* kTokenKeys[] = {"bos_token", "eos_token", "unk_token", "pad_token",
                                      "sep_token", "cls_token", "mask_token"};

// tokenizer_config.json's special tokens (hf_tokenizer_config.h reads each).
std::map<std::string, std::string> special_tokens(const json& config, const std::string& where) {
  const hf::JsonNode root(config, where);
  std::map<std::string, std::string> tokens;
  for (const char* key : kTokenKeys)
    if (std::optional<std::string> token = hf::special_token(root, key)) tokens[key] = std::move(*token);
  return tokens;
}

// tokenizer_config.json's "chat_template": a string, or a list of {"name", "template"} (the "default" one).
std::optional<std::string> config_template(const json& config, const std::string& where) {
  if (!config.contains("chat_template") || config["chat_template"].is_null()) return std::nullopt;
  const json& t = config["chat_template"];
  if (t.is_string()) return t.get<std::string>();
  require(t.is_array(), where + ": \"chat_template\" must be a string or a list of named templates");
  std::vector<std::string> names;
  for (const json& named : t) {
    require(named.is_object() && named.contains("name") && named["name"].is_string() && named.contains("template") &&
                named["template"].is_string(),
            where + ": \"chat_template\": each named template is an object with \"name\" and \"template\" strings");
    if (named["name"] == "default") return named["template"].get<std::string>();
    names.push_back(named["name"].get<std::string>());
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw Error(where + ": \"chat_template\" has no template named \"default\" (it has: " + list + ")");
}

}  // namespace

std::string to_json(const StoredChatTemplate& chat) {
  return json{{"template", chat.source}, {"tokens", chat.tokens}}.dump();
}

StoredChatTemplate chat_template_from_json(const std::string& text, const std::string& where) {
  const json j = parse_config_object(text, where);
  for (const auto& item : j.items())
    require(item.key() == "template" || item.key() == "tokens", where + ": unknown key \"" + item.key() + "\"");
  require(j.contains("template") && j["template"].is_string(), where + ": \"template\" must be a string");
  StoredChatTemplate chat;
  chat.source = j["template"].get<std::string>();
  if (j.contains("tokens")) {
    require(j["tokens"].is_object(), where + ": \"tokens\" must be an object of strings");
    for (const auto& [name, value] : j["tokens"].items()) {
      require(value.is_string(), where + ": tokens." + name + " must be a string");
      chat.tokens[name] = value.get<std::string>();
    }
  }
  return chat;
}

std::optional<StoredChatTemplate> read_chat_template(const SafetensorsFile& file) {
  const auto it = file.metadata().find(kChatTemplateMetadata);
  if (it == file.metadata().end()) return std::nullopt;
  return chat_template_from_json(it->second, file.where() + ": metadata \"chat_template\"");
}

std::optional<StoredChatTemplate> read_checkpoint_chat_template(const std::string& dir) {
  const std::string config_path = dir + "/tokenizer_config.json", jinja_path = dir + "/chat_template.jinja";
  const bool has_config = std::filesystem::is_regular_file(config_path);
  StoredChatTemplate chat;
  std::optional<std::string> source;
  if (has_config) {
    const json config = parse_config_object(read_file(config_path), config_path);
    chat.tokens = special_tokens(config, config_path);
    source = config_template(config, config_path);
  }
  if (std::filesystem::is_regular_file(jinja_path)) source = read_file(jinja_path);
  if (!source) return std::nullopt;
  chat.source = std::move(*source);
  return chat;
}

StoredChatTemplate read_chat_template_file(const std::string& path, const std::optional<StoredChatTemplate>& base) {
  const std::string text = read_file(path);
  const json parsed = json::parse(text, nullptr, false);
  StoredChatTemplate chat;
  if (parsed.is_object()) {  // a tokenizer_config.json
    const std::optional<std::string> source = config_template(parsed, path);
    require(source.has_value(), path + ": a JSON object without \"chat_template\" (give a tokenizer_config.json "
                                       "that has one, or the template's Jinja text)");
    chat.source = *source;
    chat.tokens = special_tokens(parsed, path);
    return chat;
  }
  require(!text.empty(), path + ": the chat template is empty");
  chat.source = text;
  if (base) chat.tokens = base->tokens;
  return chat;
}

}  // namespace heptapod
