// Sampling defaults: read from generation_config.json, kept in a model file's metadata.
#include "heptapod/io/generation_defaults.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/io/hf_config.h"

namespace heptapod {

namespace {

using nlohmann::json;

// The keys both forms share, read from `j` with their checks; `known` collects them.
GenerationDefaults read_keys(const json& j, const std::string& where) {
  GenerationDefaults d;
  auto number = [&](const char* key, float low, bool low_open) -> std::optional<float> {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    require(j[key].is_number(), where + ": \"" + key + "\" must be a number");
    const double v = j[key].get<double>();
    require(std::isfinite(v) && (low_open ? v > low : v >= low),
            where + ": \"" + key + "\" must be " + (low_open ? "above " : "at least ") + std::to_string(low));
    return static_cast<float>(v);
  };
  if (j.contains("do_sample") && !j["do_sample"].is_null()) {
    require(j["do_sample"].is_boolean(), where + ": \"do_sample\" must be true or false");
    d.do_sample = j["do_sample"].get<bool>();
  }
  d.temperature = number("temperature", 0.0f, false);
  d.top_p = number("top_p", 0.0f, true);
  if (d.top_p) require(*d.top_p <= 1.0f, where + ": \"top_p\" must be in (0, 1]");
  d.repetition_penalty = number("repetition_penalty", 0.0f, true);
  if (j.contains("top_k") && !j["top_k"].is_null()) {
    require(j["top_k"].is_number_integer() && j["top_k"].get<std::int64_t>() >= 0 &&
                j["top_k"].get<std::int64_t>() < (1LL << 31),
            where + ": \"top_k\" must be a non-negative integer");
    d.top_k = j["top_k"].get<int>();
  }
  return d;
}

}  // namespace

GenerationDefaults generation_defaults_from_hf(const std::string& text, const std::string& where) {
  GenerationDefaults d = read_keys(parse_config_object(text, where), where);
  if (d.do_sample == true) {
    if (!d.temperature) d.temperature = 1.0f;
    if (!d.top_k) d.top_k = 50;
    if (!d.top_p) d.top_p = 1.0f;
  }
  return d;
}

std::string to_json(const GenerationDefaults& d) {
  json j = json::object();
  if (d.do_sample) j["do_sample"] = *d.do_sample;
  if (d.temperature) j["temperature"] = *d.temperature;
  if (d.top_p) j["top_p"] = *d.top_p;
  if (d.repetition_penalty) j["repetition_penalty"] = *d.repetition_penalty;
  if (d.top_k) j["top_k"] = *d.top_k;
  return j.dump();
}

GenerationDefaults generation_defaults_from_json(const std::string& text, const std::string& where) {
  const json j = parse_config_object(text, where);
  for (const auto& item : j.items())
    require(item.key() == "do_sample" || item.key() == "temperature" || item.key() == "top_p" ||
                item.key() == "repetition_penalty" || item.key() == "top_k",
            where + ": unknown generation default \"" + item.key() + "\"");
  return read_keys(j, where);
}

GenerationDefaults read_generation_defaults(const SafetensorsFile& file) {
  const auto it = file.metadata().find(kGenerationMetadata);
  if (it == file.metadata().end()) return {};
  return generation_defaults_from_json(it->second, file.where() + ": metadata \"generation\"");
}

}  // namespace heptapod
