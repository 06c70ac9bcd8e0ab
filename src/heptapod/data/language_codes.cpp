// Language codes: the metadata form, lookups, and ISO 639-1 codes resolved to a model's own.
#include "heptapod/data/language_codes.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

// ISO 639-1 -> the ISO 639-3 codes NLLB's "xxx_Script" codes use for that language (a macrolanguage's
// individual language first where NLLB names it so: Arabic arb, Persian pes, Malay zsm, Norwegian nob).
const std::map<std::string, std::vector<std::string>>& iso639_3() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"af", {"afr"}}, {"am", {"amh"}}, {"ar", {"arb", "ara"}}, {"az", {"azj", "aze"}}, {"be", {"bel"}},
      {"bg", {"bul"}}, {"bn", {"ben"}}, {"bs", {"bos"}}, {"ca", {"cat"}}, {"cs", {"ces"}}, {"cy", {"cym"}},
      {"da", {"dan"}}, {"de", {"deu"}}, {"el", {"ell"}}, {"en", {"eng"}}, {"eo", {"epo"}}, {"es", {"spa"}},
      {"et", {"est", "ekk"}}, {"eu", {"eus"}}, {"fa", {"pes", "fas"}}, {"fi", {"fin"}}, {"fr", {"fra"}},
      {"ga", {"gle"}}, {"gl", {"glg"}}, {"gu", {"guj"}}, {"ha", {"hau"}}, {"he", {"heb"}}, {"hi", {"hin"}},
      {"hr", {"hrv"}}, {"hu", {"hun"}}, {"hy", {"hye"}}, {"id", {"ind"}}, {"ig", {"ibo"}}, {"is", {"isl"}},
      {"it", {"ita"}}, {"ja", {"jpn"}}, {"ka", {"kat"}}, {"kk", {"kaz"}}, {"km", {"khm"}}, {"kn", {"kan"}},
      {"ko", {"kor"}}, {"lt", {"lit"}}, {"lv", {"lvs", "lav"}}, {"mk", {"mkd"}}, {"ml", {"mal"}},
      {"mn", {"khk", "mon"}}, {"mr", {"mar"}}, {"ms", {"zsm", "msa"}}, {"my", {"mya"}}, {"ne", {"npi", "nep"}},
      {"nl", {"nld"}}, {"nb", {"nob"}}, {"no", {"nob", "nno"}}, {"pa", {"pan"}}, {"pl", {"pol"}},
      {"ps", {"pbt", "pus"}}, {"pt", {"por"}}, {"ro", {"ron"}}, {"ru", {"rus"}}, {"si", {"sin"}}, {"sk", {"slk"}},
      {"sl", {"slv"}}, {"so", {"som"}}, {"sq", {"als", "sqi"}}, {"sr", {"srp"}}, {"sv", {"swe"}},
      {"sw", {"swh", "swa"}}, {"ta", {"tam"}}, {"te", {"tel"}}, {"th", {"tha"}}, {"tl", {"tgl"}}, {"tr", {"tur"}},
      {"uk", {"ukr"}}, {"ur", {"urd"}}, {"uz", {"uzn", "uzb"}}, {"vi", {"vie"}}, {"xh", {"xho"}}, {"yo", {"yor"}},
      {"zh", {"zho"}}, {"zu", {"zul"}}};
  return table;
}

// The ISO 639-1 language a model code names, in each family's form: "__fr__" (M2M100), "fr_XX" (mBART-50),
// or (NLLB, "fra_Latn") none here, matched through iso639_3; "" for none.
std::string two_letter_of(const std::string& code) {
  if (code.size() == 6 && code.rfind("__", 0) == 0 && code.compare(4, 2, "__") == 0) return code.substr(2, 2);
  if (code.size() == 5 && code[2] == '_') return code.substr(0, 2);
  return {};
}

}  // namespace

LanguageCodes::LanguageCodes(std::vector<std::pair<std::string, int>> codes, const std::string& where) {
  std::set<std::string> seen;
  for (const auto& [code, id] : codes) {
    require(!code.empty() && id >= 0, where + ": a language code needs a name and a token id");
    require(seen.insert(code).second, where + ": language code \"" + code + "\" given twice");
  }
  codes_ = std::move(codes);
}

