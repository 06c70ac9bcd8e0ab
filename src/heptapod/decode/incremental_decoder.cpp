// Incremental decoding: one position per call, caching self-attention keys/values per layer.
#include "heptapod/decode/incremental_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "heptapod/core/error.h"
#include "heptapod/core/pages.h"
#include "heptapod/kernels/cached_attention.h"
#include "heptapod/kernels/half.h"
#include "heptapod/kernels/logits_top.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod {

namespace {

constexpr int kStageRows = 256;  // source rows projected to cross keys/values at a time

// log(e^a + e^b) = max + log1p(e^(min - max)): a row's running log-sum-exp (a) and one more block's (b).
float add_log_sums(float a, float b) { return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b))); }

}  // namespace

IncrementalDecoder::IncrementalDecoder(Transformer<float>& model)
    : model_(model), config_(model.config()), cross_kv_(config_.decoder_layers) {}

void IncrementalDecoder::start(const int* src, int B, int S, const int* src_len, int rows_per_sentence, int max_steps,
                               CachePrecision cache) {
  require(B > 0 && rows_per_sentence > 0 && max_steps > 0, "decoder: empty batch");
  require((S > 0) == config_.has_encoder(), config_.has_encoder() ? "decoder: empty sources"
                                                                   : "decoder: a decoder-only model reads no source");
  const int C = config_.d_model;
  cache_ = cache;
  const std::size_t element = cache == CachePrecision::Float16 ? sizeof(kernels::half) : sizeof(float);
  B_ = B;
  S_ = S;
  rows_ = B * rows_per_sentence;
  cache_rows_ = rows_;
  position_ = 0;
  max_steps_ = max_steps;
  src_len_.assign(src_len, src_len + B);
  row_sentence_.resize(rows_);
  for (int r = 0; r < rows_; ++r) row_sentence_[r] = r / rows_per_sentence;

  arena_.reset();
  model_.prepare_decoding();
  if (config_.has_encoder()) start_cross_attention(src, B, S, src_len, element);
  const std::size_t cache_bytes =
      static_cast<std::size_t>(max_steps) * config_.decoder_layers * rows_ * 2 * C * element;
  self_cache_.reset(cache_bytes);
  advise_huge_pages(self_cache_.as<void>(), cache_bytes);
  slab_start_.assign(max_steps, 0);
  slab_rows_.assign(max_steps, 0);
  history_.resize(static_cast<std::size_t>(max_steps) * cache_rows_);
  int widest = 0;
  for (const auto& [v0, n] : model_.output_column_blocks()) widest = std::max(widest, n);
  logits_.resize(static_cast<std::size_t>(rows_) * widest);
  log_z_.resize(rows_);
  top_count_.resize(rows_);
  scores_.resize(static_cast<std::size_t>(rows_) * config_.n_heads * std::max(S, max_steps));
  alignment_.resize(static_cast<std::size_t>(rows_) * S);
}

void IncrementalDecoder::start_cross_attention(const int* src, int B, int S, const int* src_len, std::size_t element) {
  const int C = config_.d_model;
  float* memory = model_.encode(src, B, S, src_len, arena_);  // (B*S, C)
  // Cross-attention reads only real source positions: pack them sentence after sentence (N, C), in place,
  // and project those alone.
  cross_offset_.resize(B);
  int N = 0;
  for (int b = 0; b < B; ++b) {
    cross_offset_[b] = N;
    const int n = std::clamp(src_len[b], 0, S);
    std::memmove(memory + static_cast<long>(N) * C, memory + static_cast<long>(b) * S * C, sizeof(float) * n * C);
    N += n;
  }
  stage_.resize(static_cast<std::size_t>(std::min(N, kStageRows)) * 2 * C);
  const std::size_t cross_elements = static_cast<std::size_t>(std::max(N, 1)) * 2 * C;
  for (int layer = 0; layer < config_.decoder_layers; ++layer) {
    cross_kv_[layer] = arena_.alloc<std::byte>(cross_elements * element);
    for (int r0 = 0; r0 < N; r0 += kStageRows) {  // (rows, 2C) k|v at a time
      const int rows = std::min(kStageRows, N - r0);
      model_.source_keys_values(layer, memory + static_cast<long>(r0) * C, rows, stage_.data());
      store(stage_.data(), 2L * C, rows, cross_kv_[layer], static_cast<long>(r0) * 2 * C);
    }
  }
}

