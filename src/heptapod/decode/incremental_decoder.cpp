// The decoder state: cached keys and values per row, fed one position or a run of positions per call.
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

std::size_t IncrementalDecoder::element_bytes() const {
  return cache_ == CachePrecision::Float16 ? sizeof(kernels::half) : sizeof(float);
}

void IncrementalDecoder::start(const int* src, int B, int S, const int* src_len, int rows_per_sentence, int max_steps,
                               CachePrecision cache) {
  require(max_steps > 0, "decoder: max_steps must be positive");
  cache_ = cache;
  max_steps_ = max_steps;
  S_ = rows_ = cross_used_ = cross_live_ = 0;
  src_len_.clear();
  cross_offset_.clear();
  sentence_rows_.clear();
  row_sentence_.clear();
  length_.clear();
  history_.clear();
  slot_refs_.clear();
  free_slots_.clear();
  slots_made_ = 0;
  model_.prepare_decoding();
  // A relative model's distance projections up to the longest run (per layer, from its current weights).
  relative_projected_.clear();
  for (int li = 0; li < config_.decoder_layers && config_.relative_positions; ++li) {
    std::vector<float> encodings;
    relative_projected_.emplace_back();
    relative_encodings(*model_.relative_positions(li), config_.d_model, max_steps, encodings, relative_projected_.back());
  }
  // Room for every row at every position: what a search from start() can need at most (unwritten pages cost
  // nothing). Joining rows later may grow it.
  const long L = config_.decoder_layers, K = config_.key_value_width();
  const long long slots = static_cast<long long>(B) * rows_per_sentence * max_steps;
  require(slots <= (1LL << 30), "decoder: " + std::to_string(slots) + " cached positions are more than it holds");
  slot_capacity_ = static_cast<int>(slots);
  const std::size_t cache_bytes = static_cast<std::size_t>(slot_capacity_) * L * 2 * K * element_bytes();
  self_cache_.reset(cache_bytes);
  advise_huge_pages(self_cache_.as<void>(), cache_bytes);
  join(src, B, S, src_len, rows_per_sentence);
}

int IncrementalDecoder::join(const int* src, int B, int S, const int* src_len, int rows_per_sentence) {
  require(B > 0 && rows_per_sentence > 0, "decoder: empty batch");
  require((S > 0) == config_.has_encoder(), config_.has_encoder() ? "decoder: empty sources"
                                                                   : "decoder: a decoder-only model reads no source");
  require(S <= config_.position_limit(), "decoder: sources of " + std::to_string(S) +
                                            " tokens are longer than the model's learned positions (" +
                                            std::to_string(config_.position_limit()) + ")");
  // Encoding (which may throw) comes before the sentences are recorded, so a failed join changes nothing.
  const int first = static_cast<int>(src_len_.size());
  if (config_.has_encoder()) add_cross_attention(src, B, S, src_len);
  for (int b = 0; b < B; ++b) {
    src_len_.push_back(std::clamp(src_len[b], 0, S));
    sentence_rows_.push_back(rows_per_sentence);
  }
  S_ = std::max(S_, S);
  const int added = B * rows_per_sentence;
  for (int r = 0; r < added; ++r) row_sentence_.push_back(first + r / rows_per_sentence);
  rows_ += added;
  length_.resize(rows_, 0);
  history_.resize(static_cast<std::size_t>(rows_) * max_steps_);
  alignment_.resize(static_cast<std::size_t>(rows_) * S_);
  return first;
}

void IncrementalDecoder::add_cross_attention(const int* src, int B, int S, const int* src_len) {
  const int C = config_.d_model;
  encode_arena_.reset();
  float* memory = model_.encode(src, B, S, src_len, encode_arena_);  // (B*S, C)
  // Cross-attention reads only real source positions: pack them sentence after sentence (N, C), in place,
  // and project those alone.
  int N = 0;
  for (int b = 0; b < B; ++b) N += std::clamp(src_len[b], 0, S);
  make_cross_room(N);
  for (int b = 0, at = 0; b < B; ++b) {
    cross_offset_.push_back(cross_used_ + at);
    const int n = std::clamp(src_len[b], 0, S);
    std::memmove(memory + static_cast<long>(at) * C, memory + static_cast<long>(b) * S * C, sizeof(float) * n * C);
    at += n;
  }
  const long K = config_.key_value_width();
  stage_.resize(std::max(stage_.size(), static_cast<std::size_t>(std::min(N, kStageRows)) * 2 * K));
  for (int layer = 0; layer < config_.decoder_layers; ++layer) {
    std::byte* kv = cross_kv_[layer].get();
    for (int r0 = 0; r0 < N; r0 += kStageRows) {  // (rows, 2K) k|v at a time
      const int rows = std::min(kStageRows, N - r0);
      model_.source_keys_values(layer, memory + static_cast<long>(r0) * C, rows, stage_.data());
      store(stage_.data(), 2L * K, rows, kv, static_cast<long>(cross_used_ + r0) * 2 * K);
    }
  }
  cross_used_ += N;
  cross_live_ += N;
}

