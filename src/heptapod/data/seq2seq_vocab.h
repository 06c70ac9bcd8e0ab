// The tokenizers of the multilingual encoder-decoder checkpoints (heptapod convert --from m2m100 | mbart),
// read from the files each ships, with their language codes:
// - NLLB-200 and mBART-50: sentencepiece.bpe.model with fairseq's ids: <s> 0, <pad> 1, </s> 2, <unk> 3, the
//   model's other pieces one past their SentencePiece id, then the language codes ("fra_Latn", "fr_XX") in
//   the tokenizer's order, then <mask>;
// - M2M100: vocab.json (piece -> id) over sentencepiece.bpe.model, the codes ("__fr__") after its ids.
// The codes and their order are the tokenizer's additional special tokens (tokenizer_config.json, else
// special_tokens_map.json), else (older NLLB and M2M100 snapshots) the tokenizer's built-in list
// (data/builtin_language_codes.h). Ids past the tokenizer's that the embedding still has (M2M100's eight) are
// fairseq's "madeupwordNNNN" pieces, which text never produces.
#pragma once

#include <string>

#include "heptapod/data/language_codes.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/model/config.h"

namespace heptapod {

// Which tokenizer layout a directory holds: "nllb", "m2m100" (both --from m2m100, told apart by vocab.json)
// or "mbart50".
enum class Seq2SeqTokenizer { Nllb, M2m100, Mbart50 };

struct Seq2SeqVocabularies {
  ModelVocabularies vocabs;  // one vocabulary, both sides
  LanguageCodes languages;
  Seq2SeqTokenizer layout = Seq2SeqTokenizer::Nllb;
};

// dir: the checkpoint directory; mbart: whether it is mBART-50's (else NLLB's or M2M100's). A missing
// tokenizer file, a code list that is absent or not the family's, or a size that does not fit the model is
// an Error naming the file.
Seq2SeqVocabularies seq2seq_vocabularies(const std::string& dir, bool mbart, const ModelConfig& config);

}  // namespace heptapod
