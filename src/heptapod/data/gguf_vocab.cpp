// tokenizer.ggml.* to tokenizer.json.
#include "heptapod/data/gguf_vocab.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <unordered_map>

#include "heptapod/core/error.h"
#include "heptapod/data/hf_tokenizer.h"

namespace heptapod {

namespace {

using nlohmann::json;

// tokenizer.ggml.token_type values.
enum TokenType : std::int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

// The pre-tokenizer regexes as Hugging Face's tokenizer.json files write them.
constexpr const char* kLlama3Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char* kQwen2Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

json byte_level(bool trim_offsets, bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", trim_offsets}, {"use_regex", use_regex}};
}

json split_then_bytes(const char* regex, bool trim_offsets) {
  return {{"type", "Sequence"},
          {"pretokenizers",
           json::array({{{"type", "Split"}, {"pattern", {{"Regex", regex}}}, {"behavior", "Isolated"}, {"invert", false}},
                        byte_level(trim_offsets, false)})}};
}

// A byte-level BPE's normalizer, pre-tokenizer and ignore_merges, by llama.cpp's tokenizer.ggml.pre names
// (src/llama-vocab.cpp) and the tokenizer.json of the models they stand for.
struct ByteLevelForm {
  json normalizer, pre_tokenizer;
  bool ignore_merges = false;
};

ByteLevelForm byte_level_form(const std::string& pre, const std::string& where) {
  if (pre == "llama-bpe" || pre == "llama3" || pre == "llama-v3")
    return {nullptr, split_then_bytes(kLlama3Regex, true), true};
  if (pre == "qwen2" || pre == "deepseek-r1-qwen")
    return {{{"type", "NFC"}}, split_then_bytes(kQwen2Regex, false), false};
  if (pre == "gpt-2" || pre == "phi-2") return {nullptr, byte_level(true, true), false};
  if (pre == "smollm" || pre == "starcoder" || pre == "refact")
    return {nullptr,
            {{"type", "Sequence"},
             {"pretokenizers",
              json::array({{{"type", "Digits"}, {"individual_digits", true}}, byte_level(true, true)})}},
            false};
  throw Error(where + ": tokenizer.ggml.pre \"" + pre + "\" is not a pre-tokenizer Heptapod knows (llama-bpe, qwen2, "
                      "gpt-2, smollm, starcoder, refact and their aliases)");
}

// Whether a split at byte `at` of `text` falls between two code points.
bool code_point_boundary(const std::string& text, std::size_t at) {
  return (static_cast<unsigned char>(text[at]) & 0xC0) != 0x80;
}

// A SentencePiece BPE's merges from its pieces' scores, as Hugging Face's SentencePieceExtractor makes them:
// every split of a normal piece into two normal pieces, in id order (and by the parts' ids within a piece),
// then stably ranked by the piece's score, highest first.
json merges_from_scores(const std::vector<std::string>& tokens, const std::vector<float>& scores,
                        const std::vector<std::int32_t>& types) {
  std::unordered_map<std::string, int> normal;
  for (std::size_t id = 0; id < tokens.size(); ++id)
    if (types[id] == kNormal) normal.emplace(tokens[id], static_cast<int>(id));
  struct Merge {
    int left, right;
    float score;
  };
  std::vector<Merge> merges;
  for (std::size_t id = 0; id < tokens.size(); ++id) {
    if (types[id] != kNormal) continue;
    const std::string& piece = tokens[id];
    const std::size_t first = merges.size();
    for (std::size_t at = 1; at < piece.size(); ++at) {
      if (!code_point_boundary(piece, at)) continue;
      const auto l = normal.find(piece.substr(0, at)), r = normal.find(piece.substr(at));
      if (l != normal.end() && r != normal.end()) merges.push_back({l->second, r->second, scores[id]});
    }
    std::sort(merges.begin() + static_cast<std::ptrdiff_t>(first), merges.end(), [](const Merge& a, const Merge& b) {
      return a.left != b.left ? a.left < b.left : a.right < b.right;
    });
  }
  std::stable_sort(merges.begin(), merges.end(), [](const Merge& a, const Merge& b) { return a.score > b.score; });
  json out = json::array();
  for (const Merge& m : merges)
    out.push_back(json::array({tokens[static_cast<std::size_t>(m.left)], tokens[static_cast<std::size_t>(m.right)]}));
  return out;
}

// The template of the start and end tokens the tokenizer adds around a text (none: no key).
void add_template(json& j, const std::vector<std::string>& tokens, int bos, int eos) {
  if (bos < 0 && eos < 0) return;
  json single = json::array(), specials = json::object();
  auto special = [&](int id) {
    const std::string& text = tokens[static_cast<std::size_t>(id)];
    single.push_back({{"SpecialToken", {{"id", text}, {"type_id", 0}}}});
    specials[text] = {{"id", text}, {"ids", {id}}, {"tokens", {text}}};
  };
  if (bos >= 0) special(bos);
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (eos >= 0) special(eos);
  j["post_processor"] = {{"type", "TemplateProcessing"}, {"single", single}, {"pair", single}, {"special_tokens", specials}};
}

int optional_id(const GgufFile& g, const char* key, std::size_t size) {
  const auto id = g.optional_u32(key);
  if (!id) return -1;
  require(*id < size, g.where() + ": " + key + " " + std::to_string(*id) + " is not a token id");
  return static_cast<int>(*id);
}

}  // namespace

Vocabulary gguf_vocabulary(const GgufFile& g) {
  const std::string where = g.where();
  const std::string model = g.string("tokenizer.ggml.model");
  const std::vector<std::string> tokens = g.strings("tokenizer.ggml.tokens");
  std::vector<std::int32_t> types(tokens.size(), kNormal);
  if (g.find("tokenizer.ggml.token_type")) {
    types = g.i32s("tokenizer.ggml.token_type");
    require(types.size() == tokens.size(), where + ": tokenizer.ggml.token_type has " + std::to_string(types.size()) +
                                               " entries for " + std::to_string(tokens.size()) + " tokens");
  }
  const int bos = optional_id(g, "tokenizer.ggml.bos_token_id", tokens.size());
  const int eos = optional_id(g, "tokenizer.ggml.eos_token_id", tokens.size());
  const int unk = optional_id(g, "tokenizer.ggml.unknown_token_id", tokens.size());
  const int pad = optional_id(g, "tokenizer.ggml.padding_token_id", tokens.size());
  const bool spm = model == "llama";
  require(spm || model == "gpt2", where + ": tokenizer.ggml.model \"" + model +
                                      "\" is not supported (gpt2: byte-level BPE, llama: SentencePiece BPE)");
  // llama.cpp's defaults where the file does not say: SentencePiece adds its start token, byte-level BPE not.
  const bool add_bos = g.optional_boolean("tokenizer.ggml.add_bos_token").value_or(spm);
  const bool add_eos = g.optional_boolean("tokenizer.ggml.add_eos_token").value_or(false);

  json vocab = json::object(), added = json::array();
  for (std::size_t id = 0; id < tokens.size(); ++id) {
    const std::int32_t type = types[id];
    require(type >= kNormal && type <= kByte, where + ": tokenizer.ggml.token_type " + std::to_string(type) +
                                                  " of token " + std::to_string(id) + " is not a token type");
    require(spm || type != kByte, where + ": byte token " + std::to_string(id) + " in a byte-level BPE");
    const bool special = type == kControl || type == kUnknown || type == kUserDefined;
    if (special)
      added.push_back({{"id", id}, {"content", tokens[id]}, {"single_word", false}, {"lstrip", false},
                       {"rstrip", false}, {"normalized", false}, {"special", type != kUserDefined}});
    // A byte-level BPE's added tokens stay out of its model's vocabulary, as in Hugging Face's files.
    if (spm || !special) {
      require(!vocab.contains(tokens[id]), where + ": tokenizer.ggml.tokens holds \"" + tokens[id] + "\" twice");
      vocab[tokens[id]] = id;
    }
  }
  json j = {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", added}};
  json bpe = {{"type", "BPE"}, {"dropout", nullptr}, {"continuing_subword_prefix", nullptr},
              {"end_of_word_suffix", nullptr}, {"vocab", vocab}};
  if (spm) {
    require(g.find("tokenizer.ggml.scores") != nullptr, where + ": no tokenizer.ggml.scores (a SentencePiece "
                                                                "tokenizer ranks its merges by them)");
    const std::vector<float> scores = g.f32s("tokenizer.ggml.scores");
    require(scores.size() == tokens.size(), where + ": tokenizer.ggml.scores has " + std::to_string(scores.size()) +
                                                " entries for " + std::to_string(tokens.size()) + " tokens");
    // LLaMA 2's and Mistral's tokenizer.json (the legacy form): "▁" before the text, spaces as "▁".
    const bool space_prefix = g.optional_boolean("tokenizer.ggml.add_space_prefix").value_or(true);
    json replace = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xe2\x96\x81"}};
    j["normalizer"] = space_prefix ? json{{"type", "Sequence"},
                                          {"normalizers", json::array({{{"type", "Prepend"}, {"prepend", "\xe2\x96\x81"}},
                                                                       replace})}}
                                   : replace;
    j["pre_tokenizer"] = nullptr;
    json steps = json::array({{{"type", "Replace"}, {"pattern", {{"String", "\xe2\x96\x81"}}}, {"content", " "}},
                              {{"type", "ByteFallback"}},
                              {{"type", "Fuse"}}});
    if (space_prefix) steps.push_back({{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
    j["decoder"] = {{"type", "Sequence"}, {"decoders", steps}};
    bpe["unk_token"] = unk >= 0 ? json(tokens[static_cast<std::size_t>(unk)]) : json(nullptr);
    bpe["fuse_unk"] = true;
    bpe["byte_fallback"] = true;
    bpe["ignore_merges"] = false;
    bpe["merges"] = merges_from_scores(tokens, scores, types);
  } else {
    const ByteLevelForm form = byte_level_form(g.string("tokenizer.ggml.pre"), where);
    j["normalizer"] = form.normalizer;
    j["pre_tokenizer"] = form.pre_tokenizer;
    j["decoder"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
    bpe["unk_token"] = nullptr;
    bpe["fuse_unk"] = false;
    bpe["byte_fallback"] = false;
    bpe["ignore_merges"] = form.ignore_merges;
    json merges = json::array();
    for (const std::string& m : g.strings("tokenizer.ggml.merges")) merges.push_back(m);
    bpe["merges"] = merges;
  }
  j["model"] = bpe;
  add_template(j, tokens, add_bos ? bos : -1, add_eos ? eos : -1);
  hf::TokenizerConfig config;
  auto text = [&](int id) { return id >= 0 ? std::optional<std::string>(tokens[static_cast<std::size_t>(id)]) : std::nullopt; };
  config.bos_token = text(bos);
  config.eos_token = text(eos);
  config.unk_token = text(unk);
  config.pad_token = text(pad);
  config.add_bos_token = add_bos;
  config.add_eos_token = add_eos;
  return Vocabulary::from_tokenizer(std::make_shared<HfTokenizer>(j, std::move(config), where + " (tokenizer.ggml)"));
}

std::optional<StoredChatTemplate> gguf_chat_template(const GgufFile& g) {
  const std::optional<std::string> source = g.optional_string("tokenizer.chat_template");
  if (!source) return std::nullopt;
  StoredChatTemplate chat{*source, {}};
  const std::vector<std::string> tokens = g.strings("tokenizer.ggml.tokens");
  const std::pair<const char*, const char*> keys[] = {{"bos_token", "tokenizer.ggml.bos_token_id"},
                                                      {"eos_token", "tokenizer.ggml.eos_token_id"},
                                                      {"unk_token", "tokenizer.ggml.unknown_token_id"},
                                                      {"pad_token", "tokenizer.ggml.padding_token_id"}};
  for (const auto& [name, key] : keys)
    if (const int id = optional_id(g, key, tokens.size()); id >= 0) chat.tokens[name] = tokens[static_cast<std::size_t>(id)];
  return chat;
}

}  // namespace heptapod
