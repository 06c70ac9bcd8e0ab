// T5's relative position bias (Raffel et al. 2020, section 2.1; Hugging Face's T5Attention): each
// self-attention score q_i . k_j gains a learned scalar per head, b[bucket(j - i), h], read from one table
// (buckets, heads) that every layer of a stack shares. A distance's bucket: in an encoder (bidirectional) half
// the buckets are for keys after the query and half for the others; in a decoder (causal) all are for keys at
// or before it. Of a side's n buckets, distances below n / 2 have one each, the longer ones share the rest,
// log-spaced up to max_distance, beyond which all share the last. A ScoreTerm; its cached-decoding form fills
// the bias rows kernels::attend_cached adds.
#pragma once

#include <vector>

#include "heptapod/layers/attention.h"

namespace heptapod {

// The bucket of key position minus query position `relative` (T5's _relative_position_bucket, its logarithm
// in float32 as Hugging Face computes it).
int relative_bucket(int relative, bool bidirectional, int buckets, int max_distance);

template <typename T>
struct BucketedBias {
  const T* table = nullptr;  // (buckets, heads) the stack's bias, row bucket(j - i)
  T* dtable = nullptr;       // its gradient, accumulated by finish_backward() (null when not training)
  int buckets = 0;
  int max_distance = 0;
  bool bidirectional = false;  // an encoder's; a decoder's are causal
};

// Cached decoding's bias of one query row at position p over keys 0 .. p: bias (H, stride) row h, key j.
void bucketed_step_bias(const BucketedBias<float>& params, int H, int p, float* bias, int stride);

template <typename T>
class BucketedBiasTerm final : public ScoreTerm<T> {
 public:
  // For attention of `shape` with `heads` heads: a query row i of a block of lq rows over lk keys sits at
  // position lk - lq + i (the last lq of the keys' positions; every position with lq == lk).
  BucketedBiasTerm(const BucketedBias<T>& params, int heads, const AttentionShape& shape);

  void add(int b, int h, const T* q, int ldq, const T* k, int ldk, int lq, int lk, T* scores) const override;
  void begin_backward() override;
  void backward(int b, int h, const T* q, int ldq, const T* k, int ldk, const T* ds, int lq, int lk, T* dq,
                T* dk) override;
  // Sums the blocks' gradients into dtable (after attention_backward() returns).
  void finish_backward();

 private:
  // The buckets of relative distances -(P - 1) .. P - 1: bucket of d at d + P - 1.
  int bucket_of(int relative) const { return buckets_[static_cast<std::size_t>(relative + P_ - 1)]; }

  BucketedBias<T> params_;
  int H_, P_;
  int blocks_ = 0;           // B H
  std::vector<int> buckets_;  // (2 P - 1)
  std::vector<T> grads_;      // (B H, buckets) per block, made by begin_backward()
};

}  // namespace heptapod
