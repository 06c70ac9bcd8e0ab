// The piece table shared by the pre-trained tokenizers, and reading a serialized one back.
#include "heptapod/data/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

#include "heptapod/core/error.h"
#include "heptapod/data/byte_bpe.h"
#include "heptapod/data/hf_tokenizer.h"
#include "heptapod/data/wordpiece.h"

namespace heptapod {

PieceTable::PieceTable(std::vector<std::string> pieces, const std::string& where)
    : pieces_(std::move(pieces)), special_(pieces_.size(), false) {
  require(!pieces_.empty(), where + ": the vocabulary has no pieces");
  by_piece_.reserve(pieces_.size());
  for (int id = 0; id < size(); ++id) {
    const auto [it, fresh] = by_piece_.emplace(pieces_[static_cast<std::size_t>(id)], id);
    require(fresh, where + ": piece \"" + it->first + "\" has two ids (" + std::to_string(it->second) + " and " +
                       std::to_string(id) + ")");
  }
}

int PieceTable::id_of(std::string_view piece) const {
  const auto it = by_piece_.find(std::string(piece));
  return it == by_piece_.end() ? -1 : it->second;
}

void Tokenizer::set_text_specials(std::vector<std::string> pieces, const std::string& where) {
  for (const std::string& piece : pieces) {
    const int id = table_.id_of(piece);
    require(id >= 0 && table_.is_special(id), where + ": the special token \"" + piece +
                                                  "\" is not a special piece of the vocabulary");
  }
  text_specials_ = std::move(pieces);
}

void Tokenizer::strip_around(const std::string& piece, bool lstrip, bool rstrip, const std::string& where) {
  require(std::find(text_specials_.begin(), text_specials_.end(), piece) != text_specials_.end(),
          where + ": \"" + piece + "\" is not a special token read in text, so it strips no white space");
  for (auto [strips, list] : {std::pair{lstrip, &lstrip_}, {rstrip, &rstrip_}})
    if (strips && std::find(list->begin(), list->end(), piece) == list->end()) list->push_back(piece);
}

namespace {

constexpr std::string_view kWhiteSpace = " \t\n\r\v\f";

}  // namespace

std::size_t end_before_white_space(std::string_view text, std::size_t from, std::size_t end) {
  while (end > from && kWhiteSpace.find(text[end - 1]) != std::string_view::npos) --end;
  return end;
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  auto marked = [](const std::vector<std::string>& list, std::string_view piece) {
    return std::find(list.begin(), list.end(), piece) != list.end();
  };
  std::vector<int> ids;
  std::size_t done = 0;
  while (done < text.size()) {
    std::size_t at = std::string_view::npos, length = 0;  // the next special token: earliest, then longest
    for (const std::string& s : text_specials_) {
      const std::size_t found = s.empty() ? std::string_view::npos : text.find(s, done);
      if (found < at || (found == at && found != std::string_view::npos && s.size() > length)) {
        at = found;
        length = s.size();
      }
    }
    const std::string_view special = at == std::string_view::npos ? std::string_view() : text.substr(at, length);
    std::size_t end = at == std::string_view::npos ? text.size() : at;  // the text before it, less what it takes
    if (!special.empty() && marked(lstrip_, special)) end = end_before_white_space(text, done, end);
    encode_text(text.substr(done, end - done), ids);
    if (special.empty()) break;
    ids.push_back(table_.id_of(std::string(special)));
    done = at + length;
    if (marked(rstrip_, special))
      while (done < text.size() && kWhiteSpace.find(text[done]) != std::string_view::npos) ++done;
  }
  return ids;
}

std::vector<std::string> pieces_from_id_map(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": not a JSON object of piece -> id");
  std::vector<std::string> pieces(j.size());
  std::vector<bool> seen(j.size(), false);
  for (const auto& [piece, value] : j.items()) {
    require(value.is_number_integer(), where + ": the id of \"" + piece + "\" is not an integer");
    const auto id = value.get<std::int64_t>();
    require(id >= 0 && id < static_cast<std::int64_t>(j.size()),
            where + ": id " + std::to_string(id) + " of \"" + piece + "\" is outside 0.." + std::to_string(j.size() - 1) +
                " (the ids must be 0 .. number of pieces - 1)");
    require(!seen[static_cast<std::size_t>(id)], where + ": id " + std::to_string(id) + " is given to two pieces");
    seen[static_cast<std::size_t>(id)] = true;
    pieces[static_cast<std::size_t>(id)] = piece;
  }
  return pieces;
}

std::unique_ptr<Tokenizer> tokenizer_from_json(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": the tokenizer is not a JSON object");
  const auto strings = [&](const char* key) {
    require(j.contains(key) && j[key].is_array(), where + ": the tokenizer needs a \"" + key + "\" array");
    std::vector<std::string> out;
    for (const auto& s : j[key]) {
      require(s.is_string(), where + ": the tokenizer's \"" + key + "\" must be strings");
      out.push_back(s.get<std::string>());
    }
    return out;
  };
  const std::string kind = j.contains("tokenizer") && j["tokenizer"].is_string() ? j["tokenizer"].get<std::string>() : "";
  if (kind == "byte-bpe") {
    auto bpe = std::make_unique<ByteBpe>(strings("pieces"), strings("merges"), where);
    for (const bool left : {true, false})  // present only where a special token strips white space
      if (j.contains(left ? "lstrip" : "rstrip"))
        for (const std::string& piece : strings(left ? "lstrip" : "rstrip")) bpe->strip_around(piece, left, !left, where);
    return bpe;
  }
  if (kind == "wordpiece") {
    WordPieceOptions o;
    try {
      o.lowercase = j.at("lowercase").get<bool>();
      o.strip_accents = j.at("strip_accents").get<bool>();
      o.split_cjk = j.at("split_cjk").get<bool>();
      o.unk_piece = j.at("unk_piece").get<std::string>();
      o.max_word_chars = j.at("max_word_chars").get<int>();
      o.text_specials = j.at("text_specials").get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": the WordPiece tokenizer's options are incomplete (" + e.what() + ")");
    }
    return std::make_unique<WordPiece>(strings("pieces"), o, where);
  }
  if (kind == "tokenizer.json") return HfTokenizer::from_serialized(j, where);
  throw Error(where + ": unknown tokenizer \"" + kind + "\" (known: byte-bpe, wordpiece, tokenizer.json)");
}

}  // namespace heptapod
