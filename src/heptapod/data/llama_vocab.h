// The vocabulary of a converted LLaMA-family model: its snapshot's tokenizer.json (and tokenizer_config.json),
// which also settles the config's token ids: sequences begin with the begin-of-text token the post-processor
// adds (LLaMA's <s> or <|begin_of_text|>: prompt_bos, bos_id) or, where it adds none (Qwen, LLaMA 3's first
// release), with their text; padding is tokenizer_config.json's pad_token where it names one. The tokenizer may
// hold fewer pieces than the embedding has rows (Qwen pads its table), never more.
#pragma once

#include <string>

#include "heptapod/data/model_vocab.h"
#include "heptapod/model/config.h"

namespace heptapod {

ModelVocabularies llama_vocabularies(const std::string& directory, ModelConfig& config);

}  // namespace heptapod
