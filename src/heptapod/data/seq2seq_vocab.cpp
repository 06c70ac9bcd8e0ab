// NLLB, M2M100 and mBART-50 tokenizers: id tables over the SentencePiece model, and the language codes.
#include "heptapod/data/seq2seq_vocab.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/data/builtin_language_codes.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/data/tokenizer.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/seq2seq_import.h"

namespace heptapod {

namespace {

bool lower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }

// Whether `code` has the layout's form: "fra_Latn", "__fr__" / "__ast__", "fr_XX".
bool is_family_code(const std::string& code, Seq2SeqTokenizer layout) {
  const std::size_t n = code.size();
  switch (layout) {
    case Seq2SeqTokenizer::Nllb:
      return n == 8 && lower(code[0]) && lower(code[1]) && lower(code[2]) && code[3] == '_' && upper(code[4]) &&
             lower(code[5]) && lower(code[6]) && lower(code[7]);
    case Seq2SeqTokenizer::M2m100:
      return (n == 6 || n == 7) && code.rfind("__", 0) == 0 && code.compare(n - 2, 2, "__") == 0 && lower(code[2]) &&
             lower(code[3]) && (n == 6 || lower(code[4]));
    case Seq2SeqTokenizer::Mbart50:
      return n == 5 && lower(code[0]) && lower(code[1]) && code[2] == '_' && upper(code[3]) && upper(code[4]);
  }
  return false;
}

const char* example_code(Seq2SeqTokenizer layout) {
  return layout == Seq2SeqTokenizer::Nllb ? "fra_Latn" : layout == Seq2SeqTokenizer::M2m100 ? "__fr__" : "fr_XX";
}

// The codes the tokenizers fall back on when no file lists them: NLLB's 202, mBART-50's 52, M2M100's set named
// by tokenizer_config.json's "language_codes" ("m2m100", the default, or "wmt21"); an Error for an unknown set.
std::vector<std::string> builtin_code_list(const std::string& dir, Seq2SeqTokenizer layout) {
  if (layout == Seq2SeqTokenizer::Nllb) return nllb_builtin_codes();
  if (layout == Seq2SeqTokenizer::Mbart50) return mbart50_builtin_codes();
  std::string set = "m2m100";
  const std::string path = dir + "/tokenizer_config.json";
  if (std::filesystem::exists(path)) {
    const nlohmann::json j = parse_config_object(read_file(path), path);
    if (j.contains("language_codes") && !j["language_codes"].is_null()) {
      require(j["language_codes"].is_string(), path + ": \"language_codes\" must be a string (m2m100 or wmt21)");
      set = j["language_codes"].get<std::string>();
    }
  }
  std::vector<std::string> codes = m2m100_builtin_codes(set);
  require(!codes.empty(), path + ": \"language_codes\" is \"" + set + "\", not a code set of M2M100's tokenizer (m2m100 "
                          "or wmt21)");
  return codes;
}

// The tokenizer's language codes in order: the additional special tokens of tokenizer_config.json, else of
// special_tokens_map.json (strings, or AddedToken objects with "content"), else the tokenizer's built-in list.
std::vector<std::string> language_code_list(const std::string& dir, Seq2SeqTokenizer layout) {
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    const std::string path = dir + "/" + name;
    if (!std::filesystem::exists(path)) continue;
    const nlohmann::json j = parse_config_object(read_file(path), path);
    if (!j.contains("additional_special_tokens") || j["additional_special_tokens"].is_null()) continue;
    const nlohmann::json& list = j["additional_special_tokens"];
    require(list.is_array(), path + ": \"additional_special_tokens\" must be an array");
    std::vector<std::string> codes;
    for (const auto& entry : list) {
      const nlohmann::json& t = entry.is_object() && entry.contains("content") ? entry["content"] : entry;
      require(t.is_string(), path + ": \"additional_special_tokens\" must hold tokens");
      const std::string code = t.get<std::string>();
      require(is_family_code(code, layout), path + ": \"additional_special_tokens\" holds \"" + code +
                                                "\", not a language code of this tokenizer (such as " +
                                                example_code(layout) + ")");
      codes.push_back(code);
    }
    require(!codes.empty(), path + ": \"additional_special_tokens\" is empty: the model's language codes are missing");
    return codes;
  }
  return builtin_code_list(dir, layout);
}

std::string required_file(const std::string& dir, const char* name) {
  const std::string path = dir + "/" + name;
  require(std::filesystem::is_regular_file(path), path + ": missing (the checkpoint's tokenizer file)");
  return path;
}

}  // namespace

Seq2SeqVocabularies seq2seq_vocabularies(const std::string& dir, bool mbart, const ModelConfig& c) {
  Seq2SeqVocabularies out;
  out.layout = mbart ? Seq2SeqTokenizer::Mbart50
               : std::filesystem::exists(dir + "/vocab.json") ? Seq2SeqTokenizer::M2m100
                                                              : Seq2SeqTokenizer::Nllb;
  const std::string spm_path = required_file(dir, "sentencepiece.bpe.model");
  const std::string blob = read_file(spm_path);
  std::string where = spm_path;
  VocabIds ids;
  ids.unk_id = 3;
  if (out.layout == Seq2SeqTokenizer::M2m100) {
    const std::string json_path = required_file(dir, "vocab.json");
    ids.pieces = pieces_from_id_map(read_file(json_path), json_path);
    require(ids.pieces.size() > 3 && ids.pieces[3] == "<unk>", json_path + ": id 3 must be \"<unk>\"");
    where += " with " + json_path;
  } else {
    // fairseq's layout: its four specials, then SentencePiece's pieces past its own <unk>, <s>, </s>.
    const VocabIds own = sentencepiece_ids(blob, spm_path);
    require(own.pieces.size() > 3 && own.unk_id == 0,
            spm_path + ": not a fairseq-style SentencePiece model (<unk> 0, <s> 1, </s> 2)");
    ids.pieces = {"<s>", "<pad>", "</s>", "<unk>"};
    ids.pieces.insert(ids.pieces.end(), own.pieces.begin() + 3, own.pieces.end());
  }
  std::vector<std::pair<std::string, int>> codes;
  for (const std::string& code : language_code_list(dir, out.layout)) {
    codes.emplace_back(code, static_cast<int>(ids.pieces.size()));
    ids.pieces.push_back(code);
  }
  if (out.layout != Seq2SeqTokenizer::M2m100) ids.pieces.push_back("<mask>");
  // Rows past the tokenizer (fairseq pads its dictionary with made-up words).
  for (int k = 0; static_cast<int>(ids.pieces.size()) < c.src_vocab_size; ++k) {
    char word[32];
    std::snprintf(word, sizeof word, "madeupword%04d", k);
    ids.pieces.push_back(word);
  }
  require(static_cast<int>(ids.pieces.size()) == c.src_vocab_size,
          where + ": the tokenizer has " + std::to_string(ids.pieces.size()) + " ids with its language codes, but the "
                  "model's embedding has " + std::to_string(c.src_vocab_size) + " rows: not this model's tokenizer");
  out.languages = LanguageCodes(std::move(codes), where);
  if (out.layout == Seq2SeqTokenizer::Nllb && nllb_legacy_layout(dir)) out.languages.place_source_code_after(c.eos_id);
  Vocabulary vocabulary = Vocabulary::from_serialized(blob, std::move(ids), where);
  out.vocabs = ModelVocabularies{vocabulary, vocabulary, {}};
  check_vocabularies(out.vocabs, c, dir);
  return out;
}

}  // namespace heptapod