void IncrementalDecoder::make_cross_room(int rows) {
  const std::size_t row_bytes = 2 * config_.key_value_width() * element_bytes();
  if (cross_used_ - cross_live_ > cross_live_) {
    // Live sentences keep their order: each moves down to the end of the live ones before it.
    std::vector<int> sentences;
    for (int s = 0; s < static_cast<int>(cross_offset_.size()); ++s)  // the sentences stored so far
      if (sentence_rows_[s] > 0 && src_len_[s] > 0) sentences.push_back(s);
    std::sort(sentences.begin(), sentences.end(), [&](int a, int b) { return cross_offset_[a] < cross_offset_[b]; });
    int used = 0;
    for (const int s : sentences) {
      for (auto& kv : cross_kv_)
        std::memmove(kv.get() + used * row_bytes, kv.get() + cross_offset_[s] * row_bytes, src_len_[s] * row_bytes);
      cross_offset_[s] = used;
      used += src_len_[s];
    }
    cross_used_ = cross_live_ = used;
  }
  const std::size_t needed = (cross_used_ + rows) * row_bytes;
  if (needed <= cross_bytes_) return;
  // Reused across batches, and not zeroed: every row is written before it is read.
  cross_bytes_ = std::max(2 * cross_bytes_, needed);
  for (auto& kv : cross_kv_) {
    auto grown = std::make_unique_for_overwrite<std::byte[]>(cross_bytes_);
    if (cross_used_ > 0) std::memcpy(grown.get(), kv.get(), cross_used_ * row_bytes);
    kv = std::move(grown);
  }
}

void IncrementalDecoder::store_row(const float* src, void* dst, long at) const {
  const long width = 2L * config_.key_value_width();
  if (cache_ == CachePrecision::Float16)
    kernels::to_half(src, static_cast<kernels::half*>(dst) + at, width);
  else
    std::memcpy(static_cast<float*>(dst) + at, src, sizeof(float) * width);
}

void IncrementalDecoder::store(const float* src, long ld, int n, void* dst, long offset) const {
  const long width = 2L * config_.key_value_width();
#pragma omp parallel for schedule(static) if (n * width >= kernels::kParallelMinWork)
  for (int r = 0; r < n; ++r) store_row(src + r * ld, dst, offset + r * width);
}

int IncrementalDecoder::take_slot() {
  if (!free_slots_.empty()) {
    const int slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  if (slots_made_ == slot_capacity_) {  // joined rows outgrew start()'s room: twice the room, slots kept
    const std::size_t slot_bytes =
        static_cast<std::size_t>(config_.decoder_layers) * 2 * config_.key_value_width() * element_bytes();
    require(slot_capacity_ <= (1 << 29), "decoder: more cached positions than it holds");
    const int capacity = std::max(2 * slot_capacity_, 64);
    self_cache_.reset(capacity * slot_bytes);
    advise_huge_pages(self_cache_.as<void>(), capacity * slot_bytes);
    slot_capacity_ = capacity;
  }
  slot_refs_.push_back(0);
  return slots_made_++;
}

void IncrementalDecoder::attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out) {
  if (cache_ == CachePrecision::Float16)
    attend<kernels::half>(q, ldq, li, cross, out, probs_out);
  else
    attend<float>(q, ldq, li, cross, out, probs_out);
}

