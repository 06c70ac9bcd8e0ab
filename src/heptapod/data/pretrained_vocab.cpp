// Id tables of pre-trained models' vocabularies.
#include "heptapod/data/pretrained_vocab.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/data/byte_bpe.h"
#include "heptapod/data/hf_tokenizer.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/tokenizer.h"
#include "heptapod/data/wordpiece.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

namespace {

int unk_id_of(const VocabIds& ids, const std::string& unk_piece, const std::string& where) {
  for (std::size_t i = 0; i < ids.pieces.size(); ++i)
    if (ids.pieces[i] == unk_piece) return static_cast<int>(i);
  throw Error(where + ": has no unknown-token piece \"" + unk_piece + "\"");
}

// The white space RoBERTa's special tokens take in text: as tokenizer.json's added_tokens say (their lstrip and
// rstrip flags) where the snapshot has one, else the family's own (<mask> lstrip, as RobertaTokenizer makes it).
void strip_as_added_tokens(const std::string& tokenizer_json, Tokenizer& tokenizer) {
  if (!std::filesystem::is_regular_file(tokenizer_json)) {
    tokenizer.strip_around("<mask>", true, false, tokenizer_json);
    return;
  }
  const nlohmann::json j = parse_config_object(read_file(tokenizer_json), tokenizer_json);
  if (!j.contains("added_tokens")) return;
  require(j["added_tokens"].is_array(), tokenizer_json + ": \"added_tokens\" must be an array");
  for (const nlohmann::json& token : j["added_tokens"]) {
    const ConfigReader r{token, tokenizer_json + ": added token"};
    const std::string content = r.text("content", "");
    const bool lstrip = r.boolean("lstrip", false), rstrip = r.boolean("rstrip", false);
    const auto& specials = tokenizer.text_specials();
    if ((lstrip || rstrip) && std::find(specials.begin(), specials.end(), content) != specials.end())
      tokenizer.strip_around(content, lstrip, rstrip, tokenizer_json);
  }
}

// One piece per line; a fairseq dictionary's lines are "piece count [#fairseq:overwrite]".
std::vector<std::string> piece_lines(const std::string& path, bool with_counts) {
  std::vector<std::string> pieces;
  LineReader reader(path);
  for (std::string line; reader.next(line);) {
    const std::string where = path + ":" + std::to_string(reader.lines_read());
    if (with_counts) {
      const auto space = line.rfind(' ');
      require(space != std::string::npos && space > 0, where + ": expected \"piece count\"");
      std::string head = line.substr(0, space), tail = line.substr(space + 1);
      if (tail == "#fairseq:overwrite") {
        const auto s2 = head.rfind(' ');
        require(s2 != std::string::npos && s2 > 0, where + ": expected \"piece count\"");
        tail = head.substr(s2 + 1);
        head = head.substr(0, s2);
      }
      require(!tail.empty() && tail.find_first_not_of("0123456789") == std::string::npos,
              where + ": the count \"" + tail + "\" is not a number");
      line = head;
    }
    require(!line.empty(), where + ": empty piece");
    pieces.push_back(std::move(line));
  }
  return pieces;
}

Vocabulary with_ids(const std::string& spm_path, VocabIds ids, const std::string& where) {
  return Vocabulary::from_serialized(read_file(spm_path), std::move(ids), where);
}

}  // namespace

void check_vocabularies(const ModelVocabularies& v, const ModelConfig& c, const std::string& where) {
  require(vocabulary_fits(v.source, c.src_vocab_size) && vocabulary_fits(v.target, c.tgt_vocab_size),
          where + ": the vocabularies have " + std::to_string(v.source.size()) + " and " + std::to_string(v.target.size()) +
              " ids, the model's embeddings " + std::to_string(c.src_vocab_size) + " and " + std::to_string(c.tgt_vocab_size) +
              " rows");
  auto special = [&](const Vocabulary& vocab, int id, const char* field, const char* side) {
    // A padded table's ids past the tokenizer have no piece at all.
    const std::string what = id < vocab.size() ? "the " + std::string(side) + " piece \"" + vocab.piece(id) +
                                                     "\", which text tokenizes to"
                                               : "past the " + std::string(side) + " vocabulary's " +
                                                     std::to_string(vocab.size()) + " pieces";
    require(vocab.is_special(id), where + ": " + field + " " + std::to_string(id) + " is " + what +
                                      ": the id mapping is wrong");
  };
  if (c.has_decoder()) {
    special(v.target, c.pad_id, "pad_id", "target");
    special(v.target, c.bos_id, "bos_id (the decoder's start)", "target");
    special(v.target, c.eos_id, "eos_id", "target");
    for (int id : c.extra_eos_ids) special(v.target, id, "extra_eos_ids", "target");
  }
  if (c.has_encoder()) {
    special(v.source, c.pad_id, "pad_id", "source");
    if (c.source_eos) special(v.source, c.eos_id, "eos_id", "source");
  }
}

