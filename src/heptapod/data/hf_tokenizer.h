// A Hugging Face tokenizer.json tokenizer (kind "tokenizer.json"): LLaMA 2 and 3, Mistral, Qwen, SmolLM and
// the other BPE tokenizers these files describe. Encoding runs Hugging Face's pipeline: the added tokens split
// out (data/hf_added_tokens.h), the normalizer on the text between them (hf_normalizers.h), the pre-tokenizer
// (hf_pre_tokenizers.h) and the BPE model on each piece (hf_bpe.h); it gives the text's ids alone, without
// the post-processor's template (hf_post_processor.h), whose ids begin_ids() and end_ids() tell. Decoding
// runs the decoder chain (hf_decoders.h) over the ids' pieces, the added tokens' text included. Text that is
// not valid UTF-8 is encoded with U+FFFD in place of its invalid bytes (Hugging Face takes strings only).
// The tokenizer travels in the model file as tokenizer.json's JSON with the tokenizer_config.json fields used
// (serialize()); any component the reader does not know is refused by name, never approximated.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heptapod/data/hf_added_tokens.h"
#include "heptapod/data/hf_bpe.h"
#include "heptapod/data/hf_decoders.h"
#include "heptapod/data/hf_normalizers.h"
#include "heptapod/data/hf_post_processor.h"
#include "heptapod/data/hf_pre_tokenizers.h"
#include "heptapod/data/hf_tokenizer_config.h"
#include "heptapod/data/tokenizer.h"

namespace heptapod {

class HfTokenizer : public Tokenizer {
 public:
  // tokenizer.json's root object and tokenizer_config.json's fields; `where` names them in errors.
  HfTokenizer(const nlohmann::json& tokenizer_json, hf::TokenizerConfig config, const std::string& where);
  // DIR/tokenizer.json, and DIR/tokenizer_config.json when it exists.
  static std::shared_ptr<HfTokenizer> from_directory(const std::string& dir);
  // The tokenizer serialize() wrote, parsed.
  static std::unique_ptr<HfTokenizer> from_serialized(const nlohmann::json& serialized, const std::string& where);

  std::string decode(const std::vector<int>& ids) const override;
  std::string serialize() const override { return serialized_; }
  const char* kind() const override { return "tokenizer.json"; }
  // Whether the piece begins with the mark a word's first piece carries (GPT-2's byte symbol for the space,
  // SentencePiece's "▁": whatever the pipeline makes of a space before a word); every piece does where the
  // pipeline leaves no mark.
  bool starts_word(int id) const override;
  // A special token's text as written; another's piece through the decoder chain one piece at a time, without
  // the steps that tidy a whole text's edges (hf::token_bytes).
  std::string token_bytes(int id) const override;

  // The ids the post-processor puts before and after a text's ids (LLaMA's <|begin_of_text|> or <s> before;
  // nothing for Qwen).
  const std::vector<int>& begin_ids() const { return template_.begin; }
  const std::vector<int>& end_ids() const { return template_.end; }
  // The ids of the special tokens tokenizer_config.json names, -1 for those it does not.
  struct SpecialIds {
    int bos = -1, eos = -1, unk = -1, pad = -1;
  };
  const SpecialIds& special_ids() const { return special_ids_; }
  // tokenizer_config.json's fields (add_bos_token and add_eos_token among them, where it has them).
  const hf::TokenizerConfig& config() const { return config_; }

 private:
  void encode_text(std::string_view text, std::vector<int>& out) const override;
  void build_table(const std::string& where);

  hf::TokenizerConfig config_;
  std::vector<hf::Normalizer> normalizers_;
  std::vector<hf::PreTokenizer> pre_tokenizers_;
  hf::Bpe model_;
  hf::AddedTokens added_;
  hf::Template template_;
  std::vector<hf::Decoder> decoders_;
  SpecialIds special_ids_;
  std::string word_mark_;  // empty: every piece begins a word
  std::string serialized_;
};

// The tokenizer of a vocabulary, or null when it is of another kind.
const HfTokenizer* hf_tokenizer(const Tokenizer* tokenizer);

}  // namespace heptapod
