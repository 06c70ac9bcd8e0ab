// A multilingual translation model's language codes (NLLB's "fra_Latn", M2M100's "__fr__", mBART-50's "fr_XX"),
// each the id of the token that tags a source and forces a target's first token. A converted model file keeps
// them in its metadata under "languages" (a JSON array of [code, id] pairs in the tokenizer's order); `info`
// lists them, and translate, Python and serve take a source and a target language by them. A client may also
// name a language by its ISO 639-1 code ("fr", as LibreTranslate's clients send), which resolves to the model's
// code of that language.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "heptapod/io/safetensors.h"

namespace heptapod {

inline constexpr const char* kLanguagesMetadata = "languages";
// NLLB's legacy layout (legacy_behaviour): the end token id the source's code follows; absent otherwise.
inline constexpr const char* kSourceCodeAfterMetadata = "languages_source_code_after";

// One translation direction's language tags as token ids, the one place translate, score, train, Python and
// serve tag sequences: the source read as [source code] X </s> (NLLB's legacy layout: X </s> [source code],
// the end token the tags' own, the model reading none of its own), the target forced to begin with its code
// after the decoder's start token ([target code] Y </s>, the code part of what is scored and trained).
// Empty: none.
struct LanguageTags {
  std::vector<int> source_prefix;  // (0 or 1) before the source's tokens
  std::vector<int> source_suffix;  // (0 to 2) after them: the legacy layout's end token and code
  std::vector<int> target_prefix;  // (0 or 1) the target's first tokens
  // The tokens a tag adds to a source and to a target.
  int source_extra() const { return static_cast<int>(source_prefix.size() + source_suffix.size()); }
  int target_extra() const { return static_cast<int>(target_prefix.size()); }
  std::vector<int> tag_source(const std::vector<int>& tokens) const;
  std::vector<int> tag_target(const std::vector<int>& tokens) const;
  // A translation's tokens without the target's code that tag_target put first (what its text is made of).
  std::vector<int> untag_target(const std::vector<int>& tokens) const;
};

class LanguageCodes {
 public:
  LanguageCodes() = default;
  // Distinct non-empty codes with non-negative ids; an Error naming `where` otherwise.
  LanguageCodes(std::vector<std::pair<std::string, int>> codes, const std::string& where);
  static LanguageCodes from_json(const std::string& json_text, const std::string& where);
  std::string to_json() const;

  bool empty() const { return codes_.empty(); }
  // NLLB's legacy layout: the source's code after the end token `end_id` (X </s> [code]), which the tags then
  // add to every source, tagged or not; -1 (the default): the code leads the source.
  void place_source_code_after(int end_id) { source_code_after_ = end_id; }
  int source_code_after() const { return source_code_after_; }
  // The model file's metadata of the codes (kLanguagesMetadata, and kSourceCodeAfterMetadata where set).
  void add_metadata(std::map<std::string, std::string>& metadata) const;
  const std::vector<std::pair<std::string, int>>& codes() const { return codes_; }
  // The model's code for `code`: itself when the model has it, else (an ISO 639-1 code) the model's code of
  // that language (fr -> "__fr__", "fr_XX" or "fra_Latn"); empty when the model has none.
  std::string resolve(const std::string& code) const;
  // The token id of `code` (resolved as above); an Error naming `role` ("--source-lang") and listing the
  // model's codes when it has no such language.
  int id_of(const std::string& code, const std::string& role) const;
  // The tags of translating `source` into `target` (each resolved as above; empty: untagged); an unknown
  // code is an Error naming its role (`source_role`, `target_role`: "--source-lang") and the model's codes.
  LanguageTags tags(const std::string& source, const std::string& target, const std::string& source_role,
                    const std::string& target_role) const;
  // The ISO 639-1 code a client names the model's code `code` by ("__fr__", "fr_XX", "fra_Latn" -> "fr"), or
  // `code` itself when it has none (resolve() gives back the model's code either way).
  std::string client_code(const std::string& code) const;
  // The codes joined by ", " (for messages and `info`).
  std::string listing() const;

 private:
  std::vector<std::pair<std::string, int>> codes_;
  int source_code_after_ = -1;
};

// The codes a model file carries (empty for a model without them); damaged metadata is an Error naming the file.
LanguageCodes read_language_codes(const SafetensorsFile& file);

}  // namespace heptapod