template <typename E>
void IncrementalDecoder::attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out) {
  // Queries of H heads (Q wide) over keys and values of KH heads (K wide), each head D wide.
  const int H = config_.n_heads, KH = config_.key_value_heads(), D = config_.head_size(), Q = H * D;
  const long L = config_.decoder_layers, K = config_.key_value_width();
  const float scale = config_.scale_attention ? 1.0f / std::sqrt(static_cast<float>(D)) : 1.0f;
  const int key_cap = std::max(S_, max_steps_);
  // Keys and values alternate, K elements each: a key's value is K elements after it.
  const E* keys = cross ? reinterpret_cast<const E*>(cross_kv_[li].get()) : self_cache_.as<const E>();
  long work = 0;
  for (int i = 0; i < queries_; ++i) work += cross ? src_len_[row_sentence_[query_row_[i]]] : query_position_[i] + 1;
  // Alignment: each row's head-averaged attention over its source at its last query, (rows, S); zero for a
  // row fed nothing.
  if (probs_out) std::fill(probs_out, probs_out + static_cast<long>(rows_) * S_, 0.0f);
  // One query row at a time, all heads together: each key and value vector (K elements) is read once,
  // contiguously.
#pragma omp parallel for schedule(dynamic, 4) if (work * H * D > kernels::kParallelMinWork)
  for (int i = 0; i < queries_; ++i) {
    // A sentence's cross keys are its rows of the layer's (N, 2K) from its cross_offset_; the self key of
    // row r at position j is in slot history_(r, j), which holds every layer's.
    const int r = query_row_[i], sentence = row_sentence_[r];
    const int count = cross ? src_len_[sentence] : query_position_[i] + 1;
    float* o = out + static_cast<long>(i) * Q;
    if (count <= 0) {
      std::fill(o, o + Q, 0.0f);
      continue;
    }
    thread_local std::vector<long> offsets;  // (count): where position j's key starts
    offsets.resize(count);
    const int* history = history_.data() + static_cast<std::size_t>(r) * max_steps_;
    for (int j = 0; j < count; ++j)
      offsets[j] = cross ? (cross_offset_[sentence] + j) * 2L * K : (history[j] * L + li) * 2 * K;
    thread_local std::vector<float> scores;  // (H, key_cap) this query's attention probabilities
    scores.resize(static_cast<std::size_t>(H) * key_cap);
    const float* query = q + static_cast<long>(i) * ldq;  // (Q)
    const float* bias = nullptr;                           // (H, key_cap) a relative model's position terms
    if (!cross && !relative_projected_.empty()) {
      thread_local std::vector<float> shifted, terms;  // (C) q + u; (H, key_cap)
      shifted.assign(query, query + Q);
      terms.resize(static_cast<std::size_t>(H) * key_cap);
      relative_step_terms(*model_.relative_positions(li), relative_projected_[li].data(), max_steps_, Q, H,
                          query_position_[i], shifted.data(), terms.data(), key_cap);
      query = shifted.data();
      bias = terms.data();
    }    if (!cross && config_.relative_buckets > 0) {
      thread_local std::vector<float> terms;  // (H, key_cap)
      terms.resize(static_cast<std::size_t>(H) * key_cap);
      bucketed_step_bias(*model_.bucketed_bias(Stack::Decoder), H, query_position_[i], terms.data(), key_cap);
      bias = terms.data();
    }
    kernels::attend_cached(query, keys, keys + K, offsets.data(), count, H, KH, D, scale, scores.data(), key_cap, o,
                           bias);
    if (!probs_out || last_query_[r] != i) continue;
    float* a = probs_out + static_cast<long>(r) * S_;  // (S) this row's alignment: only this thread writes it
    for (int h = 0; h < H; ++h)
      for (int j = 0; j < count; ++j) a[j] += scores[static_cast<std::size_t>(h) * key_cap + j] / H;
  }
}

void IncrementalDecoder::attend_self(int layer, const float* q, int ldq, const float* kv, int ldkv, float* context) {
  // Every query's key and value join its slot first, so a run's later positions see its earlier ones.
  const long L = config_.decoder_layers, K = config_.key_value_width();
#pragma omp parallel for schedule(static) if (queries_ * 2 * K >= kernels::kParallelMinWork)
  for (int i = 0; i < queries_; ++i) {
    const int slot = history_[static_cast<std::size_t>(query_row_[i]) * max_steps_ + query_position_[i]];
    store_row(kv + static_cast<long>(i) * ldkv, self_cache_.as<void>(), (slot * L + layer) * 2 * K);
  }
  attend(q, ldq, layer, false, context, nullptr);
}

