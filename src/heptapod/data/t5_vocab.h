// T5's vocabulary: the SentencePiece unigram model spiece.model with its own ids (pad 0, </s> 1, <unk> 2, as
// T5's models are trained) and, after its pieces, the sentinel tokens <extra_id_N> that Hugging Face's
// T5Tokenizer appends: extra_ids of them (tokenizer_config.json's "extra_ids", 100 by default), counted down
// from the end, <extra_id_0> being the last id, read whole in text with the text around them tokenized on its own
// (T5Tokenizer's legacy reading, its default; "legacy": false is refused). The same vocabulary on both sides.
#pragma once

#include <string>

#include "heptapod/data/model_vocab.h"
#include "heptapod/model/config.h"

namespace heptapod {

// dir: a T5 snapshot with spiece.model (and tokenizer_config.json when present).
ModelVocabularies t5_vocabularies(const std::string& dir, const ModelConfig& config);

}  // namespace heptapod
