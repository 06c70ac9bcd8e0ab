// A GGUF file's tokenizer (its tokenizer.ggml.* keys) as the Hugging Face tokenizer.json it was converted from,
// read by HfTokenizer, so that text tokenizes exactly as the original tokenizer did:
// - model "gpt2" (byte-level BPE): tokens, merges, and tokenizer.ggml.pre naming the pre-tokenizer (llama.cpp's
//   names: "llama-bpe" (LLaMA 3: its regex, ignore_merges), "qwen2" (NFC, single digits), "gpt-2", "smollm",
//   "starcoder", "refact" (digits split singly before GPT-2's regex) and their aliases); another pre is refused
//   by name;
// - model "llama" (SentencePiece BPE with byte fallback): tokens, scores and <0xXX> byte tokens, as LLaMA 2's
//   and Mistral's tokenizer.json (legacy: "▁" prepended, spaces as "▁"), its merges made from the scores as
//   Hugging Face's converter makes them (every split of a piece into two pieces, ranked by the piece's score).
// Control, unknown and user-defined tokens are added tokens; the bos, eos, unknown and padding ids and
// add_bos_token / add_eos_token become tokenizer_config.json's fields (the start token the post-processor adds).
#pragma once

#include <optional>

#include "heptapod/data/stored_chat_template.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/io/gguf_file.h"

namespace heptapod {

// The tokenizer; every message names the file and the key.
Vocabulary gguf_vocabulary(const GgufFile& gguf);

// tokenizer.chat_template with the special tokens' texts (bos_token, eos_token, unk_token, pad_token); none
// when the file has no template.
std::optional<StoredChatTemplate> gguf_chat_template(const GgufFile& gguf);

}  // namespace heptapod
