// A decoder-only model's vocabulary as the tokenizer.ggml.* keys llama.cpp reads (docs/models.md section 4):
// - byte-level BPE (GPT-2's, and tokenizer.json tokenizers whose pre-tokenizer is GPT-2's, LLaMA 3's, Qwen's
//   or SmolLM's) as model "gpt2": the pieces, their merges, and the pre-tokenizer's name in llama.cpp
//   (tokenizer.ggml.pre "gpt-2", "llama-bpe", "qwen2", "smollm"); any other pre-tokenizer is an Error naming
//   it, as llama.cpp refuses a name it does not know;
// - SentencePiece-style tokenizers (tokenizer.json BPE with byte fallback and "▁" for spaces: LLaMA 2,
//   Mistral; and Heptapod's own SentencePiece vocabularies) as model "llama", with a score per piece, which
//   llama.cpp's tokenizer merges by (highest first). A tokenizer.json has no scores: a piece made by a merge
//   scores minus that merge's rank, so the merges apply in their order; other pieces score below every merge.
// Token types: special pieces are control tokens (3), added tokens that are not special user-defined (4),
// byte-fallback pieces bytes (6), the unknown piece unknown (2); an embedding table longer than the
// tokenizer (Qwen's) is padded with unused "[PAD<id>]" tokens (5), as llama.cpp's converter pads it.
#pragma once

#include <string>

#include "heptapod/data/vocabulary.h"
#include "heptapod/io/gguf_writer.h"
#include "heptapod/model/config.h"

namespace heptapod {

// Sets tokenizer.ggml.* (model, pre, tokens, token_type, scores or merges, the special ids from `config`
// and add_bos_token from its prompt_bos) for `vocab`, the vocabulary of `config`'s tgt_vocab_size rows.
// `where` names the model file in Errors.
void set_gguf_tokenizer(GgufWriter& writer, const Vocabulary& vocab, const ModelConfig& config,
                        const std::string& where);

}  // namespace heptapod
