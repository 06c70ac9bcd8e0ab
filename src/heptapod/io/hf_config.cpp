// Hugging Face config.json as a JSON object.
#include "heptapod/io/hf_config.h"

#include "heptapod/core/error.h"

namespace heptapod {

nlohmann::json parse_config_object(const std::string& text, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": not a JSON object");
  return j;
}

}  // namespace heptapod
