// The two translation APIs over one request model: LibreTranslate's POST /translate (so its clients and
// plugins work unchanged) and the native POST /v1/translate (every option of `heptapod translate`). Each
// parses a body (see request_body.h) into a TranslationCall, checked against the server's limits, and turns
// the call's translations into its reply.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/decode/translator.h"
#include "heptapod/serve/request_body.h"
#include "heptapod/serve/served_model.h"
#include "heptapod/serve/server_options.h"

namespace heptapod {

// One request, whichever API it came in through.
struct TranslationCall {
  std::string source, target;       // as sent (empty when left out; LibreTranslate's source may be "auto")
  std::string model;                // the native API's model field as sent (SRC-TGT[:VARIANT]); empty: none
  std::vector<std::string> texts;   // as sent
  bool texts_array = false;         // texts came as an array (LibreTranslate replies in kind)
  std::vector<std::string> lines;   // what is translated: the texts' lines, in order
  std::vector<std::size_t> line_counts;  // lines of each text
  TranslateOptions options;
  std::chrono::milliseconds timeout{0};
  std::string api_key;              // from the body (LibreTranslate's api_key field), if any
  // LibreTranslate: alternatives asked for. Native: what each hypothesis carries.
  int alternatives = 0;
  bool alignments = false, tokens = false;
};

// Splits each text at line breaks ("\n", "\r\n"): LibreTranslate texts are paragraphs, the model translates
// lines.
void split_lines(TranslationCall& call);
// Throws HttpError 400 when the call's characters or lines exceed the limits.
void check_limits(const TranslationCall& call, const RequestLimits& limits);

// POST /translate: q (string or array; required), source, target, format ("text"), alternatives, api_key.
TranslationCall parse_libretranslate(const nlohmann::json& body, const ServerOptions& server);
// {"translatedText": ..., "alternatives": ...} (strings or arrays as q was), plus detectedLanguage for
// source "auto".
nlohmann::json libretranslate_reply(const TranslationCall& call, const std::vector<Translation>& out,
                                    const ModelSpec& model);

// POST /v1/translate: text (string or array, one sentence per element), source/target or model ("es-en"),
// beam, alpha, nbest, max_extra_length, min_length, alignments, tokens, timeout_ms.
TranslationCall parse_native(const nlohmann::json& body, const ServerOptions& server);
// {"model": "es-en", "translations": [{"hypotheses": [{"text", "score", "log_prob", ...}], "warning"}]}
nlohmann::json native_reply(const TranslationCall& call, const std::vector<Translation>& out, const ModelSpec& model);

// GET /languages: [{"code", "name", "targets": [...]}], sorted by code; multilingual: the languages of each
// multilingual model (as clients name them: LanguageCodes::client_code), each a target of the others.
nlohmann::json languages_reply(const std::vector<ModelSpec>& models,
                               const std::vector<std::vector<std::string>>& multilingual = {});

}  // namespace heptapod
