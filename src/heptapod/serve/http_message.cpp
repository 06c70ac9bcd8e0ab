// Header lookup of a request read by the HTTP front end.
#include "heptapod/serve/http_message.h"

#include <cctype>

namespace heptapod {

std::string HttpRequest::header(std::string_view name) const {
  auto same = [&](const std::string& key) {
    if (key.size() != name.size()) return false;
    for (std::size_t i = 0; i < key.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(key[i])) != std::tolower(static_cast<unsigned char>(name[i]))) return false;
    return true;
  };
  for (const auto& [key, value] : headers)
    if (same(key)) return value;
  return "";
}

}  // namespace heptapod