void IncrementalDecoder::attend_source(int layer, const float* q, int ldq, float* context) {
  const bool last = layer + 1 == config_.decoder_layers;
  attend(q, ldq, layer, true, context, last ? alignment_.data() : nullptr);
}

const float* IncrementalDecoder::advance(const int* tokens, const int* counts) {
  const int C = config_.d_model, V = config_.tgt_vocab_size;
  queries_ = 0;
  query_row_.clear();
  query_position_.clear();
  last_query_.resize(rows_);
  // Everything is checked before anything changes.
  int total = 0;
  bool one_each = true;  // one token per row: the output rows are the rows
  for (int r = 0, at = 0; r < rows_; ++r) {
    require(counts[r] >= 0, "decoder: a negative token count");
    total += counts[r];
    one_each = one_each && counts[r] == 1;
    require(length_[r] + counts[r] <= std::min(max_steps_, config_.position_limit()),
            length_[r] + counts[r] > max_steps_ ? "decoder: past the maximum output length"
                                                : "decoder: past the model's learned positions (" +
                                                      std::to_string(config_.position_limit()) + ")");
    for (int k = 0; k < counts[r]; ++k, ++at)
      require(tokens[at] >= 0 && tokens[at] < V, "decoder: token id outside the target vocabulary");
  }
  require(total > 0, "decoder: nothing to feed");
  for (int r = 0; r < rows_; ++r) {
    for (int k = 0; k < counts[r]; ++k) {
      const int slot = take_slot();
      ++slot_refs_[slot];
      history_[static_cast<std::size_t>(r) * max_steps_ + length_[r]] = slot;
      query_row_.push_back(r);
      query_position_.push_back(length_[r]++);
      ++queries_;
    }
    last_query_[r] = counts[r] > 0 ? queries_ - 1 : -1;
  }
  int widest = 0;
  for (const auto& [v0, n] : model_.output_column_blocks()) widest = std::max(widest, n);
  logits_.resize(std::max(logits_.size(), static_cast<std::size_t>(rows_) * widest));
  log_z_.resize(std::max<std::size_t>(log_z_.size(), rows_));
  top_count_.resize(std::max<std::size_t>(top_count_.size(), rows_));
  step_arena_.reset();
  layer_arena_.reset();
  // Room planned from the call's rows before it runs: a call that outgrows an arena faults its pages twice
  // (in overflow blocks, then again in the block they are merged into), which on a virtual machine costs
  // more than the work of a long prompt's pass. Pages are faulted only as they are used, so the plan can be
  // generous: per row, a layer's activations (q|k|v, context, norms, residuals, the feed-forward's rows),
  // and the call's own rows (embedding, rotary angles, final norm); a quarter more when an arena grows, so
  // that the next batch's slightly longer prompts fit.
  const auto wide = static_cast<std::size_t>(std::max(C, config_.n_heads * config_.head_size()));
  const std::size_t row_floats = 10 * wide + 3 * static_cast<std::size_t>(config_.d_ff);
  for (const auto& [arena, bytes] : {std::pair{&layer_arena_, sizeof(float) * row_floats * queries_},
                                     std::pair{&step_arena_, sizeof(float) * 4 * wide * queries_}})
    if (bytes > arena->capacity()) arena->reserve(bytes + bytes / 4);
  // Each query's sequence length after this call (its row's), which dynamic rotary scaling reads.
  query_length_.resize(queries_);
  for (int i = 0; i < queries_; ++i) query_length_[i] = length_[query_row_[i]];
  const float* x = model_.decode_step(tokens, query_position_.data(), queries_, *this, step_arena_,
                                      query_length_.data(), &layer_arena_);  // (queries, C)
  if (one_each) return x;
  last_hidden_.assign(static_cast<std::size_t>(rows_) * C, 0.0f);
  for (int r = 0; r < rows_; ++r)
    if (last_query_[r] >= 0)
      std::copy_n(x + static_cast<long>(last_query_[r]) * C, C, last_hidden_.data() + static_cast<long>(r) * C);
  return last_hidden_.data();  // (rows, C)
}

const float* IncrementalDecoder::advance(const std::vector<std::vector<int>>& runs) {
  require(static_cast<int>(runs.size()) == rows_, "decoder: one run of tokens per row expected");
  std::vector<int> tokens, counts;  // (all runs' tokens), (rows)
  for (const std::vector<int>& run : runs) {
    tokens.insert(tokens.end(), run.begin(), run.end());
    counts.push_back(static_cast<int>(run.size()));
  }
  return advance(tokens.data(), counts.data());
}

