// Which models a server serves, and as what: `-m NAME=FILE` names a model (`-m es-en=mt.htp`,
// `-m writer=lm.htp`); a bare `-m FILE` (allowed for a single model) is "default". The file says the model's
// kind: a translation model (encoder-decoder) is named by its language pair SRC-TGT, optionally with a variant
// after a colon (`-m es-en:bible=mt.htp`, `--adapter es-en:software=adapter.htp`: several models of one pair,
// told apart by the variant), or left unnamed (to answer whatever codes a client sends); a language model generates, an encoder-only model classifies (when
// it has classes) or embeds. Language codes are ISO 639 style (letters, digits, '_'); names for the common
// ones are built in.
#pragma once

#include <optional>
#include <string>

#include "heptapod/model/config.h"

namespace heptapod {

enum class ModelKind { Translation, Generation, Classification, Embedding };

// "translation", "generation", "classification", "embedding".
const char* kind_name(ModelKind kind);
// What a model of this config is served as.
ModelKind model_kind(const ModelConfig& config);

struct ModelSpec {
  std::string name;            // as given; empty: unnamed
  std::string source, target;  // the name read as a language pair SRC-TGT[:VARIANT], when it reads as one
  std::string variant;         // what follows the pair's colon ("software" of es-en:software); empty: none
  std::string path;            // the model file (an adapter's: its base's, which the server finds)
  // `--adapter NAME=FILE`: a LoRA adapter file served over its base model (one of the -m models, whose weights
  // it shares); empty: none.
  std::string adapter;
  bool named() const { return !name.empty(); }
  std::string id() const { return named() ? name : "default"; }  // in replies, metrics and logs
};

// "NAME=PATH" or "PATH". Throws Error naming the text for an empty path or a malformed name (1-64 of
// [A-Za-z0-9_.:-]).
ModelSpec parse_model_spec(const std::string& text);
// "NAME=FILE" of --adapter: a named spec whose `adapter` is FILE and whose path (the base's) is left empty.
// Throws Error naming the text for a missing name or file, or a malformed name.
ModelSpec parse_adapter_spec(const std::string& text);
// Throws Error naming the spec unless it may serve a translation model: unnamed, or named SRC-TGT or
// SRC-TGT:VARIANT by two different language codes.
void check_translation_name(const ModelSpec& spec);
// 1-16 characters of [A-Za-z0-9_].
bool valid_language_code(const std::string& code);
// A name read as SRC-TGT[:VARIANT]: before and after the first '-' of the part before the first ':', and what
// follows the ':' (empty: none); nullopt when that part has no '-'. The codes are not checked.
struct PairName {
  std::string source, target, variant;
};
std::optional<PairName> split_pair_name(const std::string& name);
// The English name of an ISO 639-1 code ("es" -> "Spanish"); the code itself when not in the table.
std::string language_name(const std::string& code);

}  // namespace heptapod
