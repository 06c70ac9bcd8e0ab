// A padded batch as the model consumes it: sentence pairs (translation), blocks of text (a language model),
// or an encoder-only model's masked inputs.
#pragma once

#include <vector>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/sequences.h"
#include "heptapod/model/config.h"

namespace heptapod {

struct Batch {
  int B = 0;  // sentences
  int S = 0;  // padded source length (>= 1; 0 for a decoder-only model, which reads no source)
  int T = 0;  // padded target length (>= 1; 0 for an encoder-only model, which has no target side)
  std::vector<int> src;      // (B, S) source tokens, padded with pad_id
  std::vector<int> src_len;  // (B)
  std::vector<int> tgt_in;   // (B, T) bos + target tokens, padded
  std::vector<int> tgt_out;  // (B, T) target tokens + eos, padded
  std::vector<int> tgt_len;  // (B) target length including the bos/eos shift
  // An encoder-only model's: the token type (segment) of each source token, or empty (all type 0); and the
  // masked-language-model targets, the original token where the input is masked and -1 elsewhere.
  std::vector<int> src_types;    // (B, S) or empty
  std::vector<int> mlm_targets;  // (B, S)
  // An encoder-only classifier's: each sentence's class (B), or its classes as 0/1 (B, labels) for a
  // multi-label model.
  std::vector<int> labels;
  // Transformer-XL's training over parallel streams: the group of streams whose next segments these sentences
  // are (its segment memory continues them; -1: no streams), and whether they are the streams' first.
  int stream_group = -1;
  bool stream_start = false;
  // The terms of the loss: the target tokens, an encoder's masked tokens, or a classifier's sentences.
  long long target_tokens() const;
};

// A batch as the layers see it: every sentence's real tokens end to end, no padding, and the attention
// shapes over them. Not copyable: the shapes point into it.
struct PackedBatch {
  Sequences src, tgt;
  std::vector<int> src_tokens;     // (src.rows())
  std::vector<int> src_types;      // (src.rows()) or empty
  std::vector<int> mlm_rows;       // (Nm) the source rows with a masked-language-model target, in order
  std::vector<int> mlm_targets;    // (Nm) their targets
  std::vector<int> labels;         // a classifier's: as Batch::labels
  std::vector<int> tgt_in, tgt_out;  // (tgt.rows()) each
  AttentionShape encoder_self, decoder_self, cross;

  explicit PackedBatch(const Batch& batch);
  PackedBatch(const PackedBatch&) = delete;
  PackedBatch& operator=(const PackedBatch&) = delete;
};

// Source token sequences (without the end token) as the encoder reads them: each ends with eos_id when the
// model has source_eos, padded with pad_id to the longest, at least 1 (for a model without an encoder, whose
// sources are empty: 0).
struct PaddedSources {
  int S = 0;
  std::vector<int> tokens;   // (B, S)
  std::vector<int> lengths;  // (B) end token included
};
PaddedSources pad_sources(const std::vector<std::vector<int>>& sources, const ModelConfig& config);

// Pads token sequences (without bos/eos) into a batch, the sources by pad_sources; checks every id against
// the vocabularies.
Batch make_batch(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                 const ModelConfig& config);

// Checks shapes, lengths and token ids; throws Error naming the problem.
void validate_batch(const Batch& batch, const ModelConfig& config);

}  // namespace heptapod