void IncrementalDecoder::store(const float* src, long ld, int n, void* dst, long offset) const {
  const long width = 2L * config_.d_model;
#pragma omp parallel for schedule(static) if (n * width >= kernels::kParallelMinWork)
  for (int r = 0; r < n; ++r) {
    const long at = offset + r * width;
    if (cache_ == CachePrecision::Float16)
      kernels::to_half(src + r * ld, static_cast<kernels::half*>(dst) + at, width);
    else
      std::memcpy(static_cast<float*>(dst) + at, src + r * ld, sizeof(float) * width);
  }
}

void IncrementalDecoder::attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out) {
  if (cache_ == CachePrecision::Float16)
    attend<kernels::half>(q, ldq, li, cross, out, probs_out);
  else
    attend<float>(q, ldq, li, cross, out, probs_out);
}

template <typename E>
void IncrementalDecoder::attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out) {
  const int C = config_.d_model, H = config_.n_heads, D = C / H;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const int key_cap = std::max(S_, max_steps_);
  // Keys and values alternate, C elements each: a key's value is C elements after it.
  const E* keys = cross ? static_cast<const E*>(cross_kv_[li]) : self_cache_.as<const E>();
  // One row at a time, all heads together: each key and value vector (C elements) is read once, contiguously.
#pragma omp parallel for schedule(dynamic, 4) if (static_cast<long>(rows_) * H * (position_ + 1) * D > kernels::kParallelMinWork)
  for (int r = 0; r < rows_; ++r) {
    // Cross keys are (N, 2C) rows, a sentence's from its cross_offset_; row r's cached self key at position j
    // is row history_(j, r) of layer li's part of slab j.
    const int count = cross ? std::clamp(src_len_[row_sentence_[r]], 0, S_) : position_ + 1;
    float* o = out + static_cast<long>(r) * C;
    if (count <= 0) {
      std::fill(o, o + C, 0.0f);
      continue;
    }
    thread_local std::vector<long> offsets;  // (count): where position j's key starts
    offsets.resize(count);
    for (int j = 0; j < count; ++j) {
      const int history = cross ? 0 : history_[static_cast<std::size_t>(j) * cache_rows_ + r];
      const long slab_row = cross ? cross_offset_[row_sentence_[r]] + j : static_cast<long>(li) * slab_rows_[j] + history;
      offsets[j] = (cross ? 0 : slab_start_[j]) + slab_row * 2 * C;
    }
    kernels::attend_cached(q + static_cast<long>(r) * ldq, keys, keys + C, offsets.data(), count, H, D, scale,
                           scores_.data() + static_cast<long>(r) * H * key_cap, key_cap, o);
  }
  if (!probs_out) return;
  // Alignment: head-averaged attention over the source, (rows, S).
  std::fill(probs_out, probs_out + static_cast<long>(rows_) * S_, 0.0f);
  for (int r = 0; r < rows_; ++r) {
    const int count = std::min(src_len_[row_sentence_[r]], S_);
    for (int h = 0; h < H; ++h) {
      const float* s = scores_.data() + static_cast<long>(r * H + h) * key_cap;
      for (int j = 0; j < count; ++j) probs_out[static_cast<long>(r) * S_ + j] += s[j] / H;
    }
  }
}

void IncrementalDecoder::attend_self(int layer, const float* q, int ldq, const float* kv, int ldkv, float* context) {
  const long slab_layer = static_cast<long>(layer) * rows_ * 2 * config_.d_model;  // layer's part of this slab
  store(kv, ldkv, rows_, self_cache_.as<void>(), slab_start_[position_] + slab_layer);
  attend(q, ldq, layer, false, context, nullptr);
}

void IncrementalDecoder::attend_source(int layer, const float* q, int ldq, float* context) {
  const bool last = layer + 1 == config_.decoder_layers;
  attend(q, ldq, layer, true, context, last ? alignment_.data() : nullptr);
}

const float* IncrementalDecoder::advance(const std::vector<int>& tokens) {
  require(static_cast<int>(tokens.size()) == rows_, "decoder: one token per row expected");
  require(position_ < max_steps_, "decoder: past the maximum output length");
  const int C = config_.d_model, V = config_.tgt_vocab_size;
  for (int t : tokens) require(t >= 0 && t < V, "decoder: token id outside the target vocabulary");
  // This position's slab follows the last one and holds the rows decoding now, row r's keys and values at
  // slab row r.
  const long L = config_.decoder_layers;
  slab_start_[position_] = position_ == 0 ? 0 : slab_start_[position_ - 1] + L * slab_rows_[position_ - 1] * 2 * C;
  slab_rows_[position_] = rows_;
  for (int r = 0; r < rows_; ++r) history_[static_cast<std::size_t>(position_) * cache_rows_ + r] = r;
  step_arena_.reset();
  step_positions_.assign(rows_, position_);
  return model_.decode_step(tokens.data(), step_positions_.data(), rows_, *this, step_arena_);  // (rows, C)
}

