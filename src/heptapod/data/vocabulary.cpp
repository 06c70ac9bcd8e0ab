// SentencePiece-backed vocabulary.
#include "heptapod/data/vocabulary.h"

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <unordered_map>

#include "heptapod/core/error.h"
#include "heptapod/data/byte_bpe_training.h"
#include "heptapod/data/tokenizer.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

namespace {

class VectorIterator : public sentencepiece::SentenceIterator {
 public:
  explicit VectorIterator(const std::vector<std::string>& v) : v_(v) {}
  bool done() const override { return i_ >= v_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return v_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& v_;
  std::size_t i_ = 0;
};

}  // namespace

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

VocabConfig::Model vocab_model_from_name(const std::string& name) {
  if (name == "bpe") return VocabConfig::Model::Bpe;
  if (name == "unigram") return VocabConfig::Model::Unigram;
  if (name == "char") return VocabConfig::Model::Char;
  if (name == "word") return VocabConfig::Model::Word;
  if (name == "byte-bpe") return VocabConfig::Model::ByteBpe;
  throw Error("unknown vocabulary model \"" + name + "\" (known: bpe, unigram, char, word, byte-bpe)");
}

Vocabulary Vocabulary::train(const std::vector<std::string>& sentences, const VocabConfig& c) {
  require(!sentences.empty(), "cannot train a vocabulary on no text");
  require(!c.byte_fallback || c.model == VocabConfig::Model::Bpe || c.model == VocabConfig::Model::Unigram,
          "--byte-fallback needs a bpe or unigram vocabulary (--model / --vocab-model); byte-bpe is made of bytes");
  if (c.model == VocabConfig::Model::ByteBpe) {  // Heptapod's special ids: pad 0, bos 1, eos 2, unk 3
    std::vector<std::string> specials = {"<pad>", "<s>", "</s>", "<unk>"};
    specials.insert(specials.end(), c.control_symbols.begin(), c.control_symbols.end());
    return from_tokenizer(std::make_shared<ByteBpe>(train_byte_bpe(sentences, c.size, specials)));
  }
  std::unordered_map<std::string, std::string> args = {
      {"model_type", c.model == VocabConfig::Model::Bpe       ? "bpe"
                     : c.model == VocabConfig::Model::Unigram ? "unigram"
                     : c.model == VocabConfig::Model::Char    ? "char"
                                                              : "word"},
      {"character_coverage", std::to_string(c.character_coverage)},
      {"input_sentence_size", std::to_string(c.max_training_sentences)},
      {"shuffle_input_sentence", "true"},
      {"pad_id", std::to_string(kPadId)},
      {"bos_id", std::to_string(kBosId)},
      {"eos_id", std::to_string(kEosId)},
      {"unk_id", std::to_string(kUnkId)},
      {"pad_piece", "<pad>"},
      {"num_threads", "2"},
      {"minloglevel", "2"},
  };
  if (c.model == VocabConfig::Model::Char || c.model == VocabConfig::Model::Word) {
    args["vocab_size"] = "1000000";
    args["hard_vocab_limit"] = "false";
    args["use_all_vocab"] = "true";
  } else {
    args["vocab_size"] = std::to_string(c.size);
    args["hard_vocab_limit"] = "false";  // a small corpus yields fewer pieces instead of an error
    if (c.byte_fallback) args["byte_fallback"] = "true";
  }
  if (!c.control_symbols.empty()) {  // ids right after the four specials, never produced from text
    std::string joined;
    for (const std::string& symbol : c.control_symbols) joined += (joined.empty() ? "" : ",") + symbol;
    args["control_symbols"] = joined;
  }
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned>(c.seed));
  VectorIterator it(sentences);
  std::string blob;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &it, &blob);
  require(status.ok(), "vocabulary training failed: " + status.ToString());
  return from_serialized(blob, "trained vocabulary");
}