ModelVocabularies marian_vocabularies(const std::string& dir, const ModelConfig& c) {
  const std::string json_path = dir + "/vocab.json";
  VocabIds ids;
  ids.pieces = pieces_from_id_map(read_file(json_path), json_path);
  ids.unk_id = unk_id_of(ids, "<unk>", json_path);
  ModelVocabularies v{with_ids(dir + "/source.spm", ids, dir + "/source.spm with " + json_path),
                      with_ids(dir + "/target.spm", ids, dir + "/target.spm with " + json_path), {}};
  check_vocabularies(v, c, dir);
  return v;
}

ModelVocabularies fairseq_vocabularies(const std::string& dir, const std::string& spm_path, const ModelConfig& c) {
  auto load = [&](const std::string& name, int rows) {
    const std::string path = dir + "/" + name;
    VocabIds ids;
    ids.pieces = {"<s>", "<pad>", "</s>", "<unk>"};  // fairseq's Dictionary puts these first
    for (auto& p : piece_lines(path, true)) ids.pieces.push_back(std::move(p));
    const int n = static_cast<int>(ids.pieces.size());
    require(n == rows, path + ": " + std::to_string(n) + " ids with fairseq's four special ones, but the model's "
                              "embedding has " + std::to_string(rows) + " rows: not this model's dictionary");
    ids.unk_id = 3;
    return with_ids(spm_path, std::move(ids), spm_path + " with " + path);
  };
  ModelVocabularies v{load("dict.src.txt", c.src_vocab_size), load("dict.tgt.txt", c.tgt_vocab_size), {}};
  check_vocabularies(v, c, dir);
  return v;
}

ModelVocabularies vocabularies_from_files(const VocabularyFiles& f, const ModelConfig& c) {
  auto load = [&](const std::string& spm, const std::string& ids_path) {
    const std::string blob = read_file(spm);
    // Without an id file, SentencePiece's own ids, whatever its special ones are.
    if (ids_path.empty()) return Vocabulary::from_serialized(blob, sentencepiece_ids(blob, spm), spm);
    VocabIds ids;
    const std::string text = read_file(ids_path);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
      ids.pieces = pieces_from_id_map(text, ids_path);
    } else {
      ids.pieces = piece_lines(ids_path, false);
    }
    ids.unk_id = unk_id_of(ids, f.unk_piece, ids_path);
    return Vocabulary::from_serialized(blob, std::move(ids), spm + " with " + ids_path);
  };
  // Each stack the model has reads its vocabulary; a one-stack model's other side stays empty.
  const auto side = [&](bool used, const std::string& spm, const std::string& ids_path, const char* option) {
    const std::string kind = architecture_name(c.architecture);
    require(!used || !spm.empty(), std::string("a") + (kind == "encoder-decoder" ? "n " : " ") + kind +
                                       " model needs " + option + (kind == "encoder-decoder" ? " (the same file as the "
                                       "other side for a joint vocabulary)" : ""));
    require(used || spm.empty(), std::string(option) + ": a " + kind + " model has no such side");
    return used ? load(spm, ids_path) : Vocabulary{};
  };
  ModelVocabularies v{side(c.has_encoder(), f.source_spm, f.source_ids, "--source-spm"),
                      side(c.has_decoder(), f.target_spm, f.target_ids, "--target-spm"), {}};
  check_vocabularies(v, c, "the vocabularies");
  return v;
}

ModelVocabularies gpt2_vocabularies(const std::string& dir, const ModelConfig& c) {
  // Hugging Face's names, or OpenAI's (encoder.json and vocab.bpe) as the original release has them.
  const bool hf = std::filesystem::exists(dir + "/vocab.json") || !std::filesystem::exists(dir + "/encoder.json");
  const std::string vocab = dir + (hf ? "/vocab.json" : "/encoder.json"), merges = dir + (hf ? "/merges.txt" : "/vocab.bpe");
  ModelVocabularies v;
  v.target = Vocabulary::from_tokenizer(std::make_shared<ByteBpe>(ByteBpe::from_files(vocab, merges)));
  check_vocabularies(v, c, dir);
  return v;
}

Vocabulary hf_tokenizer_vocabulary(const std::string& dir) {
  return Vocabulary::from_tokenizer(HfTokenizer::from_directory(dir));
}

