// Incremental decoding: one position per call, caching self-attention keys/values per layer.
#include "heptapod/decode/incremental_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "heptapod/core/error.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/kernels/layer_norm.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/vector_math.h"
#include "heptapod/model/bind.h"

namespace heptapod {

IncrementalDecoder::IncrementalDecoder(Transformer<float>& model) : model_(model), config_(model.config()) {
  const ModelConfig& c = config_;
  layers_.resize(c.decoder_layers);
  for (int i = 0; i < c.decoder_layers; ++i) layers_[i].p = &model.decoder_layer(i);
  has_final_norm_ = c.has_final_norm();
  if (has_final_norm_)
    final_norm_ = bind_layer_norm(model.parameters(), "decoder/final_norm", c.d_model, c.layer_norm_eps);
}

void IncrementalDecoder::start(const int* src, int B, int S, const int* src_len, int rows_per_sentence, int max_steps) {
  require(B > 0 && S > 0 && rows_per_sentence > 0 && max_steps > 0, "decoder: empty batch");
  const int C = config_.d_model;
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
  const float* memory = model_.encode(src, B, S, src_len, arena_);  // (B*S, C)
  for (Layer& l : layers_) {
    l.cross_k = arena_.alloc<float>(static_cast<std::size_t>(B) * S * C);
    l.cross_v = arena_.alloc<float>(static_cast<std::size_t>(B) * S * C);
    linear_forward(l.p->cross_attn.k_proj, memory, B * S, l.cross_k);
    linear_forward(l.p->cross_attn.v_proj, memory, B * S, l.cross_v);
    l.k_cache.reset(static_cast<std::size_t>(rows_) * max_steps * C);
    l.v_cache.reset(static_cast<std::size_t>(rows_) * max_steps * C);
  }
  history_.resize(static_cast<std::size_t>(max_steps) * cache_rows_);
  const std::size_t rc = static_cast<std::size_t>(rows_) * C;
  for (auto* v : {&x_, &normed_, &q_, &ctx_, &attn_out_}) v->resize(rc);
  hidden_.resize(static_cast<std::size_t>(rows_) * config_.d_ff);
  logits_.resize(static_cast<std::size_t>(rows_) * config_.tgt_vocab_size);
  scores_.resize(static_cast<std::size_t>(rows_) * config_.n_heads * std::max(S, max_steps));
  alignment_.resize(static_cast<std::size_t>(rows_) * S);
  mean_.resize(rows_);
  rstd_.resize(rows_);
}

void IncrementalDecoder::attend(const float* q, const float* keys, const float* values, bool cross, float* out,
                                float* probs_out) {
  const int C = config_.d_model, H = config_.n_heads, D = C / H;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const int key_cap = std::max(S_, max_steps_);
  // One row at a time, all heads together: each key and value vector (C floats) is read once, contiguously.
#pragma omp parallel for schedule(static) if (static_cast<long>(rows_) * H * (position_ + 1) * D > kernels::kParallelMinWork)
  for (int r = 0; r < rows_; ++r) {
    // Cross keys are (B, S, C) per sentence; row r's cached self key at position j is row history_(j, r) of
    // the (position, cache_rows_, C) cache.
    const int count = cross ? std::min(src_len_[row_sentence_[r]], S_) : position_ + 1;
    auto at = [&](int j) {
      return cross ? (static_cast<long>(row_sentence_[r]) * S_ + j) * C
                   : (static_cast<long>(j) * cache_rows_ + history_[static_cast<std::size_t>(j) * cache_rows_ + r]) * C;
    };
    const float* qr = q + static_cast<long>(r) * C;
    float* s = scores_.data() + static_cast<long>(r) * H * key_cap;  // (H, key_cap)
    float* o = out + static_cast<long>(r) * C;
    std::fill(o, o + C, 0.0f);
    if (count <= 0) continue;
    for (int j = 0; j < count; ++j) {
      const float* kj = keys + at(j);
      for (int h = 0; h < H; ++h) s[h * key_cap + j] = kernels::dot(qr + h * D, kj + h * D, D);
    }
    for (int h = 0; h < H; ++h) {
      float* sh = s + h * key_cap;
      const float inv = 1.0f / kernels::exp_sum(sh, count, kernels::max_value(sh, count), scale, sh);
      for (int j = 0; j < count; ++j) sh[j] *= inv;
    }
    for (int j = 0; j < count; ++j) {
      const float* vj = values + at(j);
      for (int h = 0; h < H; ++h) {
        const float w = s[h * key_cap + j];
        for (int d = 0; d < D; ++d) o[h * D + d] += w * vj[h * D + d];
      }
    }
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

void IncrementalDecoder::sublayer_norm(const LayerNorm<float>& ln, float* x, float* y) {
  kernels::layer_norm_forward(x, ln.gamma, ln.beta, y, mean_.data(), rstd_.data(), rows_, ln.C, ln.eps);
}

const float* IncrementalDecoder::step(const std::vector<int>& tokens) {
  require(static_cast<int>(tokens.size()) == rows_, "decoder: one token per row expected");
  require(position_ < max_steps_, "decoder: past the maximum output length");
  const int C = config_.d_model, V = config_.tgt_vocab_size;
  for (int t : tokens) require(t >= 0 && t < V, "decoder: token id outside the target vocabulary");
  const bool pre = config_.norm == NormPosition::Pre;
  const long rc = static_cast<long>(rows_) * C;
  float* x = x_.data();
  const float* pe = model_.positions(position_ + 1) + static_cast<long>(position_) * C;
  embed(model_.target_embedding(), tokens.data(), rows_, 1, pe, x);

  // Runs one residual sub-layer: f reads the sub-layer input and writes attn_out_.
  auto sublayer = [&](const LayerNorm<float>& ln, auto&& f) {
    const float* in = x;
    if (pre) {
      sublayer_norm(ln, x, normed_.data());
      in = normed_.data();
    }
    f(in);
    kernels::add(x, attn_out_.data(), x, rc);
    if (!pre) {
      sublayer_norm(ln, x, normed_.data());
      std::memcpy(x, normed_.data(), sizeof(float) * rc);
    }
  };

  for (std::size_t li = 0; li < layers_.size(); ++li) {
    Layer& l = layers_[li];
    sublayer(l.p->self_attn_norm, [&](const float* in) {
      // This position's keys and values go straight into their cache slab, row r's at row r.
      const long slab = static_cast<long>(position_) * cache_rows_ * C;
      for (int r = 0; r < rows_; ++r) history_[static_cast<std::size_t>(position_) * cache_rows_ + r] = r;
      linear_forward(l.p->self_attn.q_proj, in, rows_, q_.data());
      linear_forward(l.p->self_attn.k_proj, in, rows_, l.k_cache.data() + slab);
      linear_forward(l.p->self_attn.v_proj, in, rows_, l.v_cache.data() + slab);
      attend(q_.data(), l.k_cache.data(), l.v_cache.data(), false, ctx_.data(), nullptr);
      linear_forward(l.p->self_attn.out_proj, ctx_.data(), rows_, attn_out_.data());
    });
    sublayer(l.p->cross_attn_norm, [&](const float* in) {
      linear_forward(l.p->cross_attn.q_proj, in, rows_, q_.data());
      const bool last = li + 1 == layers_.size();
      attend(q_.data(), l.cross_k, l.cross_v, true, ctx_.data(), last ? alignment_.data() : nullptr);
      linear_forward(l.p->cross_attn.out_proj, ctx_.data(), rows_, attn_out_.data());
    });
    sublayer(l.p->ffn_norm, [&](const float* in) {
      linear_relu_forward(l.p->ffn.fc1, in, rows_, hidden_.data());
      linear_forward(l.p->ffn.fc2, hidden_.data(), rows_, attn_out_.data());
    });
  }
  if (has_final_norm_) {
    sublayer_norm(final_norm_, x, normed_.data());
    x = normed_.data();
  }
  float* logits = logits_.data();
  model_.project_output(x, rows_, logits);
#pragma omp parallel for schedule(static) if (static_cast<long>(rows_) * V > kernels::kParallelMinWork)
  for (int r = 0; r < rows_; ++r) {
    float* row = logits + static_cast<long>(r) * V;
    const float log_z = kernels::log_sum_exp(row, static_cast<long>(V));
    for (int v = 0; v < V; ++v) row[v] -= log_z;
  }
  ++position_;
  return logits;
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
