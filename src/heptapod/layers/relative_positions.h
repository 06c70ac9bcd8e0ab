// Transformer-XL's relative-position terms of the attention scores (Dai et al. 2019, section 3.3): for query
// i at position p_i (counted from the first key, so a memory or a cache before the queries shifts it) and key
// j <= p_i, the raw score q_i . k_j gains
//     u . k_j  +  (q_i + v) . r_(p_i - j),    r_d = W_r R_d,
// per head: u and v the heads' global content and position biases, R_d the [sin | cos] encoding of the
// distance d (clamped to clamp_length when that is > 0) and W_r its projection. The position term runs as
// one product per (sentence, head) block against the distances in decreasing order, then each query row takes
// the contiguous slice that lines its distances up with the keys: the relative shift, with no gather over a
// full matrix. A ScoreTerm of causal attention.
#pragma once

#include <vector>

#include "heptapod/layers/attention.h"

namespace heptapod {

template <typename T>
struct RelativePositionParams {
  const T* w_r = nullptr;  // (C, C) W_r as (out, in), no bias
  const T* u = nullptr;    // (C) the heads' content biases, head h's at [h D, (h + 1) D)
  const T* v = nullptr;    // (C) the heads' position biases
  T* dw_r = nullptr;       // their gradients, accumulated by finish_backward() (null when not training)
  T* du = nullptr;
  T* dv = nullptr;
  int clamp_length = 0;    // > 0: longer distances use this one's encoding
};

// The encodings R of the distances P - 1 down to 0 (row t: distance P - 1 - t, clamped): encodings (P, C); and
// their projections W_r R: projected (P, C).
template <typename T>
void relative_encodings(const RelativePositionParams<T>& params, int C, int P, std::vector<T>& encodings,
                        std::vector<T>& projected);

// Cached decoding's terms for one query row at position p (it sees keys 0 .. p), in the form
// kernels::attend_cached takes them: q (C) becomes q + u, and bias (H, stride) row h gets (q_h + v_h) . r_(p - j)
// at key j <= p. projected: (P, C) from relative_encodings, P > p.
void relative_step_terms(const RelativePositionParams<float>& params, const float* projected, int P, int C, int H,
                         int p, float* q, float* bias, int stride);

// relative_encodings' tables for up to P distances, kept from one forward pass to the next while the weights
// stay as they are (a model packed for inference): a pass over at most P keys reads their last rows.
template <typename T>
struct RelativeTables {
  int P = 0;
  std::vector<T> encodings, projected;  // (P, C) each
};

template <typename T>
class RelativePositionTerm final : public ScoreTerm<T> {
 public:
  // For attention of `shape` (causal): the projected encodings of the distances P - 1 down to 0, P the
  // longest key run, computed once for every block; or read from `cached`, grown to P first where it has
  // fewer (the caller vouches that the weights have not changed since it was filled).
  RelativePositionTerm(const RelativePositionParams<T>& params, int C, int heads, const AttentionShape& shape,
                       RelativeTables<T>* cached = nullptr);

  void add(int b, int h, const T* q, int ldq, const T* k, int ldk, int lq, int lk, T* scores) const override;
  void begin_backward() override;
  void backward(int b, int h, const T* q, int ldq, const T* k, int ldk, const T* ds, int lq, int lk, T* dq,
                T* dk) override;
  // Sums the blocks' gradients into dw_r, du and dv (after attention_backward() returns).
  void finish_backward();

 private:
  T* block_grad(int b, int h);  // (2 D + P D): du, dv, the gradient at the block's head slice of r

  RelativePositionParams<T> params_;
  int C_, H_, D_, P_;
  RelativeTables<T> own_;       // the tables when nothing is cached
  const T* encodings_ = nullptr;  // (P, C) row t: R of distance P - 1 - t (clamped)
  const T* projected_ = nullptr;  // (P, C) row t: r = W_r R of that distance
  int blocks_ = 0;            // B H
  std::vector<T> grads_;      // (B H, 2 D + P D) per block, made by begin_backward()
};

}  // namespace heptapod