BertVocabulary bert_vocabulary(const std::string& dir) {
  WordPieceOptions o;
  BertVocabulary out;
  std::string cls = "[CLS]", sep = "[SEP]", pad = "[PAD]", mask = "[MASK]";
  const std::string config_path = dir + "/tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    const nlohmann::json j = parse_config_object(read_file(config_path), config_path);
    const ConfigReader r{j, config_path};
    // A special token is a string, or an object with its "content" (AddedToken).
    auto token = [&](const char* key, std::string& value) {
      if (!j.contains(key) || j[key].is_null()) return;
      const nlohmann::json& t = j[key].is_object() && j[key].contains("content") ? j[key]["content"] : j[key];
      require(t.is_string(), config_path + ": \"" + key + "\" must be a token");
      value = t.get<std::string>();
    };
    o.lowercase = r.boolean("do_lower_case", true);
    o.strip_accents = r.boolean("strip_accents", o.lowercase);
    o.split_cjk = r.boolean("tokenize_chinese_chars", true);
    token("unk_token", o.unk_piece);
    token("cls_token", cls);
    token("sep_token", sep);
    token("pad_token", pad);
    token("mask_token", mask);
    const std::string type = r.text("tokenizer_class", "BertTokenizer");
    require(type == "BertTokenizer" || type == "BertTokenizerFast",
            config_path + ": \"tokenizer_class\": \"" + type + "\" is not supported (BERT's WordPiece is "
                          "BertTokenizer)");
  }
  o.text_specials = {o.unk_piece, cls, sep, pad, mask};
  auto tokenizer = std::make_shared<WordPiece>(WordPiece::from_file(dir + "/vocab.txt", o));
  auto id = [&](const std::string& piece, const char* role) {
    const int found = tokenizer->table().id_of(piece);
    require(found >= 0, dir + "/vocab.txt: no " + role + " token \"" + piece + "\"");
    return found;
  };
  out.ids = {id(pad, "padding"), id(cls, "[CLS]"), id(sep, "[SEP]"), id(mask, "mask")};
  out.vocabulary = Vocabulary::from_tokenizer(std::move(tokenizer));
  return out;
}

BertVocabulary roberta_vocabulary(const std::string& dir) {
  const std::string config_path = dir + "/config.json";
  const nlohmann::json config = parse_config_object(read_file(config_path), config_path);
  const bool sentencepiece = ConfigReader{config, config_path}.text("model_type", "") == "xlm-roberta";
  auto need = [&](const char* name) {
    const std::string path = dir + "/" + name;
    require(std::filesystem::is_regular_file(path),
            path + ": missing (the " + std::string(sentencepiece ? "XLM-R" : "RoBERTa") + " tokenizer file)");
    return path;
  };
  BertVocabulary out;
  if (sentencepiece) {
    const std::string spm = need("sentencepiece.bpe.model");
    const std::string blob = read_file(spm);
    const std::vector<ScoredPiece> pieces = sentencepiece_pieces(blob, spm);
    // fairseq's dictionary: its four specials, then the pieces past SentencePiece's <unk>, <s>, </s>, then <mask>.
    require(pieces.size() > 3 && pieces[0].kind == ScoredPiece::Kind::Unknown && pieces[1].piece == "<s>" &&
                pieces[2].piece == "</s>",
            spm + ": not XLM-R's layout (SentencePiece ids 0, 1, 2 should be <unk>, <s>, </s>)");
    VocabIds ids;
    ids.pieces = {"<s>", "<pad>", "</s>", "<unk>"};
    for (std::size_t i = 3; i < pieces.size(); ++i) ids.pieces.push_back(pieces[i].piece);
    ids.pieces.push_back("<mask>");
    ids.unk_id = 3;
    ids.written_specials = true;  // <mask> (and <s>, </s>...) written in text read as the token, as Hugging Face
    ids.lstrip_specials = {"<mask>"};  // reads them; <mask> takes the white space before it (its lstrip)
    const int mask = static_cast<int>(ids.pieces.size()) - 1;
    out.vocabulary = Vocabulary::from_serialized(blob, std::move(ids), spm + " with fairseq's ids");
    out.ids = {1, 0, 2, mask};
    return out;
  }
  const std::string vocab = need("vocab.json"), merges = need("merges.txt");
  auto tokenizer = std::make_shared<ByteBpe>(ByteBpe::from_files(vocab, merges));
  auto id = [&](const char* piece) {
    const int found = tokenizer->table().id_of(piece);
    require(found >= 0, vocab + ": no \"" + std::string(piece) + "\" token");
    return found;
  };
  out.ids = {id("<pad>"), id("<s>"), id("</s>"), id("<mask>")};
  strip_as_added_tokens(dir + "/tokenizer.json", *tokenizer);
  out.vocabulary = Vocabulary::from_tokenizer(std::move(tokenizer));
  return out;
}

}  // namespace heptapod