namespace {

std::shared_ptr<sentencepiece::SentencePieceProcessor> load_processor(const std::string& blob, const std::string& where) {
  auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
  const auto status = processor->LoadFromSerializedProto(blob);
  require(status.ok(), where + ": not a valid SentencePiece model (" + status.ToString() + ")");
  return processor;
}

}  // namespace

Vocabulary Vocabulary::from_serialized(const std::string& blob, const std::string& where) {
  if (is_tokenizer_json(blob)) return from_tokenizer(tokenizer_from_json(blob, where));
  Vocabulary v;
  v.processor_ = load_processor(blob, where);
  require(v.processor_->pad_id() == kPadId && v.processor_->bos_id() == kBosId && v.processor_->eos_id() == kEosId &&
              v.processor_->unk_id() == kUnkId,
          where + ": the vocabulary's special ids must be pad 0, bos 1, eos 2, unk 3 (train it with heptapod vocab)");
  v.serialized_ = blob;
  return v;
}

Vocabulary Vocabulary::from_tokenizer(std::shared_ptr<const Tokenizer> tokenizer) {
  Vocabulary v;
  v.serialized_ = tokenizer->serialize();
  v.tokenizer_ = std::move(tokenizer);
  return v;
}

Vocabulary Vocabulary::from_serialized(const std::string& blob, VocabIds ids, const std::string& where) {
  if (is_tokenizer_json(blob))
    throw Error(where + ": a " + tokenizer_from_json(blob, where)->kind() +
                " tokenizer has its own ids; an id table is for SentencePiece models");
  Vocabulary v;
  v.processor_ = load_processor(blob, where);
  const int n = static_cast<int>(ids.pieces.size());
  require(n > 0, where + ": the id table is empty");
  require(ids.unk_id >= 0 && ids.unk_id < n, where + ": the unknown-token id " + std::to_string(ids.unk_id) +
                                                 " is not one of the table's " + std::to_string(n) + " ids");
  auto table = std::make_shared<IdTable>();
  table->by_piece.reserve(ids.pieces.size());
  for (int id = 0; id < n; ++id) {
    const bool fresh = table->by_piece.emplace(ids.pieces[id], id).second;
    require(fresh, where + ": piece \"" + ids.pieces[id] + "\" has two ids (" +
                       std::to_string(table->by_piece.at(ids.pieces[id])) + " and " + std::to_string(id) + ")");
  }
  nlohmann::json json{{"unk_id", ids.unk_id}, {"pieces", ids.pieces}};
  if (ids.written_specials) json["written_specials"] = true;
  if (!ids.lstrip_specials.empty()) json["lstrip_specials"] = ids.lstrip_specials;
  table->json = json.dump();
  table->table = std::move(ids);
  v.ids_ = table;
  v.serialized_ = blob;
  if (table->table.written_specials) {
    for (int id = 0; id < n; ++id)
      if (v.is_special(id) && !table->table.pieces[id].empty()) table->written.emplace_back(table->table.pieces[id], id);
    std::stable_sort(table->written.begin(), table->written.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }
  for (const std::string& p : table->table.lstrip_specials)
    require(std::any_of(table->written.begin(), table->written.end(), [&](const auto& w) { return w.first == p; }),
            where + ": \"" + p + "\" of lstrip_specials is not a special piece read in text (written_specials)");
  return v;
}

Vocabulary Vocabulary::load(const std::string& path) { return from_serialized(read_file(path), path); }

void Vocabulary::save(const std::string& path) const {
  write_file_atomic(path, [&](std::ostream& out) { out.write(serialized_.data(), static_cast<std::streamsize>(serialized_.size())); });
}

std::vector<int> Vocabulary::encode(std::string_view text) const {
  if (tokenizer_) return tokenizer_->encode(text);
  std::vector<int> ids;
  if (!ids_) {
    processor_->Encode(absl::string_view(text.data(), text.size()), &ids).IgnoreError();
    return ids;
  }
  if (!ids_->written.empty()) return encode_with_specials(text);
  std::vector<std::string> pieces;
  processor_->Encode(absl::string_view(text.data(), text.size()), &pieces).IgnoreError();
  ids.reserve(pieces.size());
  for (const auto& p : pieces) {
    const auto it = ids_->by_piece.find(p);
    ids.push_back(it == ids_->by_piece.end() ? ids_->table.unk_id : it->second);
  }
  return ids;
}

std::vector<int> Vocabulary::encode_with_specials(std::string_view text) const {
  std::vector<int> ids;
  std::size_t from = 0;  // the start of the text not yet encoded
  auto plain = [&](std::size_t end) {
    const std::string_view part = text.substr(from, end - from);
    if (part.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
    std::vector<std::string> pieces;
    processor_->Encode(absl::string_view(part.data(), part.size()), &pieces).IgnoreError();
    for (const auto& p : pieces) {
      const auto it = ids_->by_piece.find(p);
      ids.push_back(it == ids_->by_piece.end() ? ids_->table.unk_id : it->second);
    }
  };
  for (std::size_t at = 0; at < text.size();) {
    const auto match = std::find_if(ids_->written.begin(), ids_->written.end(), [&](const auto& special) {
      return text.compare(at, special.first.size(), special.first) == 0;
    });
    if (match == ids_->written.end()) {
      ++at;
      continue;
    }
    const auto& lstrip = ids_->table.lstrip_specials;
    const bool strips = std::find(lstrip.begin(), lstrip.end(), match->first) != lstrip.end();
    plain(strips ? end_before_white_space(text, from, at) : at);
    ids.push_back(match->second);
    at += match->first.size();
    from = at;
  }
  plain(text.size());
  return ids;
}

std::string Vocabulary::decode(const std::vector<int>& ids) const {
  if (tokenizer_) return tokenizer_->decode(ids);
  std::string text;
  if (!ids_) {
    processor_->Decode(ids, &text).IgnoreError();
    return text;
  }
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int id : ids)
    if (id >= 0 && id < size()) pieces.push_back(ids_->table.pieces[id]);
  processor_->Decode(pieces, &text).IgnoreError();
  return text;
}

const std::string& Vocabulary::serialized_ids() const {
  static const std::string none;
  return ids_ ? ids_->json : none;
}

VocabIds sentencepiece_ids(const std::string& blob, const std::string& where) {
  const auto processor = load_processor(blob, where);
  VocabIds ids;
  for (int id = 0; id < processor->GetPieceSize(); ++id) ids.pieces.push_back(processor->IdToPiece(id));
  ids.unk_id = processor->unk_id();
  return ids;
}

std::vector<ScoredPiece> sentencepiece_pieces(const std::string& blob, const std::string& where) {
  const auto processor = load_processor(blob, where);
  std::vector<ScoredPiece> pieces;
  for (int id = 0; id < processor->GetPieceSize(); ++id) {
    using Kind = ScoredPiece::Kind;
    const Kind kind = processor->IsUnknown(id)   ? Kind::Unknown
                      : processor->IsControl(id) ? Kind::Control
                      : processor->IsUnused(id)  ? Kind::Unused
                      : processor->IsByte(id)    ? Kind::Byte
                                                 : Kind::Normal;
    pieces.push_back({processor->IdToPiece(id), processor->GetScore(id), kind});
  }
  return pieces;
}

VocabIds vocab_ids_from_json(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": the id table is not a JSON object");
  require(j.contains("unk_id") && j["unk_id"].is_number_integer(), where + ": the id table needs an integer \"unk_id\"");
  require(j.contains("pieces") && j["pieces"].is_array(), where + ": the id table needs a \"pieces\" array");
  VocabIds ids;
  const auto unk = j["unk_id"].get<std::int64_t>();
  require(unk >= 0 && unk < static_cast<std::int64_t>(j["pieces"].size()),
          where + ": the id table's unk_id is not one of its ids");
  ids.unk_id = static_cast<int>(unk);
  if (j.contains("written_specials")) {
    require(j["written_specials"].is_boolean(), where + ": the id table's written_specials must be true or false");
    ids.written_specials = j["written_specials"].get<bool>();
  }
  if (j.contains("lstrip_specials")) {
    require(j["lstrip_specials"].is_array(), where + ": the id table's lstrip_specials must be an array of pieces");
    for (const auto& p : j["lstrip_specials"]) {
      require(p.is_string(), where + ": the id table's lstrip_specials must be strings");
      ids.lstrip_specials.push_back(p.get<std::string>());
    }
  }
  for (const auto& p : j["pieces"]) {
    require(p.is_string(), where + ": the id table's pieces must be strings");
    ids.pieces.push_back(p.get<std::string>());
  }
  return ids;
}

