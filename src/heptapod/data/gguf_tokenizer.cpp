// tokenizer.ggml.* from a vocabulary.
#include "heptapod/data/gguf_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/data/hf_tokenizer.h"

namespace heptapod {

namespace {

using nlohmann::json;

// llama.cpp's token types (llama_token_type).
enum TokenType : std::int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

// The pre-tokenizer patterns of LLaMA 3 and Qwen 2 (their tokenizer.json Split regexes), which llama.cpp
// names "llama-bpe" and "qwen2".
constexpr const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kSpaceSymbol = "\xe2\x96\x81";  // SentencePiece's "▁"

// What the keys hold, before they are set.
struct GgufTokens {
  std::string model;                // "gpt2" or "llama"
  std::string pre;                  // gpt2: llama.cpp's pre-tokenizer name
  std::vector<std::string> tokens;  // (V,)
  std::vector<std::int32_t> types;  // (V,)
  std::vector<float> scores;        // (V,) llama only
  std::vector<std::string> merges;  // gpt2 only, by rank
  int unknown_id = -1;
  bool add_space_prefix = false;    // llama: a space before the text, as SentencePiece's dummy prefix
};

// A node's steps: a Sequence's items (under `items`), or the node alone; none for null.
std::vector<json> steps(const json& node, const char* items) {
  if (node.is_null()) return {};
  if (node.value("type", "") == "Sequence" && node.contains(items)) return node[items].get<std::vector<json>>();
  return {node};
}

bool is_byte_level(const json& step, bool use_regex) {
  return step.value("type", "") == "ByteLevel" && !step.value("add_prefix_space", true) &&
         step.value("use_regex", true) == use_regex;
}

bool is_split(const json& step, const char* pattern) {
  return step.value("type", "") == "Split" && step.contains("pattern") && step["pattern"].is_object() &&
         step["pattern"].value("Regex", "") == pattern && step.value("behavior", "") == "Isolated" &&
         !step.value("invert", false);
}

// llama.cpp's name for a byte-level tokenizer's pre-tokenizer; an Error for one it has no name for.
std::string byte_level_pre_name(const json& tokenizer, const std::string& where) {
  const json none;
  const json& pre = tokenizer.contains("pre_tokenizer") ? tokenizer["pre_tokenizer"] : none;
  const std::vector<json> s = steps(pre, "pretokenizers");
  std::string name;
  if (s.size() == 1 && is_byte_level(s[0], true)) name = "gpt-2";
  if (s.size() == 2 && is_split(s[0], kLlama3Pattern) && is_byte_level(s[1], false)) name = "llama-bpe";
  if (s.size() == 2 && is_split(s[0], kQwen2Pattern) && is_byte_level(s[1], false)) name = "qwen2";
  if (s.size() == 2 && s[0].value("type", "") == "Digits" && s[0].value("individual_digits", false) &&
      is_byte_level(s[1], true))
    name = "smollm";
  std::string shown = pre.dump();
  if (shown.size() > 300) shown = shown.substr(0, 300) + "...";
  require(!name.empty(), where + ": the tokenizer's pre-tokenizer " + shown +
                             " is none llama.cpp names (tokenizer.ggml.pre gpt-2, llama-bpe, qwen2 or smollm), and "
                             "llama.cpp refuses a pre-tokenizer it does not know");
  const json& normalizer = tokenizer.contains("normalizer") ? tokenizer["normalizer"] : none;
  // Qwen's NFC changes no text llama.cpp's byte-level BPE reads differently in practice; llama.cpp skips it too.
  require(normalizer.is_null() || normalizer.value("type", "") == "NFC",
          where + ": the byte-level tokenizer's normalizer " + normalizer.dump() + " is none llama.cpp applies");
  return name;
}

// Whether a SentencePiece-style tokenizer.json puts "▁" before the text (SentencePiece's dummy prefix);
// an Error for a normalizer or pre-tokenizer llama.cpp's SentencePiece tokenizer does not reproduce.
bool sentencepiece_space_prefix(const json& tokenizer, const std::string& where) {
  const json none;
  const json& pre = tokenizer.contains("pre_tokenizer") ? tokenizer["pre_tokenizer"] : none;
  const json& normalizer = tokenizer.contains("normalizer") ? tokenizer["normalizer"] : none;
  const std::string refused = where + ": the byte-fallback tokenizer's normalizer " + normalizer.dump() +
                              " and pre-tokenizer " + pre.dump() +
                              " are not SentencePiece's spaces as \"▁\", which llama.cpp's \"llama\" tokenizer reads";
  if (pre.is_null()) {  // LLaMA 2 and Mistral: Prepend("▁") then Replace(" ", "▁")
    const std::vector<json> s = steps(normalizer, "normalizers");
    const bool prepend = !s.empty() && s[0].value("type", "") == "Prepend" && s[0].value("prepend", "") == kSpaceSymbol;
    const std::size_t replace = prepend ? 1 : 0;
    require(s.size() == replace + 1 && s[replace].value("type", "") == "Replace" &&
                s[replace].value("content", "") == kSpaceSymbol && s[replace].contains("pattern") &&
                s[replace]["pattern"].value("String", "") == " ",
            refused);
    return prepend;
  }
  require(normalizer.is_null() && pre.value("type", "") == "Metaspace" &&
              pre.value("replacement", kSpaceSymbol) == kSpaceSymbol,
          refused);
  return pre.value("prepend_scheme", std::string(pre.value("add_prefix_space", true) ? "always" : "never")) != "never";
}

// tokenizer.json's merges as "left right" lines, by rank.
std::vector<std::string> merge_lines(const json& model, const std::string& where) {
  std::vector<std::string> lines;
  if (!model.contains("merges")) return lines;
  for (const json& m : model["merges"]) {
    std::string left, right;
    if (m.is_string()) {
      lines.push_back(m.get<std::string>());
      continue;
    }
    require(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(),
            where + ": a merge of tokenizer.json is neither \"a b\" nor [\"a\", \"b\"]");
    left = m[0].get<std::string>();
    right = m[1].get<std::string>();
    require(left.find(' ') == std::string::npos && right.find(' ') == std::string::npos,
            where + ": the merge [\"" + left + "\", \"" + right + "\"] has a space in a piece, which GGUF's \"a b\" "
                    "merges cannot write");
    lines.push_back(left + " " + right);
  }
  return lines;
}

bool is_byte_piece(const std::string& p) {
  return p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>' && std::isxdigit(static_cast<unsigned char>(p[3])) &&
         std::isxdigit(static_cast<unsigned char>(p[4]));
}

GgufTokens from_tokenizer_json(const Vocabulary& vocab, const std::string& where) {
  const HfTokenizer& hf = *hf_tokenizer(vocab.tokenizer());
  const json serialized = json::parse(vocab.serialized());
  const json& tokenizer = serialized["tokenizer.json"];
  const json& model = tokenizer["model"];
  GgufTokens t;
  const bool sentencepiece = model.value("byte_fallback", false);
  t.model = sentencepiece ? "llama" : "gpt2";
  std::set<int> user_defined;  // added tokens that are not special
  if (tokenizer.contains("added_tokens"))
    for (const json& a : tokenizer["added_tokens"])
      if (!a.value("special", false)) user_defined.insert(a.value("id", -1));
  t.unknown_id = hf.special_ids().unk;
  if (t.unknown_id < 0 && model.contains("unk_token") && model["unk_token"].is_string())
    t.unknown_id = vocab.id_of(model["unk_token"].get<std::string>());
  for (int id = 0; id < vocab.size(); ++id) {
    const std::string piece = vocab.piece(id);
    t.tokens.push_back(piece);
    t.types.push_back(id == t.unknown_id                  ? kUnknown
                      : user_defined.count(id)            ? kUserDefined
                      : vocab.is_special(id)              ? kControl
                      : sentencepiece && is_byte_piece(piece) ? kByte
                                                              : kNormal);
  }
  const std::vector<std::string> merges = merge_lines(model, where);
  if (!sentencepiece) {
    t.pre = byte_level_pre_name(tokenizer, where);
    t.merges = merges;
    return t;
  }
  t.add_space_prefix = sentencepiece_space_prefix(tokenizer, where);
  // Scores: minus the rank of the first merge that makes the piece; pieces no merge makes below them all.
  std::map<std::string, int> made_by;
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& m = merges[rank];
    const std::size_t space = m.find(' ');
    made_by.emplace(m.substr(0, space) + m.substr(space + 1), static_cast<int>(rank));
  }
  for (int id = 0; id < vocab.size(); ++id) {
    const auto it = made_by.find(t.tokens[id]);
    const bool normal = t.types[id] == kNormal;
    t.scores.push_back(it != made_by.end() && normal ? -static_cast<float>(it->second)
                       : normal                      ? -static_cast<float>(merges.size())
                                                     : 0.0f);
  }
  return t;
}

GgufTokens from_byte_bpe(const Vocabulary& vocab) {
  GgufTokens t;
  t.model = "gpt2";
  t.pre = "gpt-2";  // data/byte_bpe.h cuts text by GPT-2's pattern
  for (int id = 0; id < vocab.size(); ++id) {
    t.tokens.push_back(vocab.piece(id));
    t.types.push_back(vocab.is_special(id) ? kControl : kNormal);
  }
  t.merges = json::parse(vocab.serialized())["merges"].get<std::vector<std::string>>();
  return t;
}

GgufTokens from_sentencepiece(const Vocabulary& vocab, const std::string& where) {
  GgufTokens t;
  t.model = "llama";
  t.add_space_prefix = true;  // SentencePiece's dummy prefix, which heptapod vocab keeps
  for (const ScoredPiece& p : sentencepiece_pieces(vocab.serialized(), where)) {
    t.tokens.push_back(p.piece);
    t.scores.push_back(p.score);
    using Kind = ScoredPiece::Kind;
    t.types.push_back(p.kind == Kind::Unknown   ? kUnknown
                      : p.kind == Kind::Control ? kControl
                      : p.kind == Kind::Unused  ? kUnused
                      : p.kind == Kind::Byte    ? kByte
                                                : kNormal);
    if (p.kind == Kind::Unknown) t.unknown_id = static_cast<int>(t.tokens.size()) - 1;
  }
  return t;
}

}  // namespace

