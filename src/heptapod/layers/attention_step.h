// Attention one position at a time, for incremental decoding: the cache interface the decoder implements, and
// the self- and cross-attention steps built on it (the same projections as attention_forward).
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/layers/attention.h"
#include "heptapod/layers/linear.h"

namespace heptapod {

// Keys and values kept across decoding steps, and attention over them, one query row per
// hypothesis at the current position. The incremental decoder (decode/) owns and lays out the storage.
template <typename T>
class AttentionCache {
 public:
  virtual ~AttentionCache() = default;
  // Self-attention of decoder layer `layer`: kv (rows, 2K), this position's key | value per row (ldkv
  // apart), joins the cache; then q (rows, Q), ldq apart, attends over every cached position -> context
  // (rows, Q) (Q, K: the attention's query and key/value widths).
  virtual void attend_self(int layer, const T* q, int ldq, const T* kv, int ldkv, T* context) = 0;
  // Cross-attention of decoder layer `layer`: q (rows, Q), ldq apart, over the source keys and values cached
  // when the batch started -> context (rows, Q).
  virtual void attend_source(int layer, const T* q, int ldq, T* context) = 0;
};

// One incremental step of self-attention: x (rows, C) -> y (rows, C) assigned (the output projection's bias
// as out_bias says). qkv: attn's q|k|v projections stacked (Q + 2K, C). The queries and keys are normalised
// (qk_norm) and rotated (rotary: the rows' angles, or null) before the key joins the cache, once.
template <typename T>
void self_attention_step(const MultiHeadAttention<T>& attn, const Linear<T>& qkv, int layer, const T* x, int rows,
                         AttentionCache<T>& cache, Arena& arena, T* y, OutputBias out_bias,
                         const RotaryAngles<T>* rotary = nullptr);

// One incremental step of cross-attention: x (rows, C) -> y (rows, C) assigned, over the cached source.
template <typename T>
void cross_attention_step(const MultiHeadAttention<T>& attn, int layer, const T* x, int rows,
                          AttentionCache<T>& cache, Arena& arena, T* y, OutputBias out_bias);

}  // namespace heptapod
