// The vocabularies of converted models, with their own ids: OPUS-MT's vocab.json over two SentencePiece
// models, fairseq's dict.txt files over one, or, for nn.Transformer models, SentencePiece models with their
// own ids or an id file; GPT-2's byte-level BPE, BERT's WordPiece and tokenizer.json tokenizers, as their own
// tokenizers. Every one is checked against the model config: its size against the embedding rows,
// and the special ids (pad, the decoder start, eos) against pieces that text can never produce.
#pragma once

#include <string>

#include "heptapod/data/model_vocab.h"
#include "heptapod/io/bert_import.h"
#include "heptapod/model/config.h"

namespace heptapod {

// dir: a MarianMT snapshot (vocab.json, source.spm, target.spm).
ModelVocabularies marian_vocabularies(const std::string& dir, const ModelConfig& config);

// dict.src.txt and dict.tgt.txt of `dir`, over the SentencePiece model at spm_path.
ModelVocabularies fairseq_vocabularies(const std::string& dir, const std::string& spm_path, const ModelConfig& config);

// SentencePiece models, each with an optional id file ("" for none: SentencePiece's own ids): one piece per line
// (the line number is its id) or a JSON object piece -> id. unk_piece names the unknown token in an id file.
struct VocabularyFiles {
  std::string source_spm, target_spm, source_ids, target_ids;
  std::string unk_piece = "<unk>";
};
ModelVocabularies vocabularies_from_files(const VocabularyFiles& files, const ModelConfig& config);

// dir: a GPT-2 snapshot: vocab.json and merges.txt (or OpenAI's encoder.json and vocab.bpe).
ModelVocabularies gpt2_vocabularies(const std::string& dir, const ModelConfig& config);

// dir: a Hugging Face snapshot with tokenizer.json (LLaMA, Mistral, Qwen...), and tokenizer_config.json when
// present: its tokenizer (data/hf_tokenizer.h). hf_tokenizer(vocabulary.tokenizer()) then gives the ids the
// post-processor adds around a prompt (begin_ids, end_ids) and the special tokens tokenizer_config.json names
// (special_ids: bos, eos, unk, pad; config(): add_bos_token, add_eos_token).
Vocabulary hf_tokenizer_vocabulary(const std::string& dir);

// dir: a BERT snapshot: vocab.txt, and tokenizer_config.json when present (do_lower_case, strip_accents,
// tokenize_chinese_chars, the special tokens); the ids of the special tokens the model needs.
struct BertVocabulary {
  Vocabulary vocabulary;
  BertSpecialIds ids;
};
BertVocabulary bert_vocabulary(const std::string& dir);

// dir: a RoBERTa snapshot (model_type "roberta": vocab.json and merges.txt, GPT-2's byte-level BPE with <s>,
// <pad>, </s>, <unk> and <mask> among its pieces) or an XLM-R one (model_type "xlm-roberta":
// sentencepiece.bpe.model under fairseq's ids: <s> 0, <pad> 1, </s> 2, <unk> 3, the SentencePiece model's
// pieces shifted by one, <mask> after them); the special ids the model needs (cls <s>, sep </s>). Special
// tokens written in text are read as the tokens; RoBERTa's <mask> takes the white space before it (tokenizer.json's
// added_tokens lstrip and rstrip flags where the snapshot has the file). A missing file is an Error naming it.
BertVocabulary roberta_vocabulary(const std::string& dir);

// Throws Error unless the vocabularies match the config's sizes and its special ids are special pieces.
void check_vocabularies(const ModelVocabularies& vocabs, const ModelConfig& config, const std::string& where);

}  // namespace heptapod