void set_gguf_tokenizer(GgufWriter& writer, const Vocabulary& vocab, const ModelConfig& config,
                        const std::string& where) {
  const std::string kind = vocab.tokenizer() ? vocab.tokenizer()->kind() : "sentencepiece";
  require(kind != "wordpiece", where + ": a WordPiece vocabulary (BERT's) has no tokenizer.ggml model for a decoder");
  require(vocab.ids() == nullptr, where + ": a SentencePiece vocabulary with an id table of its own (a converted "
                                          "translation model's) has no tokenizer.ggml form");
  GgufTokens t = kind == "tokenizer.json" ? from_tokenizer_json(vocab, where)
                 : kind == "byte-bpe"     ? from_byte_bpe(vocab)
                                          : from_sentencepiece(vocab, where);
  const int rows = config.tgt_vocab_size;
  require(static_cast<int>(t.tokens.size()) <= rows,
          where + ": the vocabulary has " + std::to_string(t.tokens.size()) + " pieces, the embedding " +
              std::to_string(rows) + " rows");
  for (int id = static_cast<int>(t.tokens.size()); id < rows; ++id) {
    t.tokens.push_back("[PAD" + std::to_string(id) + "]");
    t.types.push_back(kUnused);
    if (!t.scores.empty()) t.scores.push_back(0.0f);
  }
  writer.set("tokenizer.ggml.model", GgufWriter::string(t.model));
  if (!t.pre.empty()) writer.set("tokenizer.ggml.pre", GgufWriter::string(t.pre));
  writer.set("tokenizer.ggml.tokens", GgufWriter::strings(std::move(t.tokens)));
  if (!t.scores.empty()) writer.set("tokenizer.ggml.scores", GgufWriter::f32s(t.scores));
  writer.set("tokenizer.ggml.token_type", GgufWriter::i32s(t.types));
  if (t.model == "gpt2") writer.set("tokenizer.ggml.merges", GgufWriter::strings(std::move(t.merges)));
  writer.set("tokenizer.ggml.bos_token_id", GgufWriter::u32(static_cast<std::uint32_t>(config.bos_id)));
  writer.set("tokenizer.ggml.eos_token_id", GgufWriter::u32(static_cast<std::uint32_t>(config.eos_id)));
  if (t.unknown_id >= 0)
    writer.set("tokenizer.ggml.unknown_token_id", GgufWriter::u32(static_cast<std::uint32_t>(t.unknown_id)));
  writer.set("tokenizer.ggml.padding_token_id", GgufWriter::u32(static_cast<std::uint32_t>(config.pad_id)));
  writer.set("tokenizer.ggml.add_bos_token", GgufWriter::boolean(config.prompt_bos));
  writer.set("tokenizer.ggml.add_eos_token", GgufWriter::boolean(false));
  if (t.model == "llama") writer.set("tokenizer.ggml.add_space_prefix", GgufWriter::boolean(t.add_space_prefix));
}

}  // namespace heptapod
