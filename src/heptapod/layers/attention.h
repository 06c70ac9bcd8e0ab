// Multi-head scaled dot-product attention (self or cross), forward and backward.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/layers/dropout_site.h"
#include "heptapod/layers/head_norm.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/rotary.h"
#include "heptapod/layers/sequences.h"

namespace heptapod {

// Queries in `heads` heads and keys and values in kv_heads heads (grouped-query attention: query head h reads
// key/value head h / (heads / kv_heads)), each head_dim wide: Q = heads * head_dim, K = kv_heads * head_dim.
template <typename T>
struct MultiHeadAttention {
  Linear<T> q_proj;    // (Q, C)
  Linear<T> k_proj;    // (K, C)
  Linear<T> v_proj;    // (K, C)
  Linear<T> out_proj;  // (C, Q)
  int heads = 0;
  // Packed for inference (Transformer::pack_for_inference), the projections that share an input are one
  // matrix: q|k|v (Q + 2K, C) for self-attention, k|v (2K, C) for cross-attention, and the parts they replace
  // hold nothing. Empty (packed == nullptr) otherwise.
  Linear<T> qkv, kv;
  int kv_heads = 0;  // 0: heads
  int head_dim = 0;  // 0: C / heads
  // qk_norm: RMSNorms (head_dim) of each head's queries and keys before the rotation; empty (gamma null)
  // otherwise.
  LayerNorm<T> q_norm, k_norm;
  // Whether the scores are divided by sqrt(head_dim) before the softmax (T5's are not).
  bool scaled = true;

  int key_value_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  int head_size() const { return head_dim > 0 ? head_dim : q_proj.out / heads; }
  int query_width() const { return heads * head_size(); }
  int key_value_width() const { return key_value_heads() * head_size(); }

  // The projections that share an input, in their stacked order: self-attention's q|k|v, cross-attention's
  // k|v (the keys and values of the encoder output).
  std::array<const Linear<T>*, 3> self_parts() const { return {&q_proj, &k_proj, &v_proj}; }
  std::array<const Linear<T>*, 2> cross_parts() const { return {&k_proj, &v_proj}; }
  std::array<Linear<T>*, 3> self_parts() { return {&q_proj, &k_proj, &v_proj}; }
  std::array<Linear<T>*, 2> cross_parts() { return {&k_proj, &v_proj}; }
};

// Self-attention's q|k|v (Q + 2K, C) or cross-attention's k|v (2K, C) as one projection: the packed one of an
// inference model, else its parts' row-major weights and biases copied into the arena.
template <typename T>
Linear<T> stacked_projection(const MultiHeadAttention<T>& attn, bool self, Arena& arena) {
  const Linear<T>& packed = self ? attn.qkv : attn.kv;
  if (packed.packed) return packed;
  if (self) return stack_linear(std::span<const Linear<T>* const>(attn.self_parts()), arena);
  return stack_linear(std::span<const Linear<T>* const>(attn.cross_parts()), arena);
}

// Which rows attend to which: sentence b's queries are rows [q.start[b], +q.len[b]) of the query matrix, its
// keys rows [k.start[b], +k.len[b]) of the key matrix (the same Sequences for self-attention). No padding:
// each (sentence, head) has a (q.len[b], k.len[b]) block of scores. Causal: the queries are the last q.len[b]
// of a sentence's k.len[b] positions and see the keys up to their own, so keys that precede the queries (a
// key offset of k.len[b] - q.len[b]: cached positions, Transformer-XL's memory) are visible to all of them.
class AttentionShape {
 public:
  AttentionShape(const Sequences& q, const Sequences& k, bool causal);
  const Sequences& q() const { return *q_; }
  const Sequences& k() const { return *k_; }
  bool causal() const { return causal_; }
  int count() const { return q_->count(); }
  // Scores of all sentences and heads together, and the first score of (sentence b, head h).
  long scores(int heads) const { return heads * score_start_.back(); }
  long score_offset(int b, int h, int heads) const {
    return heads * score_start_[b] + static_cast<long>(h) * q_->len[b] * k_->len[b];
  }

