// Reading and writing the tokenizer_config.json fields Heptapod keeps.
#include "heptapod/data/hf_tokenizer_config.h"

#include "heptapod/data/hf_json.h"

namespace heptapod::hf {

namespace {

std::optional<bool> flag(const JsonNode& config, const char* key) {
  if (!config.has(key)) return std::nullopt;
  return config.boolean(key, false);
}

}  // namespace

std::optional<std::string> special_token(const JsonNode& config, const char* key) {
  if (!config.has(key)) return std::nullopt;
  const JsonNode value = config.child(key);
  if (value.json().is_string()) return value.json().get<std::string>();
  if (value.json().is_object()) return value.text("content");
  value.fail("must be a token (a string, or an object with its \"content\")");
}

TokenizerConfig read_tokenizer_config(const nlohmann::json& config, const std::string& file) {
  const JsonNode root(config, file);
  return {special_token(root, "bos_token"), special_token(root, "eos_token"), special_token(root, "unk_token"),
          special_token(root, "pad_token"),
          flag(root, "add_bos_token"), flag(root, "add_eos_token")};
}

nlohmann::json to_json(const TokenizerConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  const auto put = [&](const char* key, const auto& value) {
    if (value) j[key] = *value;
  };
  put("bos_token", c.bos_token);
  put("eos_token", c.eos_token);
  put("unk_token", c.unk_token);
  put("pad_token", c.pad_token);
  put("add_bos_token", c.add_bos_token);
  put("add_eos_token", c.add_eos_token);
  return j;
}

}  // namespace heptapod::hf
