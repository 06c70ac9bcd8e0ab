// Model specifications of `heptapod serve -m`, model kinds, and the language-name table of GET /languages.
#include "heptapod/serve/served_model.h"

#include <algorithm>
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

std::optional<PairName> split_pair_name(const std::string& name) {
  const std::size_t colon = name.find(':');
  const std::string pair = name.substr(0, colon);
  const std::size_t dash = pair.find('-');
  if (dash == std::string::npos) return std::nullopt;
  return PairName{pair.substr(0, dash), pair.substr(dash + 1),
                  colon == std::string::npos ? std::string() : name.substr(colon + 1)};
}

const char* kind_name(ModelKind kind) {
  switch (kind) {
    case ModelKind::Translation: return "translation";
    case ModelKind::Generation: return "generation";
    case ModelKind::Classification: return "classification";
    case ModelKind::Embedding: return "embedding";
  }
  return "?";
}

ModelKind model_kind(const ModelConfig& c) {
  if (c.architecture == Architecture::DecoderOnly) return ModelKind::Generation;
  if (c.architecture == Architecture::EncoderOnly) return c.labels > 0 ? ModelKind::Classification : ModelKind::Embedding;
  return ModelKind::Translation;
}

namespace {

// "NAME=FILE" or "FILE" of `option` (--model, --adapter): the name checked and read as a language pair (with
// its variant) when it reads as one, and the file.
ModelSpec parse_named_file(const std::string& text, const std::string& option) {
  ModelSpec spec;
  const std::size_t eq = text.find('=');
  spec.path = eq == std::string::npos ? text : text.substr(eq + 1);
  if (eq != std::string::npos) {
    spec.name = text.substr(0, eq);
    const bool valid = !spec.name.empty() && spec.name.size() <= 64 &&
                       std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' || c == '-';
                       });
    require(valid, option + " " + text + ": a model's name is 1-64 letters, digits or _ . : - (e.g. writer=lm.htp)");
    const std::optional<PairName> pair = split_pair_name(spec.name);
    if (pair && valid_language_code(pair->source) && valid_language_code(pair->target)) {
      spec.source = pair->source;
      spec.target = pair->target;
      spec.variant = pair->variant;
    }
  }
  require(!spec.path.empty(), option + " " + text + ": no " + (option == "--adapter" ? "adapter" : "model") + " file");
  return spec;
}

}  // namespace

ModelSpec parse_model_spec(const std::string& text) { return parse_named_file(text, "--model"); }

ModelSpec parse_adapter_spec(const std::string& text) {
  ModelSpec spec = parse_named_file(text, "--adapter");
  require(spec.named(), "--adapter " + text + ": name the adapter's model: --adapter NAME=FILE");
  spec.adapter = std::move(spec.path);
  spec.path.clear();
  return spec;
}

void check_translation_name(const ModelSpec& spec) {
  const std::string given = spec.adapter.empty() ? "--model " + spec.name + "=" + spec.path
                                                 : "--adapter " + spec.name + "=" + spec.adapter;
  const bool colon = spec.name.find(':') != std::string::npos;
  require(!spec.named() || (!spec.source.empty() && (!colon || !spec.variant.empty())),
          given + ": a translation model is named by its language pair SOURCE-TARGET, optionally with a variant "
                  "after a colon (e.g. es-en=model.htp, es-en:software=adapter.htp); language codes are 1-16 letters, "
                  "digits or '_'");
  require(!spec.named() || spec.source != spec.target, given + ": source and target languages are the same");
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
