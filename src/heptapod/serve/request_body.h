// A request body read into one JSON object whatever its encoding (JSON, URL-encoded form or multipart form;
// a form field given twice, like LibreTranslate's repeated q, becomes an array), and typed reads of its
// fields that fail as 400s naming the field. HttpError carries a reply's status and message to the handler.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/core/error.h"

namespace heptapod {

// An error reply: status (400, 403, 404, 413, 503, 504...) and the message of its {"error": ...} body.
struct HttpError : Error {
  HttpError(int status, const std::string& message, int retry_after_seconds = 0, std::string param = {})
      : Error(message), status(status), retry_after(retry_after_seconds), param(std::move(param)) {}
  int status;
  int retry_after;    // > 0: sent as Retry-After
  std::string param;  // the request field at fault, if one is (OpenAI's error replies name it)
};

// The body as a JSON object. content_type: the request's Content-Type ("application/json" or empty: JSON;
// "application/x-www-form-urlencoded" or "multipart/form-data; boundary=...": a form). Throws HttpError 400
// for malformed JSON, a JSON body that is not an object, a form with bad %-escapes or a malformed multipart
// body.
nlohmann::json parse_body(const std::string& body, const std::string& content_type);
// The media type of a Content-Type value, lower case: "multipart/form-data" of "Multipart/Form-Data; boundary=x".
std::string media_type(std::string_view content_type);
// The fields of a multipart/form-data body (RFC 7578: each part's Content-Disposition name, its content as
// sent); throws HttpError 400 when the boundary is missing or the parts are malformed.
std::multimap<std::string, std::string> decode_multipart(std::string_view body, std::string_view content_type);
// Decodes an application/x-www-form-urlencoded body; throws HttpError 400 on a bad %-escape.
std::multimap<std::string, std::string> decode_form(const std::string& body);

// The 400 of a field at fault: "Invalid request: field NAME: WHY", naming it as its param.
HttpError field_error(const std::string& name, const std::string& why);
// Refuses (400 naming it) a field not in `known`: "Unrecognized request argument supplied: NAME", OpenAI's words.
void only_known_fields(const nlohmann::json& body, const std::set<std::string>& known);

// Whether the body has the field with a value (present and not null): what the typed reads below call missing.
bool has_field(const nlohmann::json& body, const std::string& name);

// Typed fields. A missing field (or JSON null) gives the fallback; a field of the wrong type or out of range
// is HttpError 400 naming it. Numbers may come as strings (forms carry nothing else).
std::optional<std::string> string_field(const nlohmann::json& body, const std::string& name);
int int_field(const nlohmann::json& body, const std::string& name, int fallback, int min, int max);
double number_field(const nlohmann::json& body, const std::string& name, double fallback, double min, double max);
bool bool_field(const nlohmann::json& body, const std::string& name, bool fallback);
// timeout_ms in [1, limit] milliseconds; the limit when missing.
std::chrono::milliseconds timeout_field(const nlohmann::json& body, std::chrono::milliseconds limit);
// Any JSON integer (64 bits, either sign); nullopt when missing or null.
std::optional<std::int64_t> int64_field(const nlohmann::json& body, const std::string& name);
// A string or an array of strings (is_array says which); every string must be valid UTF-8.
struct TextField {
  std::vector<std::string> texts;
  bool is_array = false;
};
std::optional<TextField> text_field(const nlohmann::json& body, const std::string& name);
// OpenAI's prompt and input (required): a string, an array of strings, an array of token ids (one input) or
// an array of non-empty arrays of token ids.
struct TextOrTokens {
  std::vector<std::string> texts;          // or
  std::vector<std::vector<int>> tokens;
  bool tokens_given = false;
  std::size_t size() const { return tokens_given ? tokens.size() : texts.size(); }
};
TextOrTokens text_or_tokens_field(const nlohmann::json& body, const std::string& name);

}  // namespace heptapod
