// The token stream of a language model's documents: each document as bos, its tokens and eos, end to end;
// cut into blocks of causal inputs and their next tokens (decoder-only training), or read as a masked
// encoder's blocks are (data/masking.h).
#pragma once

#include <cstdint>
#include <vector>

#include "heptapod/data/document_corpus.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/config.h"

namespace heptapod {

// The token stream of a corpus of documents: document d as bos, its tokens, eos, documents end to end.
class DocumentStream {
 public:
  DocumentStream(const DocumentCorpus& corpus, const ModelConfig& model);
  std::int64_t size() const { return size_; }
  int bos_id() const { return bos_; }
  int pad_id() const { return pad_; }
  // Tokens [begin, begin + count) of the stream into out.
  void read(std::int64_t begin, int count, int* out) const;
  // The stream cut into blocks of `context` model inputs, each with its next tokens as targets (so block b
  // reads tokens [b * context, b * context + context] and the last block may be shorter).
  std::int64_t blocks(int context) const { return size_ > 1 ? (size_ - 2) / context + 1 : 0; }
  // The batch of the given blocks: inputs tgt_in, next tokens tgt_out, no source.
  Batch batch(const std::vector<std::int64_t>& blocks, int context) const;
  // The batch of windows of `length` inputs starting at each of `begins` (each within the stream, with its
  // next tokens: begin + length < size()).
  Batch windows(const std::vector<std::int64_t>& begins, int length) const;

 private:
  // Where document d starts in the stream.
  std::int64_t start(std::size_t d) const { return corpus_.token_offset(d) + 2 * static_cast<std::int64_t>(d); }
  // Windows [begins[i], + lengths[i]) as a batch's inputs, each with its next tokens as targets.
  Batch windows(const std::vector<std::int64_t>& begins, const std::vector<int>& lengths) const;
  const DocumentCorpus& corpus_;
  int bos_, eos_, pad_;
  std::int64_t size_ = 0;
};

}  // namespace heptapod