std::string Vocabulary::piece(int id) const {
  if (tokenizer_) return tokenizer_->table().contains(id) ? tokenizer_->table().piece(id) : std::string();
  if (!ids_) return processor_->IdToPiece(id);
  return id >= 0 && id < size() ? ids_->table.pieces[id] : std::string();
}

std::string Vocabulary::token_bytes(int id) const {
  if (tokenizer_) return tokenizer_->token_bytes(id);
  if (id < 0 || id >= size()) return {};
  const std::string p = piece(id);
  if (is_special(id)) return p;
  if (processor_->IsByte(processor_->PieceToId(p)))  // "<0xAB>"
    return std::string(1, static_cast<char>(std::stoi(p.substr(3, 2), nullptr, 16)));
  std::string bytes;
  static constexpr std::string_view kSpace = "\xe2\x96\x81";  // SentencePiece's space symbol, U+2581
  for (std::size_t at = 0; at < p.size();) {
    if (p.compare(at, kSpace.size(), kSpace) == 0) {
      bytes += ' ';
      at += kSpace.size();
    } else {
      bytes += p[at++];
    }
  }
  return bytes;
}

int Vocabulary::size() const {
  if (empty()) return 0;
  if (tokenizer_) return tokenizer_->table().size();
  return ids_ ? static_cast<int>(ids_->table.pieces.size()) : processor_->GetPieceSize();
}