const NextTokens& IncrementalDecoder::step(const std::vector<int>& tokens, int top) {
  require(top >= 1 && top <= config_.tgt_vocab_size, "decoder: top tokens must be between 1 and the vocabulary size");
  require(static_cast<int>(tokens.size()) == rows_, "decoder: one token per row expected");
  ones_.assign(rows_, 1);
  const float* x = advance(tokens.data(), ones_.data());  // (rows, C)
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
  return next_;
}

const float* IncrementalDecoder::project_logits(const float* x) {
  const int V = config_.tgt_vocab_size;
  full_logits_.resize(static_cast<std::size_t>(rows_) * V);
  for (const auto& [v0, n] : model_.output_column_blocks()) {
    model_.project_output_columns(x, rows_, v0, n, logits_.data());  // (rows, n)
    for (int r = 0; r < rows_; ++r)
      std::copy_n(logits_.data() + static_cast<long>(r) * n, n, full_logits_.data() + static_cast<long>(r) * V + v0);
  }
  return full_logits_.data();
}

const float* IncrementalDecoder::step_logits(const std::vector<int>& tokens) {
  require(static_cast<int>(tokens.size()) == rows_, "decoder: one token per row expected");
  ones_.assign(rows_, 1);
  return project_logits(advance(tokens.data(), ones_.data()));
}

const float* IncrementalDecoder::feed_logits(const std::vector<std::vector<int>>& runs) {
  return project_logits(advance(runs));
}

void IncrementalDecoder::feed(const std::vector<std::vector<int>>& runs) { advance(runs); }

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

void IncrementalDecoder::compact_sentences() {
  std::vector<int> number(src_len_.size(), -1), src_len, cross_offset, sentence_rows;
  for (std::size_t s = 0; s < src_len_.size(); ++s) {
    if (sentence_rows_[s] == 0) continue;
    number[s] = static_cast<int>(src_len.size());
    src_len.push_back(src_len_[s]);
    sentence_rows.push_back(sentence_rows_[s]);
    if (!cross_offset_.empty()) cross_offset.push_back(cross_offset_[s]);  // an encoder-decoder's
  }
  for (int& s : row_sentence_) s = number[static_cast<std::size_t>(s)];
  src_len_ = std::move(src_len);
  sentence_rows_ = std::move(sentence_rows);
  cross_offset_ = std::move(cross_offset);
}

void IncrementalDecoder::reorder(const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  for (int r : order) require(r >= 0 && r < rows_, "decoder: reorder index out of range");
  // The cached keys and values stay where they are: row i now continues row order[i]'s history. Slots are
  // counted in for the new rows before the old rows count out, so a kept slot never looks free.
  std::vector<int> history(static_cast<std::size_t>(n) * max_steps_), lengths(n), sentences(n), rows_of(sentence_rows_.size());
  std::vector<float> alignment(static_cast<std::size_t>(n) * S_);
  for (int i = 0; i < n; ++i) {
    const int from = order[i];
    lengths[i] = length_[from];
    sentences[i] = row_sentence_[from];
    ++rows_of[sentences[i]];
    const int* h = history_.data() + static_cast<std::size_t>(from) * max_steps_;
    std::copy_n(h, lengths[i], history.data() + static_cast<std::size_t>(i) * max_steps_);
    for (int j = 0; j < lengths[i]; ++j) ++slot_refs_[h[j]];
    std::memcpy(alignment.data() + static_cast<long>(i) * S_, alignment_.data() + static_cast<long>(from) * S_,
                sizeof(float) * S_);
  }
  for (int r = 0; r < rows_; ++r)
    for (int j = 0; j < length_[r]; ++j) {
      const int slot = history_[static_cast<std::size_t>(r) * max_steps_ + j];
      if (--slot_refs_[slot] == 0) free_slots_.push_back(slot);
    }
  for (std::size_t s = 0; s < rows_of.size(); ++s)
    if (sentence_rows_[s] > 0 && rows_of[s] == 0) cross_live_ -= src_len_[s];
  sentence_rows_ = std::move(rows_of);
  history_ = std::move(history);
  length_ = std::move(lengths);
  row_sentence_ = std::move(sentences);
  alignment_ = std::move(alignment);
  rows_ = n;
}

}  // namespace heptapod
