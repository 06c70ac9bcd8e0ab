// Batch construction and validation.
#include "heptapod/model/batch.h"

#include <algorithm>
#include <string>

#include "heptapod/core/error.h"

namespace heptapod {

long long Batch::target_tokens() const {
  long long n = 0;
  for (int l : tgt_len) n += l;
  for (int t : mlm_targets) n += t >= 0 ? 1 : 0;
  if (!labels.empty()) n += B;
  return n;
}

PackedBatch::PackedBatch(const Batch& b)
    : src(b.src_len.data(), b.B),
      tgt(b.tgt_len.data(), b.B),
      src_tokens(src.pack(b.src.data(), b.S)),
      tgt_in(tgt.pack(b.tgt_in.data(), b.T)),
      tgt_out(tgt.pack(b.tgt_out.data(), b.T)),
      encoder_self(src, src, false),
      decoder_self(tgt, tgt, true),
      cross(tgt, src, false) {
  labels = b.labels;
  if (!b.src_types.empty()) src_types = src.pack(b.src_types.data(), b.S);
  if (b.mlm_targets.empty()) return;
  const std::vector<int> targets = src.pack(b.mlm_targets.data(), b.S);  // (src.rows())
  for (std::size_t n = 0; n < targets.size(); ++n)
    if (targets[n] >= 0) {
      mlm_rows.push_back(static_cast<int>(n));
      mlm_targets.push_back(targets[n]);
    }
}

PaddedSources pad_sources(const std::vector<std::vector<int>>& sources, const ModelConfig& config) {
  PaddedSources p;
  p.S = config.has_encoder() ? 1 : 0;  // a decoder-only model reads no source
  const int extra = config.source_eos && config.has_encoder() ? 1 : 0;  // the end token read after each source
  for (const auto& s : sources) p.S = std::max(p.S, static_cast<int>(s.size()) + extra);
  p.tokens.assign(sources.size() * p.S, config.pad_id);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& s = sources[i];
    std::copy(s.begin(), s.end(), p.tokens.begin() + static_cast<long>(i) * p.S);
    if (extra) p.tokens[i * p.S + s.size()] = config.eos_id;
    p.lengths.push_back(static_cast<int>(s.size()) + extra);
  }
  return p;
}

Batch make_batch(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                 const ModelConfig& config) {
  require(sources.size() == targets.size(), "make_batch: " + std::to_string(sources.size()) + " sources but " +
                                                std::to_string(targets.size()) + " targets");
  Batch b;
  b.B = static_cast<int>(sources.size());
  PaddedSources padded = pad_sources(sources, config);
  b.S = padded.S;
  b.src = std::move(padded.tokens);
  b.src_len = std::move(padded.lengths);
  b.T = 1;
  for (const auto& t : targets) b.T = std::max(b.T, static_cast<int>(t.size()) + 1);
  b.tgt_in.assign(static_cast<std::size_t>(b.B) * b.T, config.pad_id);
  b.tgt_out.assign(static_cast<std::size_t>(b.B) * b.T, config.pad_id);
  for (int i = 0; i < b.B; ++i) {
    const auto& t = targets[i];
    int* in = b.tgt_in.data() + static_cast<long>(i) * b.T;
    int* out = b.tgt_out.data() + static_cast<long>(i) * b.T;
    in[0] = config.bos_id;
    std::copy(t.begin(), t.end(), in + 1);
    std::copy(t.begin(), t.end(), out);
    out[t.size()] = config.eos_id;
    b.tgt_len.push_back(static_cast<int>(t.size()) + 1);
  }
  validate_batch(b, config);
  return b;
}

