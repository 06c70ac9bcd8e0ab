// Training a byte-level BPE vocabulary (`heptapod vocab --model byte-bpe`): the text cut by GPT-2's
// pre-tokenization, each part's bytes as symbols, then the most frequent adjacent pair merged again and again
// (counted over the parts with their frequencies; ties go to the pair of lower ids), until the vocabulary has
// `size` pieces or no pair occurs twice. The pieces: the special tokens first (ids 0, 1, ...), the 256 bytes,
// then one piece per merge.
#pragma once

#include <string>
#include <vector>

#include "heptapod/data/byte_bpe.h"

namespace heptapod {

ByteBpe train_byte_bpe(const std::vector<std::string>& texts, int size, const std::vector<std::string>& specials);

}  // namespace heptapod