const NextTokens& IncrementalDecoder::step(const std::vector<int>& tokens, int top) {
  require(top >= 1 && top <= config_.tgt_vocab_size, "decoder: top tokens must be between 1 and the vocabulary size");
  const float* x = advance(tokens);  // (rows, C)
  // The vocabulary a block of columns at a time, for all rows: the weights are read once, and only one
  // block's logits are held. Each row keeps a running log-sum-exp and its best `top` logits.
  next_.top = top;
  next_.ids.resize(static_cast<std::size_t>(rows_) * top);
  next_.log_probs.resize(next_.ids.size());
  std::fill(top_count_.begin(), top_count_.begin() + rows_, 0);
  bool first = true;
  for (const auto& [v0, n] : model_.output_column_blocks()) {
    model_.project_output_columns(x, rows_, v0, n, logits_.data());  // (rows, n)
#pragma omp parallel for schedule(static) if (static_cast<long>(rows_) * n > kernels::kParallelMinWork)
    for (int r = 0; r < rows_; ++r) {
      const float* row = logits_.data() + static_cast<long>(r) * n;
      const std::size_t at = static_cast<std::size_t>(r) * top;
      const float log_sum =
          kernels::logits_top(row, n, v0, top, top_count_[r], next_.log_probs.data() + at, next_.ids.data() + at);
      log_z_[r] = first ? log_sum : add_log_sums(log_z_[r], log_sum);
    }
    first = false;
  }
  for (int r = 0; r < rows_; ++r)
    for (int j = 0; j < top; ++j) next_.log_probs[static_cast<std::size_t>(r) * top + j] -= log_z_[r];
  ++position_;
  return next_;
}

const float* IncrementalDecoder::step_logits(const std::vector<int>& tokens) {
  const float* x = advance(tokens);  // (rows, C)
  const int V = config_.tgt_vocab_size;
  full_logits_.resize(static_cast<std::size_t>(rows_) * V);
  for (const auto& [v0, n] : model_.output_column_blocks()) {
    model_.project_output_columns(x, rows_, v0, n, logits_.data());  // (rows, n)
    for (int r = 0; r < rows_; ++r)
      std::copy_n(logits_.data() + static_cast<long>(r) * n, n, full_logits_.data() + static_cast<long>(r) * V + v0);
  }
  ++position_;
  return full_logits_.data();
}

float IncrementalDecoder::best_of_row(const float* logits, int top, int* ids, float* log_probs) const {
  int count = 0;
  float log_z = 0;
  bool first = true;
  for (const auto& [v0, n] : model_.output_column_blocks()) {
    const float log_sum = kernels::logits_top(logits + v0, n, v0, top, count, log_probs, ids);
    log_z = first ? log_sum : add_log_sums(log_z, log_sum);
    first = false;
  }
  for (int j = 0; j < top; ++j) log_probs[j] -= log_z;
  return log_z;
}

void IncrementalDecoder::reorder(const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  for (int r : order) require(r >= 0 && r < rows_, "decoder: reorder index out of range");
  // The cached keys and values stay where they are: row i now continues row order[i]'s history.
  std::vector<int> history(static_cast<std::size_t>(position_) * n);  // (position_, n)
  for (int j = 0; j < position_; ++j)
    for (int i = 0; i < n; ++i)
      history[static_cast<std::size_t>(j) * n + i] = history_[static_cast<std::size_t>(j) * cache_rows_ + order[i]];
  for (int j = 0; j < position_; ++j)
    std::copy_n(history.data() + static_cast<std::size_t>(j) * n, n, history_.data() + static_cast<std::size_t>(j) * cache_rows_);
  std::vector<int> sentences(n);
  std::vector<float> alignment(static_cast<std::size_t>(n) * S_);
  for (int i = 0; i < n; ++i) {
    sentences[i] = row_sentence_[order[i]];
    std::memcpy(alignment.data() + static_cast<long>(i) * S_, alignment_.data() + static_cast<long>(order[i]) * S_,
                sizeof(float) * S_);
  }
  row_sentence_ = std::move(sentences);
  std::memcpy(alignment_.data(), alignment.data(), sizeof(float) * alignment.size());
  rows_ = n;
}

}  // namespace heptapod
