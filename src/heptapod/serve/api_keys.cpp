// Reading and validating an API key file.
#include "heptapod/serve/api_keys.h"

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"

namespace heptapod {

std::set<std::string> load_api_keys(const std::string& path) {
  const std::vector<std::string> lines = read_lines(path);
  std::set<std::string> keys;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string key = lines[i];
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t' || key.back() == '\r')) key.pop_back();
    if (key.empty() || key[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(i + 1) + ": ";
    require(key.size() >= 8 && key.size() <= 256, where + "an API key has 8-256 characters");
    for (char c : key)
      require(c > ' ' && c < 127, where + "an API key is printable ASCII without spaces");
    keys.insert(key);
  }
  require(!keys.empty(), path + ": no API key in the file");
  return keys;
}

}  // namespace heptapod