LanguageCodes LanguageCodes::from_json(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_array(), where + ": \"" + kLanguagesMetadata + "\" must be a JSON array");
  std::vector<std::pair<std::string, int>> codes;
  for (const auto& pair : j) {
    require(pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_number_integer(),
            where + ": \"" + kLanguagesMetadata + "\" must hold [code, token id] pairs");
    codes.emplace_back(pair[0].get<std::string>(), pair[1].get<int>());
  }
  return LanguageCodes(std::move(codes), where);
}

std::string LanguageCodes::to_json() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [code, id] : codes_) j.push_back({code, id});
  return j.dump();
}

std::string LanguageCodes::resolve(const std::string& code) const {
  for (const auto& entry : codes_)
    if (entry.first == code) return code;
  for (const auto& entry : codes_)
    if (two_letter_of(entry.first) == code) return entry.first;
  const auto it = iso639_3().find(code);
  if (it == iso639_3().end()) return {};
  for (const std::string& three : it->second)
    for (const auto& entry : codes_)
      if (entry.first.size() > 4 && entry.first.compare(0, 4, three + "_") == 0) return entry.first;
  return {};
}

int LanguageCodes::id_of(const std::string& code, const std::string& role) const {
  require(!codes_.empty(), role + " \"" + code + "\": the model has no language codes (it is not a multilingual "
                                                 "model converted with its tokenizer's codes)");
  const std::string found = resolve(code);
  for (const auto& [name, id] : codes_)
    if (name == found) return id;
  throw Error(role + ": unknown language code \"" + code + "\"; the model's codes are " + listing());
}

std::vector<int> LanguageTags::tag_source(const std::vector<int>& tokens) const {
  std::vector<int> tagged = source_prefix;
  tagged.insert(tagged.end(), tokens.begin(), tokens.end());
  tagged.insert(tagged.end(), source_suffix.begin(), source_suffix.end());
  return tagged;
}

std::vector<int> LanguageTags::tag_target(const std::vector<int>& tokens) const {
  std::vector<int> tagged = target_prefix;
  tagged.insert(tagged.end(), tokens.begin(), tokens.end());
  return tagged;
}

std::vector<int> LanguageTags::untag_target(const std::vector<int>& tokens) const {
  const auto tag = static_cast<long>(std::min(target_prefix.size(), tokens.size()));
  return std::vector<int>(tokens.begin() + tag, tokens.end());
}

LanguageTags LanguageCodes::tags(const std::string& source, const std::string& target, const std::string& source_role,
                                 const std::string& target_role) const {
  LanguageTags t;
  if (source_code_after_ >= 0) t.source_suffix = {source_code_after_};
  if (!source.empty()) (source_code_after_ >= 0 ? t.source_suffix : t.source_prefix).push_back(id_of(source, source_role));
  if (!target.empty()) t.target_prefix = {id_of(target, target_role)};
  return t;
}

void LanguageCodes::add_metadata(std::map<std::string, std::string>& metadata) const {
  metadata[kLanguagesMetadata] = to_json();
  if (source_code_after_ >= 0) metadata[kSourceCodeAfterMetadata] = std::to_string(source_code_after_);
}

std::string LanguageCodes::client_code(const std::string& code) const {
  std::string two = two_letter_of(code);
  if (two.empty())
    for (const auto& [iso, threes] : iso639_3())
      for (const std::string& three : threes)
        if (two.empty() && code.size() > 4 && code.compare(0, 4, three + "_") == 0) two = iso;
  return !two.empty() && resolve(two) == code ? two : code;
}

std::string LanguageCodes::listing() const {
  std::string text;
  for (const auto& entry : codes_) text += (text.empty() ? "" : ", ") + entry.first;
  return text;
}

LanguageCodes read_language_codes(const SafetensorsFile& file) {
  const auto it = file.metadata().find(kLanguagesMetadata);
  if (it == file.metadata().end()) return {};
  LanguageCodes codes = LanguageCodes::from_json(it->second, file.where());
  const auto after = file.metadata().find(kSourceCodeAfterMetadata);
  if (after != file.metadata().end()) {
    const nlohmann::json id = nlohmann::json::parse(after->second, nullptr, false);
    require(id.is_number_integer() && id.get<long long>() >= 0 && id.get<long long>() < (1LL << 31),
            file.where() + ": \"" + kSourceCodeAfterMetadata + "\" must be a token id");
    codes.place_source_code_after(id.get<int>());
  }
  return codes;
}

}  // namespace heptapod
