// DocumentStream: a corpus of documents as one token stream, and its causal blocks.
#include "heptapod/data/document_stream.h"

#include <algorithm>

namespace heptapod {

DocumentStream::DocumentStream(const DocumentCorpus& corpus, const ModelConfig& model)
    : corpus_(corpus), bos_(model.bos_id), eos_(model.eos_id), pad_(model.pad_id), size_(start(corpus.size())) {}

void DocumentStream::read(std::int64_t begin, int count, int* out) const {
  // The document holding `begin`: the last one starting at or before it.
  const std::size_t n = corpus_.size();
  std::size_t lo = 0, hi = n;  // start(lo) <= begin < start(hi)
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (start(mid) <= begin ? lo : hi) = mid;
  }
  std::size_t d = lo;
  std::int64_t at = begin - start(d);  // 0: bos, 1..length: the tokens, length + 1: eos
  for (int k = 0; k < count; ++k) {
    const std::span<const int> tokens = corpus_.document(d);
    const auto length = static_cast<std::int64_t>(tokens.size());
    out[k] = at == 0 ? bos_ : at <= length ? tokens[at - 1] : eos_;
    if (++at > length + 1) {
      ++d;
      at = 0;
    }
  }
}

Batch DocumentStream::batch(const std::vector<std::int64_t>& blocks, int context) const {
  std::vector<std::int64_t> begins;
  std::vector<int> lengths;
  for (const std::int64_t block : blocks) {
    begins.push_back(block * context);
    lengths.push_back(static_cast<int>(std::min<std::int64_t>(context, size_ - 1 - block * context)));
  }
  return windows(begins, lengths);
}

Batch DocumentStream::windows(const std::vector<std::int64_t>& begins, int length) const {
  return windows(begins, std::vector<int>(begins.size(), length));
}

Batch DocumentStream::windows(const std::vector<std::int64_t>& begins, const std::vector<int>& lengths) const {
  Batch b;
  b.B = static_cast<int>(begins.size());
  b.T = *std::max_element(lengths.begin(), lengths.end());
  b.tgt_in.assign(static_cast<std::size_t>(b.B) * b.T, pad_);
  b.tgt_out.assign(b.tgt_in.size(), pad_);
  b.tgt_len = lengths;
  b.src_len.assign(b.B, 0);
  std::vector<int> tokens(static_cast<std::size_t>(b.T) + 1);  // (length + 1) a window's inputs and its last target
  for (int i = 0; i < b.B; ++i) {
    const int length = lengths[i];
    read(begins[i], length + 1, tokens.data());
    std::copy_n(tokens.begin(), length, b.tgt_in.begin() + static_cast<long>(i) * b.T);
    std::copy_n(tokens.begin() + 1, length, b.tgt_out.begin() + static_cast<long>(i) * b.T);
  }
  return b;
}

}  // namespace heptapod
