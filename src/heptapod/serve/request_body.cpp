// Request bodies to JSON, and the typed field reads every endpoint shares.
#include "heptapod/serve/request_body.h"

#include <cmath>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "heptapod/data/utf8.h"

namespace heptapod {

HttpError field_error(const std::string& name, const std::string& why) {
  return HttpError(400, "Invalid request: field " + name + ": " + why, 0, name);
}

void only_known_fields(const nlohmann::json& body, const std::set<std::string>& known) {
  for (const auto& [name, value] : body.items())
    if (!known.count(name)) throw HttpError(400, "Unrecognized request argument supplied: " + name, 0, name);
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string url_decode(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      const int hi = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int lo = hi >= 0 ? hex_digit(text[i + 2]) : -1;
      if (lo < 0) throw HttpError(400, "Invalid request: malformed %-escape in the form body at byte " + std::to_string(i));
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Whether the value is a number given as a string, as forms give them; parses it.
std::optional<double> number_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

const nlohmann::json* find(const nlohmann::json& body, const std::string& name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

nlohmann::json form_fields(const std::multimap<std::string, std::string>& fields) {
  nlohmann::json body = nlohmann::json::object();
  for (const auto& [name, value] : fields) {
    if (!body.contains(name)) {
      body[name] = value;
    } else {
      if (!body[name].is_array()) body[name] = nlohmann::json::array({body[name]});
      body[name].push_back(value);
    }
  }
  return body;
}

// `text` in ASCII lower case: a media type, a parameter or header name.
std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The value of parameter `name` of a header value like `form-data; name="q"` or a Content-Type's boundary,
// unquoted (a backslash escapes the next character in a quoted value); nullopt when absent.
std::optional<std::string> header_parameter(std::string_view value, std::string_view name) {
  std::size_t at = value.find(';');
  while (at != std::string_view::npos) {
    std::size_t start = at + 1;
    while (start < value.size() && (value[start] == ' ' || value[start] == '\t')) ++start;
    const std::size_t eq = value.find('=', start), next = value.find(';', start);
    if (eq == std::string_view::npos) return std::nullopt;
    if (next < eq) {  // a parameter without a value
      at = next;
      continue;
    }
    const std::string key = ascii_lower(value.substr(start, eq - start));
    std::string parsed;
    std::size_t i = eq + 1;
    if (i < value.size() && value[i] == '"') {
      for (++i; i < value.size() && value[i] != '"'; ++i) parsed += value[i] == '\\' && i + 1 < value.size() ? value[++i] : value[i];
      ++i;
    } else {
      for (; i < value.size() && value[i] != ';'; ++i) parsed += value[i];
      while (!parsed.empty() && (parsed.back() == ' ' || parsed.back() == '\t')) parsed.pop_back();
    }
    if (key == name) return parsed;
    at = value.find(';', i);
  }
  return std::nullopt;
}

}  // namespace

std::multimap<std::string, std::string> decode_form(const std::string& body) {
  std::multimap<std::string, std::string> fields;
  std::size_t at = 0;
  while (at <= body.size()) {
    std::size_t end = body.find('&', at);
    if (end == std::string::npos) end = body.size();
    const std::string item = body.substr(at, end - at);
    if (!item.empty()) {
      const std::size_t eq = item.find('=');
      fields.emplace(url_decode(item.substr(0, eq)), eq == std::string::npos ? "" : url_decode(item.substr(eq + 1)));
    }
    at = end + 1;
  }
  return fields;
}

std::multimap<std::string, std::string> decode_multipart(std::string_view body, std::string_view content_type) {
  const HttpError malformed(400, "Invalid request: malformed multipart body");
  const std::optional<std::string> boundary = header_parameter(content_type, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > 200) throw malformed;
  const std::string delimiter = "--" + *boundary, next_delimiter = "\r\n" + delimiter;
  std::size_t at = body.starts_with(delimiter) ? 0 : body.find(next_delimiter);
  if (at == std::string_view::npos) throw malformed;
  if (at > 0) at += 2;  // the preamble's line break
  std::multimap<std::string, std::string> fields;
  for (;;) {
    at += delimiter.size();
    if (body.substr(at, 2) == "--") {  // the close delimiter, after one part at least
      if (fields.empty()) throw malformed;
      return fields;
    }
    while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) ++at;  // transport padding
    if (body.substr(at, 2) != "\r\n") throw malformed;
    const std::size_t headers_end = body.find("\r\n\r\n", at);
    if (headers_end == std::string_view::npos || body.find(next_delimiter, at) < headers_end) throw malformed;
    std::optional<std::string> name;
    for (std::size_t line = at + 2; line < headers_end + 2;) {
      const std::size_t end = body.find("\r\n", line);
      const std::string_view header = body.substr(line, end - line);
      const std::size_t colon = header.find(':');
      const std::string key = ascii_lower(header.substr(0, colon));
      if (colon != std::string_view::npos && key == "content-disposition") name = header_parameter(header.substr(colon + 1), "name");
      line = end + 2;
    }
    if (!name) throw HttpError(400, "Invalid request: a multipart part has no name");
    const std::size_t content = headers_end + 4, end = body.find(next_delimiter, content);
    if (end == std::string_view::npos) throw malformed;
    fields.emplace(*name, std::string(body.substr(content, end - content)));
    at = end + 2;
  }
}

std::string media_type(std::string_view content_type) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  return ascii_lower(type);
}

nlohmann::json parse_body(const std::string& body, const std::string& content_type) {
  const std::string type = media_type(content_type);
  if (type == "application/x-www-form-urlencoded") return form_fields(decode_form(body));
  if (type == "multipart/form-data") return form_fields(decode_multipart(body, content_type));
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    throw HttpError(400, std::string("Invalid request: malformed JSON body: ") + e.what());
  }
  if (!parsed.is_object()) throw HttpError(400, "Invalid request: the JSON body must be an object");
  return parsed;
}