int Vocabulary::id_of(const std::string& p) const {
  if (tokenizer_) return tokenizer_->table().id_of(p);
  if (ids_) {
    const auto it = ids_->by_piece.find(p);
    return it == ids_->by_piece.end() ? -1 : it->second;
  }
  const int id = processor_->PieceToId(p);
  return processor_->IdToPiece(id) == p ? id : -1;
}

bool Vocabulary::is_special(int id) const {
  if (tokenizer_) return !tokenizer_->table().contains(id) || tokenizer_->table().is_special(id);
  const std::string p = piece(id);
  const int own = processor_->PieceToId(p);
  if (processor_->IdToPiece(own) != p) return true;  // SentencePiece has no such piece
  return processor_->IsControl(own) || processor_->IsUnknown(own) || processor_->IsUnused(own);
}

bool Vocabulary::heptapod_ids() const {
  if (!tokenizer_) return processor_ && !ids_;
  const PieceTable& t = tokenizer_->table();
  return t.size() > kUnkId && t.piece(kPadId) == "<pad>" && t.piece(kBosId) == "<s>" && t.piece(kEosId) == "</s>" &&
         t.piece(kUnkId) == "<unk>";
}

bool Vocabulary::starts_word(int id) const {
  if (tokenizer_) return tokenizer_->starts_word(id);
  return piece(id).rfind("\xe2\x96\x81", 0) == 0;  // SentencePiece's space symbol, U+2581
}

std::uint64_t Vocabulary::fingerprint() const {
  std::uint64_t h = fnv1a(serialized_);
  if (ids_) {
    for (const auto& p : ids_->table.pieces) h = fnv1a(p + '\n', h);
    h = fnv1a(std::to_string(ids_->table.unk_id), h);
    if (ids_->table.written_specials) h = fnv1a("written_specials", h);
    for (const auto& p : ids_->table.lstrip_specials) h = fnv1a("lstrip " + p + '\n', h);
  }
  return h;
}

}  // namespace heptapod
