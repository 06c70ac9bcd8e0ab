// Reading a Hugging Face config.json: typed keys with the family's defaults for absent ones, and refusals of
// values Heptapod cannot express, each naming the file and the key.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "heptapod/core/error.h"
#include "heptapod/model/config.h"

namespace heptapod {

// The JSON object of config text; an Error naming `where` otherwise.
nlohmann::json parse_config_object(const std::string& text, const std::string& where);

// Reads typed keys of a Hugging Face config, with the caller's defaults for the absent ones.
struct ConfigReader {
  const nlohmann::json& j;
  std::string where;

  int integer(const char* key) const {
    require(j.contains(key), where + ": missing key \"" + key + "\"");
    return integer(key, 0);
  }
  int integer(const char* key, int fallback) const {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    require(j[key].is_number_integer(), where + ": \"" + key + "\" must be an integer");
    return j[key].get<int>();
  }
  bool boolean(const char* key, bool fallback) const {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    require(j[key].is_boolean(), where + ": \"" + key + "\" must be true or false");
    return j[key].get<bool>();
  }
  float number(const char* key, float fallback) const {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    require(j[key].is_number(), where + ": \"" + key + "\" must be a number");
    return j[key].get<float>();
  }
  std::string text(const char* key, const std::string& fallback) const {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    require(j[key].is_string(), where + ": \"" + key + "\" must be a string");
    return j[key].get<std::string>();
  }
  // A key whose value must be `expected` for Heptapod to express the model.
  void refuse_unless(const char* key, bool expected, bool fallback, const std::string& why) const {
    require(boolean(key, fallback) == expected, where + ": \"" + key + "\": " + (expected ? "false" : "true") +
                                                    " is not supported (" + why + ")");
  }
};

// The shape keys of Hugging Face's BART family (MarianMT, M2M100, mBART): d_model, each stack's layers, one
// head count and one FFN width for both stacks (differing ones refused), vocab_size (both vocabularies), and
// the dropouts.
void read_bart_shape(const ConfigReader& r, ModelConfig& c);

}  // namespace heptapod
