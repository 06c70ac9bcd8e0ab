// A tokenizer.json tokenizer: its parts read once, its piece table checked against the added tokens, and
// Hugging Face's encoding order (added tokens, normalizer, pre-tokenizer, model).
#include "heptapod/data/hf_tokenizer.h"

#include <algorithm>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/data/utf8.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"

namespace heptapod {

namespace {

// The root of tokenizer.json, checked for the one version Hugging Face writes.
hf::JsonNode root(const nlohmann::json& j, const std::string& where) {
  hf::JsonNode node(j, where);
  if (node.has("version") && node.text("version") != "1.0")
    node.fail("version \"" + node.text("version") + "\" is not supported (tokenizer.json version 1.0)");
  return node;
}

hf::JsonNode bpe_model(const hf::JsonNode& root) {
  const hf::JsonNode model = root.child("model");
  const std::string type = model.text("type", "BPE");
  if (type != "BPE") model.unsupported("model", type, "BPE");
  return model;
}

}  // namespace

HfTokenizer::HfTokenizer(const nlohmann::json& j, hf::TokenizerConfig config, const std::string& where)
    : config_(std::move(config)),
      normalizers_(hf::read_normalizers(root(j, where))),
      pre_tokenizers_(hf::read_pre_tokenizers(root(j, where))),
      model_(bpe_model(root(j, where))),
      added_(hf::read_added_tokens(root(j, where)), normalizers_),
      template_(hf::read_post_processor(root(j, where))),
      decoders_(hf::read_decoders(root(j, where))) {
  build_table(where);
  for (const std::vector<int>* ids : {&template_.begin, &template_.end})
    for (const int id : *ids)
      require(table_.contains(id), where + ": post_processor: the template's token id " + std::to_string(id) +
                                       " is not in the vocabulary");
  const auto special = [&](const std::optional<std::string>& token, const char* key) {
    if (!token) return -1;
    const int id = table_.id_of(*token);
    require(id >= 0, where + ": tokenizer_config.json's " + key + " \"" + *token + "\" is not a token of tokenizer.json");
    return id;
  };
  special_ids_ = {special(config_.bos_token, "bos_token"), special(config_.eos_token, "eos_token"),
                  special(config_.unk_token, "unk_token"), special(config_.pad_token, "pad_token")};
  // The mark of a word's first piece: what the pipeline puts before "x" in " x".
  std::vector<hf::Piece> pieces = hf::pre_tokenize(pre_tokenizers_, {{hf::normalize(normalizers_, " x"), -1, true}});
  if (!pieces.empty() && pieces.back().text.size() > 1 && pieces.back().text.back() == 'x') {
    const std::vector<char32_t> mark = decode_utf8(pieces.back().text.substr(0, pieces.back().text.size() - 1));
    append_utf8(mark.back(), word_mark_);
  }
  serialized_ =
      nlohmann::json{{"tokenizer", kind()}, {"tokenizer.json", j}, {"tokenizer_config.json", hf::to_json(config_)}}.dump();
}

void HfTokenizer::build_table(const std::string& where) {
  int size = 0;
  for (const auto& [piece, id] : model_.vocab()) size = std::max(size, id + 1);
  for (const hf::AddedToken& t : added_.tokens()) size = std::max(size, t.id + 1);
  std::vector<std::string> pieces(static_cast<std::size_t>(size));
  std::vector<bool> filled(static_cast<std::size_t>(size), false);
  for (const auto& [piece, id] : model_.vocab()) {
    pieces[static_cast<std::size_t>(id)] = piece;
    filled[static_cast<std::size_t>(id)] = true;
  }
  for (const hf::AddedToken& t : added_.tokens()) {
    const auto at = static_cast<std::size_t>(t.id);
    require(!filled[at] || pieces[at] == t.content,
            where + ": added_tokens: \"" + t.content + "\" has id " + std::to_string(t.id) +
                ", which the model's vocabulary gives to \"" + pieces[at] + "\"");
    const auto in_vocab = model_.vocab().find(t.content);
    require(in_vocab == model_.vocab().end() || in_vocab->second == t.id,
            where + ": added_tokens: \"" + t.content + "\" has id " + std::to_string(t.id) +
                ", but the model's vocabulary gives it id " +
                std::to_string(in_vocab == model_.vocab().end() ? -1 : in_vocab->second));
    pieces[at] = t.content;
    filled[at] = true;
  }
  const auto gap = std::find(filled.begin(), filled.end(), false);
  require(gap == filled.end(), where + ": no piece has id " + std::to_string(gap - filled.begin()) +
                                   " (the ids of model.vocab and added_tokens must be 0 .. " +
                                   std::to_string(size - 1) + ", each once)");
  table_ = PieceTable(std::move(pieces), where);
  for (const hf::AddedToken& t : added_.tokens())
    if (t.special) table_.mark_special(t.id);
}

std::shared_ptr<HfTokenizer> HfTokenizer::from_directory(const std::string& dir) {
  const std::string json_path = dir + "/tokenizer.json", config_path = dir + "/tokenizer_config.json";
  hf::TokenizerConfig config;
  if (std::filesystem::exists(config_path))
    config = hf::read_tokenizer_config(parse_config_object(read_file(config_path), config_path), config_path);
  return std::make_shared<HfTokenizer>(parse_config_object(read_file(json_path), json_path), std::move(config),
                                       json_path);
}

std::unique_ptr<HfTokenizer> HfTokenizer::from_serialized(const nlohmann::json& j, const std::string& where) {
  const hf::JsonNode node(j, where);
  const hf::JsonNode config = node.child("tokenizer_config.json");
  return std::make_unique<HfTokenizer>(node.child("tokenizer.json").json(),
                                       hf::read_tokenizer_config(config.json(), config.where()), where);
}

void HfTokenizer::encode_text(std::string_view text, std::vector<int>& out) const {
  const std::string valid = replace_invalid_utf8(text);
  std::vector<hf::Piece> pieces;
  for (hf::Piece& piece : added_.split_raw(valid)) {
    if (piece.id >= 0) {
      pieces.push_back(std::move(piece));
      continue;
    }
    piece.text = hf::normalize(normalizers_, std::move(piece.text));
    if (!piece.text.empty()) added_.split_normalized(piece, pieces);
  }
  for (const hf::Piece& piece : hf::pre_tokenize(pre_tokenizers_, std::move(pieces))) {
    if (piece.id >= 0) out.push_back(piece.id);
    else model_.tokenize(piece.text, out);
  }
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (const int id : ids)
    if (table_.contains(id)) pieces.push_back(table_.piece(id));
  return hf::decode(decoders_, std::move(pieces));
}

std::string HfTokenizer::token_bytes(int id) const {
  if (!table_.contains(id)) return {};
  return table_.is_special(id) ? table_.piece(id) : hf::token_bytes(decoders_, table_.piece(id));
}

bool HfTokenizer::starts_word(int id) const {
  return table_.contains(id) && (word_mark_.empty() || table_.piece(id).rfind(word_mark_, 0) == 0);
}

const HfTokenizer* hf_tokenizer(const Tokenizer* tokenizer) { return dynamic_cast<const HfTokenizer*>(tokenizer); }

}  // namespace heptapod