std::optional<std::string> string_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = find(body, name);
  if (!v) return std::nullopt;
  if (!v->is_string()) throw field_error(name, "must be a string");
  const std::string& s = v->get_ref<const std::string&>();
  if (find_invalid_utf8(s) != std::string::npos) throw field_error(name, "invalid UTF-8");
  return s;
}

double number_field(const nlohmann::json& body, const std::string& name, double fallback, double min, double max) {
  const nlohmann::json* v = find(body, name);
  if (!v) return fallback;
  const std::optional<double> d = number_of(*v);
  if (!d) throw field_error(name, "must be a number");
  if (*d < min || *d > max)
    throw field_error(name, std::to_string(*d) + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return *d;
}

std::optional<std::int64_t> int64_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = find(body, name);
  if (!v) return std::nullopt;
  if (v->is_number_unsigned() && v->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->get<std::uint64_t>());
  if (v->is_number_integer()) return v->get<std::int64_t>();
  throw field_error(name, "must be an integer");
}

int int_field(const nlohmann::json& body, const std::string& name, int fallback, int min, int max) {
  const nlohmann::json* v = find(body, name);
  if (!v) return fallback;
  const std::optional<double> d = number_of(*v);
  if (!d || *d != std::floor(*d)) throw field_error(name, "must be an integer");
  if (*d < min || *d > max)
    throw field_error(name, std::to_string(static_cast<long long>(*d)) + " is outside [" + std::to_string(min) + ", " +
                              std::to_string(max) + "]");
  return static_cast<int>(*d);
}

bool has_field(const nlohmann::json& body, const std::string& name) { return find(body, name) != nullptr; }

std::chrono::milliseconds timeout_field(const nlohmann::json& body, std::chrono::milliseconds limit) {
  const int most = static_cast<int>(limit.count());
  return std::chrono::milliseconds(int_field(body, "timeout_ms", most, 1, most));
}

bool bool_field(const nlohmann::json& body, const std::string& name, bool fallback) {
  const nlohmann::json* v = find(body, name);
  if (!v) return fallback;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s == "true" || s == "1" || s == "on") return true;
    if (s == "false" || s == "0" || s == "off" || s.empty()) return false;
  }
  if (v->is_number_integer() && (v->get<long long>() == 0 || v->get<long long>() == 1)) return v->get<long long>() == 1;
  throw field_error(name, "must be true or false");
}

std::optional<TextField> text_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = find(body, name);
  if (!v) return std::nullopt;
  TextField field;
  auto take = [&](const nlohmann::json& item, const std::string& where) {
    if (!item.is_string()) throw field_error(where, "must be a string");
    const std::string& s = item.get_ref<const std::string&>();
    if (find_invalid_utf8(s) != std::string::npos) throw field_error(where, "invalid UTF-8");
    field.texts.push_back(s);
  };
  if (v->is_array()) {
    field.is_array = true;
    for (std::size_t i = 0; i < v->size(); ++i) take((*v)[i], name + "[" + std::to_string(i) + "]");
  } else {
    take(*v, name);
  }
  return field;
}

TextOrTokens text_or_tokens_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = find(body, name);
  if (!v) throw field_error(name, "required");
  auto ids = [&](const nlohmann::json& a) {
    std::vector<int> tokens;
    for (const nlohmann::json& t : a) {
      if (!t.is_number_integer() || t.get<long long>() < 0 || t.get<long long>() > INT32_MAX)
        throw field_error(name, "token ids are integers from 0");
      tokens.push_back(t.get<int>());
    }
    return tokens;
  };
  TextOrTokens out;
  if (v->is_array() && !v->empty() && (*v)[0].is_number()) {
    out.tokens_given = true;
    out.tokens.push_back(ids(*v));
  } else if (v->is_array() && !v->empty() && (*v)[0].is_array()) {
    out.tokens_given = true;
    for (const nlohmann::json& a : *v) {
      if (!a.is_array() || a.empty()) throw field_error(name, "an array of token arrays holds non-empty arrays only");
      out.tokens.push_back(ids(a));
    }
  } else {
    std::optional<TextField> text = text_field(body, name);
    if (!text || text->texts.empty()) throw field_error(name, "an empty array");
    out.texts = std::move(text->texts);
  }
  return out;
}

}  // namespace heptapod
