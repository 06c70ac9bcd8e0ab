// A converted model's sampling defaults: what its generation_config.json says generation should do unless told
// otherwise (sample or not, temperature, top-k, top-p, repetition penalty). They travel in the model file's
// metadata under "generation", as JSON, and `generate` and `serve` start from them.
#pragma once

#include <optional>
#include <string>

#include "heptapod/io/safetensors.h"

namespace heptapod {

inline constexpr const char* kGenerationMetadata = "generation";

struct GenerationDefaults {
  std::optional<bool> do_sample;
  std::optional<float> temperature, top_p, repetition_penalty;
  std::optional<int> top_k;
  bool empty() const { return !do_sample && !temperature && !top_p && !repetition_penalty && !top_k; }
};

// The defaults of a Hugging Face generation_config.json object (its other keys are not sampling's); where it
// samples (do_sample true) the keys it leaves out take transformers' GenerationConfig defaults (temperature 1,
// top_k 50, top_p 1), as they do there. A value of the wrong type or range is an Error naming `where` and the
// key.
GenerationDefaults generation_defaults_from_hf(const std::string& json_text, const std::string& where);

// The metadata form and back; parse refuses unknown keys, naming `where`.
std::string to_json(const GenerationDefaults& defaults);
GenerationDefaults generation_defaults_from_json(const std::string& json_text, const std::string& where);

// A model file's defaults (none when it has no "generation" metadata).
GenerationDefaults read_generation_defaults(const SafetensorsFile& file);

}  // namespace heptapod