 private:
  const Sequences* q_;
  const Sequences* k_;
  bool causal_;
  std::vector<long> score_start_;  // (B + 1) prefix sums of q.len[b] * k.len[b]
};

// Whether attention keeps its probabilities for the backward pass. Recompute (the default, the fused path):
// nothing of the scores' size outlives a tile: the forward pass runs each (sentence, head) block in tiles of
// query rows (with causal attention a tile reads only the keys its rows may see), and the backward pass
// recomputes each tile's scores and softmax from the saved queries and keys before using them: the same
// products in the same order, so the same bytes as kept ones. Keep: every block's softmax output (and its copy
// after dropout) in the arena, as the forward pass made them. Measured on GPT-2 small's shape (bench/attention,
// docs/benchmarks.md), Recompute is as fast as Keep up to 512 positions and faster beyond, so Keep serves as
// the reference the benchmark and the tests compare against.
enum class AttentionProbabilities { Recompute, Keep };

// The projections that share an input run as one product: self-attention's q, k and v as one (Nq, Q + 2K)
// matrix, cross-attention's k and v as one (Nk, 2K); q, k and v point into those rows (leading dimensions
// ldq, ldkv). Row-major weights are stacked into arena copies for it (kept in `stacked` for backward). With
// qk_norm and rotary positions (self-attention), q and k are normalised and rotated in place.
template <typename T>
struct AttentionSaved {
  T* q = nullptr;        // (Nq, Q), rows ldq apart
  const T* k = nullptr;  // (Nk, K), rows ldkv apart
  const T* v = nullptr;  // (Nk, K), rows ldkv apart
  int ldq = 0, ldkv = 0;
  Linear<T> stacked;     // q|k|v or k|v as run
  AttentionProbabilities policy = AttentionProbabilities::Recompute;  // set before the forward pass
  // Kept probabilities (null when recomputed): scores(H), per sentence and head a (q.len, k.len) block, the
  // softmax output, where a causal block's entries past the keys a tile of its rows sees are left unwritten;
  // and the same blocks after attention dropout (== probs when the rate is 0).
  T* probs = nullptr;
  T* dropped = nullptr;
  T* context = nullptr;  // (Nq, Q) heads concatenated, before out_proj
  HeadNormSaved<T> q_norm, k_norm;          // qk_norm's
  const RotaryAngles<T>* rotary = nullptr;  // the rows' angles, when rotated
};

// An additive, query-dependent term of the scores that the model computes (Transformer-XL's position terms):
// for each (sentence b, head h) block, term(i, j) is added to the raw product q_i . k_j before the scale and
// the softmax, and the gradient at the raw scores is handed back. Both run inside attention's parallel loop,
// once per block, concurrently for different blocks: backward() must keep what it accumulates for its own
// parameters apart per block until the caller sums it after attention_backward() returns.
template <typename T>
class ScoreTerm {
 public:
  virtual ~ScoreTerm() = default;
  // q: (lq, D) the block's queries, rows ldq apart; k: (lk, D) its keys, rows ldk apart. scores: (lq, lk) the
  // raw products, added to.
  virtual void add(int b, int h, const T* q, int ldq, const T* k, int ldk, int lq, int lk, T* scores) const = 0;
  // Called once by attention_backward before its parallel loop: room for what backward() accumulates.
  virtual void begin_backward() {}
  // ds: (lq, lk) the loss's gradient at the raw scores. dq: (lq, D), rows ldq apart, and dk: (lk, D), rows
  // ldk apart, accumulated: the term's gradients with respect to the queries and the keys.
  virtual void backward(int b, int h, const T* q, int ldq, const T* k, int ldk, const T* ds, int lq, int lk, T* dq,
                        T* dk) = 0;
};

// Cross-attention's keys and values projected by the caller (the Transformer runs every decoder layer's k|v
// projection of the encoder output as one product): this layer's k at kv, its v at kv + K, rows ld apart.
// The backward pass writes their gradients at dkv, in the same layout, and leaves the k and v projections'
// parameter and input gradients to the caller.
template <typename T>
struct ProjectedKeysValues {
  const T* kv = nullptr;  // (Nk, 2K) k | v, rows ld apart
  T* dkv = nullptr;       // (Nk, 2K) their gradient, rows ld apart; set before backward
  int ld = 0;
};

// The keys and values of rows x (N, C) -> kv (N, 2K), k | v per row: a packed self-attention's column blocks
// of its q|k|v, else the k and v projections stacked (into `stacked` when given, for backward).
template <typename T>
void project_keys_values(const MultiHeadAttention<T>& attn, const T* x, int N, Arena& arena, T* kv,
                         Linear<T>* stacked = nullptr);

// xq: (Nq, C), xkv: (Nk, C) (the same pointer for self-attention), Nq = q().rows(), Nk = k().rows() ->
// y: (Nq, C) assigned (without the output projection's bias with OutputBias::Skip). Cross-attention reads its
// keys and values from `projected` when given (xkv unused). `term`, when given, is added to the raw scores.
// rotary: self-attention's angles of its rows (Nq), which rotate each row's query and key; null for none.
template <typename T>
void attention_forward(const MultiHeadAttention<T>& attn, const T* xq, const T* xkv, const AttentionShape& shape,
                       const DropoutSite& drop, Arena& arena, AttentionSaved<T>& saved, T* y,
                       OutputBias out_bias = OutputBias::Add, const ProjectedKeysValues<T>* projected = nullptr,
                       const ScoreTerm<T>* term = nullptr, const RotaryAngles<T>* rotary = nullptr);

// Self-attention's queries and keys, in place in the rows of a q|k|v projection: each head normalised
// (qk_norm) and rotated (rotary, when given). qkv: (N, ld) with q at column 0 and k at column Q. `saved`
// keeps what the backward pass needs.
template <typename T>
void prepare_queries_keys(const MultiHeadAttention<T>& attn, T* qkv, long ld, int N, const RotaryAngles<T>* rotary,
                          Arena& arena, AttentionSaved<T>& saved);

// dy: (Nq, C). dxq: (Nq, C) assigned or accumulated (accumulate_dxq). dxkv: (Nk, C) always accumulated;
// for self-attention pass dxq == dxkv. Parameter gradients accumulated, the output projection's bias unless
// the caller summed it (out_bias). Temporaries come from the arena. With `projected` (as in the forward
// pass) the key and value gradients go to projected->dkv and dxkv is not touched. `term`: the forward pass's,
// which receives the scores' gradient.
template <typename T>
void attention_backward(const MultiHeadAttention<T>& attn, const T* dy, const T* xq, const T* xkv,
                        const AttentionShape& shape, const DropoutSite& drop, const AttentionSaved<T>& saved,
                        Arena& arena, T* dxq, bool accumulate_dxq, T* dxkv, BiasGrad out_bias = BiasGrad::Compute,
                        const ProjectedKeysValues<T>* projected = nullptr, ScoreTerm<T>* term = nullptr);

}  // namespace heptapod
