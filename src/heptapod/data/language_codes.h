// A multilingual translation model's language codes (NLLB's "fra_Latn", M2M100's "__fr__", mBART-50's "fr_XX"),
// each the id of the token that tags a source and forces a target's first token. A converted model file keeps
// them in its metadata under "languages" (a JSON array of [code, id] pairs in the tokenizer's order); `info`
// lists them, and translate, Python and serve take a source and a target language by them. A client may also
// name a language by its ISO 639-1 code ("fr", as LibreTranslate's clients send), which resolves to the model's
// code of that language.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "heptapod/io/safetensors.h"

namespace heptapod {

inline constexpr const char* kLanguagesMetadata = "languages";

class LanguageCodes {
 public:
  LanguageCodes() = default;
  // Distinct non-empty codes with non-negative ids; an Error naming `where` otherwise.
  LanguageCodes(std::vector<std::pair<std::string, int>> codes, const std::string& where);
  static LanguageCodes from_json(const std::string& json_text, const std::string& where);
  std::string to_json() const;

  bool empty() const { return codes_.empty(); }
  const std::vector<std::pair<std::string, int>>& codes() const { return codes_; }
  // The model's code for `code`: itself when the model has it, else (an ISO 639-1 code) the model's code of
  // that language (fr -> "__fr__", "fr_XX" or "fra_Latn"); empty when the model has none.
  std::string resolve(const std::string& code) const;
  // The token id of `code` (resolved as above); an Error naming `role` ("--source-lang") and listing the
  // model's codes when it has no such language.
  int id_of(const std::string& code, const std::string& role) const;
  // The ISO 639-1 code a client names the model's code `code` by ("__fr__", "fr_XX", "fra_Latn" -> "fr"), or
  // `code` itself when it has none (resolve() gives back the model's code either way).
  std::string client_code(const std::string& code) const;
  // The codes joined by ", " (for messages and `info`).
  std::string listing() const;

 private:
  std::vector<std::pair<std::string, int>> codes_;
};

// The codes a model file carries (empty for a model without them); damaged metadata is an Error naming the file.
LanguageCodes read_language_codes(const SafetensorsFile& file);

}  // namespace heptapod
