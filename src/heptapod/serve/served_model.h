// Which models a server serves: `-m es-en=model.htp` names the language pair a model translates; a bare
// `-m model.htp` (allowed for a single model) serves an unnamed pair that answers whatever codes a client
// sends. Language codes are ISO 639 style (letters, digits, '_'); names for the common ones are built in.
#pragma once

#include <string>

namespace heptapod {

struct ModelSpec {
  std::string source, target;  // both empty: an unnamed pair
  std::string path;
  bool named() const { return !source.empty(); }
  std::string pair() const { return named() ? source + "-" + target : "default"; }
};

// "SRC-TGT=PATH" or "PATH". Throws Error naming the text for an empty path or a malformed code.
ModelSpec parse_model_spec(const std::string& text);
// 1-16 characters of [A-Za-z0-9_].
bool valid_language_code(const std::string& code);
// The English name of an ISO 639-1 code ("es" -> "Spanish"); the code itself when not in the table.
std::string language_name(const std::string& code);

}  // namespace heptapod
