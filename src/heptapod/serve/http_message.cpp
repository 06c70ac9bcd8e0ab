// Header lookup of a request read by the HTTP front end; JSON replies.
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

HttpResponse json_response(int status, const nlohmann::json& body) {
  return {status, "application/json", body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), {}};
}

HttpResponse error_response(int status, const std::string& message) {
  return json_response(status, {{"error", message}});
}

}  // namespace heptapod