namespace {

// An encoder-only model's batch: sources alone (T 0, every target length 0), token types within the
// model's, masked-language-model targets (-1 or a token id) or labels for the head the model has.
void validate_encoder_batch(const Batch& b, const ModelConfig& c) {
  const std::size_t cells = static_cast<std::size_t>(b.B) * b.S;
  require(b.B > 0 && b.S > 0 && b.T == 0, "batch: an encoder-only model reads sources alone (S > 0, T 0)");
  require(b.src.size() == cells && b.src_len.size() == static_cast<std::size_t>(b.B) && b.tgt_in.empty() &&
              b.tgt_out.empty() && b.tgt_len == std::vector<int>(static_cast<std::size_t>(b.B), 0) &&
              (b.src_types.empty() || b.src_types.size() == cells) && (b.mlm_targets.empty() || b.mlm_targets.size() == cells),
          "batch: tensor sizes do not match B and S");
  for (int i = 0; i < b.B; ++i)
    require(b.src_len[i] >= 1 && b.src_len[i] <= b.S, "batch: source length out of range in row " + std::to_string(i));
  for (std::size_t k = 0; k < cells; ++k) {
    require(b.src[k] >= 0 && b.src[k] < c.src_vocab_size,
            "batch: source token id " + std::to_string(b.src[k]) + " at position " + std::to_string(k) +
                " is outside the vocabulary of " + std::to_string(c.src_vocab_size));
    require(b.src_types.empty() || (b.src_types[k] >= 0 && b.src_types[k] < std::max(c.token_types, 1)),
            "batch: token type " + (b.src_types.empty() ? std::string() : std::to_string(b.src_types[k])) +
                " at position " + std::to_string(k) + " is outside the model's " + std::to_string(c.token_types));
    require(b.mlm_targets.empty() || (b.mlm_targets[k] >= -1 && b.mlm_targets[k] < c.src_vocab_size),
            "batch: masked target at position " + std::to_string(k) + " is neither -1 nor a token id");
  }
  require(b.mlm_targets.empty() || c.mlm_head, "batch: masked targets for a model without the masked-LM head");
  require(b.labels.empty() || c.labels > 0, "batch: labels for a model without a classifier");
  if (b.labels.empty()) return;
  const std::size_t want = static_cast<std::size_t>(b.B) * (c.multi_label ? c.labels : 1);
  require(b.labels.size() == want, "batch: " + std::to_string(b.labels.size()) + " labels for " + std::to_string(b.B) +
                                       " sentences (want " + std::to_string(want) + ")");
  for (std::size_t k = 0; k < want; ++k)
    require(c.multi_label ? b.labels[k] == 0 || b.labels[k] == 1 : b.labels[k] >= 0 && b.labels[k] < c.labels,
            "batch: label " + std::to_string(b.labels[k]) + " of entry " + std::to_string(k) + " is out of range");
}

}  // namespace

void validate_batch(const Batch& b, const ModelConfig& c) {
  if (!c.has_decoder()) return validate_encoder_batch(b, c);
  require(b.src_types.empty() && b.mlm_targets.empty() && b.labels.empty(),
          "batch: token types, masked targets and labels are an encoder-only model's");
  require(b.B > 0 && b.T > 0 && (b.S > 0) == c.has_encoder(),
          c.has_encoder() ? "batch: empty dimensions" : "batch: a decoder-only model reads no source (S must be 0)");
  require(b.src.size() == static_cast<std::size_t>(b.B) * b.S && b.src_len.size() == static_cast<std::size_t>(b.B) &&
              b.tgt_in.size() == static_cast<std::size_t>(b.B) * b.T &&
              b.tgt_out.size() == static_cast<std::size_t>(b.B) * b.T && b.tgt_len.size() == static_cast<std::size_t>(b.B),
          "batch: tensor sizes do not match B, S, T");
  for (int i = 0; i < b.B; ++i) {
    require(b.src_len[i] >= 0 && b.src_len[i] <= b.S, "batch: source length out of range in row " + std::to_string(i));
    require(b.tgt_len[i] >= 1 && b.tgt_len[i] <= b.T, "batch: target length out of range in row " + std::to_string(i));
  }
  auto check_ids = [](const std::vector<int>& ids, int vocab, const char* what) {
    for (std::size_t k = 0; k < ids.size(); ++k)
      if (ids[k] < 0 || ids[k] >= vocab)  // the message is built only then, not once per token
        throw Error(std::string("batch: ") + what + " token id " + std::to_string(ids[k]) + " at position " +
                    std::to_string(k) + " is outside the vocabulary of " + std::to_string(vocab));
  };
  check_ids(b.src, c.src_vocab_size, "source");
  check_ids(b.tgt_in, c.tgt_vocab_size, "target input");
  check_ids(b.tgt_out, c.tgt_vocab_size, "target output");
}

}  // namespace heptapod
