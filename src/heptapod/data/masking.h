// Masked-language-model inputs as BERT makes them: blocks of a document stream, each the start token
// ([CLS]) and then context - 1 tokens of the stream (documents as start, tokens, end ([SEP])), of whose
// ordinary tokens each is chosen with probability `rate` (whole words together, a word being a piece that
// begins with U+2581 and the pieces that continue it), at least one per block; a chosen token becomes the
// mask token (80%), a random ordinary token (10%) or stays (10%), and is the target of the loss. Every draw
// comes from a key (seed, epoch, batch) and the block's place in its batch, so a batch is masked the same
// whatever the process count and after a resume.
#pragma once

#include <cstdint>
#include <vector>

#include "heptapod/data/vocabulary.h"
#include "heptapod/model/batch.h"

namespace heptapod {

class DocumentStream;

// The piece an encoder's vocabulary holds for the mask token (a control symbol: text never tokenizes to it).
inline constexpr const char* kMaskPiece = "<mask>";

struct MaskingOptions {
  float rate = 0.15f;
  bool whole_words = false;
};

class MaskingPlan {
 public:
  // The vocabulary's ordinary ids (the ones text tokenizes to: the random replacements and the choosable
  // tokens) and word starts; mask_id is the model's.
  MaskingPlan(const Vocabulary& vocab, int mask_id, const MaskingOptions& options);
  // The encoder batch of `blocks` (their indices in the stream, blocks_of(context) of them): src the masked
  // inputs, mlm_targets the chosen tokens' originals (-1 elsewhere), src_types all 0.
  Batch batch(const DocumentStream& stream, const std::vector<std::int64_t>& blocks, int context,
              std::uint64_t key) const;
  // Blocks of a stream of `size` tokens: context - 1 stream tokens each (the last may be shorter).
  static std::int64_t blocks_of(std::int64_t size, int context) { return size > 0 ? (size - 1) / (context - 1) + 1 : 0; }
  // Masks one block in place: tokens (n) -> targets (n), -1 where not chosen.
  void mask(std::vector<int>& tokens, std::vector<int>& targets, std::uint64_t key) const;

 private:
  int mask_id_;
  MaskingOptions options_;
  std::vector<char> ordinary_;    // (V) 1: an id text tokenizes to
  std::vector<char> word_start_;  // (V) 1: a piece that begins a word
  std::vector<int> replacements_; // the ordinary ids, for the 10% random replacements
};

}  // namespace heptapod
