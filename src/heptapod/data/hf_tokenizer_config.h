// The fields of a Hugging Face tokenizer_config.json that Heptapod uses beside tokenizer.json: the special
// tokens it names (bos_token, eos_token, unk_token, pad_token: a string, an AddedToken object with its
// "content", or null) and whether transformers adds a begin or end token (add_bos_token, add_eos_token; absent
// when the file does not say). The rest of the file (chat_template, model_max_length, ...) is not read here.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "heptapod/data/hf_json.h"

namespace heptapod::hf {

struct TokenizerConfig {
  std::optional<std::string> bos_token, eos_token, unk_token, pad_token;
  std::optional<bool> add_bos_token, add_eos_token;
};

// A special token the config names under `key`: a string, or an AddedToken object's "content"; none when the
// key is absent or null; anything else an Error naming the field.
std::optional<std::string> special_token(const JsonNode& config, const char* key);

// The fields of a tokenizer_config.json object; `file` names it in errors.
TokenizerConfig read_tokenizer_config(const nlohmann::json& config, const std::string& file);
// The fields as a JSON object with tokenizer_config.json's keys (read back by read_tokenizer_config).
nlohmann::json to_json(const TokenizerConfig& config);

}  // namespace heptapod::hf
