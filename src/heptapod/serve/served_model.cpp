// Model specifications of `heptapod serve -m` and the language-name table of GET /languages.
#include "heptapod/serve/served_model.h"

#include <cctype>
#include <map>

#include "heptapod/core/error.h"

namespace heptapod {

bool valid_language_code(const std::string& code) {
  if (code.empty() || code.size() > 16) return false;
  for (char c : code)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

ModelSpec parse_model_spec(const std::string& text) {
  ModelSpec spec;
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) {
    spec.path = text;
  } else {
    const std::string pair = text.substr(0, eq);
    spec.path = text.substr(eq + 1);
    const std::size_t dash = pair.find('-');
    require(dash != std::string::npos, "--model " + text + ": the pair must read SOURCE-TARGET (e.g. es-en=model.htp)");
    spec.source = pair.substr(0, dash);
    spec.target = pair.substr(dash + 1);
    require(valid_language_code(spec.source) && valid_language_code(spec.target),
            "--model " + text + ": language codes are 1-16 letters, digits or '_' (e.g. es-en=model.htp)");
    require(spec.source != spec.target, "--model " + text + ": source and target languages are the same");
  }
  require(!spec.path.empty(), "--model " + text + ": no model file");
  return spec;
}

std::string language_name(const std::string& code) {
  static const std::map<std::string, std::string> names = {
      {"ar", "Arabic"},   {"bg", "Bulgarian"}, {"ca", "Catalan"},    {"cs", "Czech"},      {"da", "Danish"},
      {"de", "German"},   {"el", "Greek"},     {"en", "English"},    {"eo", "Esperanto"},  {"es", "Spanish"},
      {"et", "Estonian"}, {"eu", "Basque"},    {"fa", "Persian"},    {"fi", "Finnish"},    {"fr", "French"},
      {"ga", "Irish"},    {"gl", "Galician"},  {"he", "Hebrew"},     {"hi", "Hindi"},      {"hu", "Hungarian"},
      {"id", "Indonesian"}, {"it", "Italian"}, {"ja", "Japanese"},   {"ko", "Korean"},     {"la", "Latin"},
      {"lt", "Lithuanian"}, {"lv", "Latvian"}, {"ms", "Malay"},      {"nb", "Norwegian"},  {"nl", "Dutch"},
      {"pl", "Polish"},   {"pt", "Portuguese"}, {"ro", "Romanian"},  {"ru", "Russian"},    {"sk", "Slovak"},
      {"sl", "Slovenian"}, {"sq", "Albanian"}, {"sv", "Swedish"},    {"th", "Thai"},       {"tr", "Turkish"},
      {"uk", "Ukrainian"}, {"ur", "Urdu"},     {"vi", "Vietnamese"}, {"zh", "Chinese"}};
  const auto it = names.find(code);
  return it == names.end() ? code : it->second;
}

}  // namespace heptapod
