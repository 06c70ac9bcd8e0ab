// T5's bucketed relative position bias: the buckets, the score term and its per-block gradients.
#include "heptapod/layers/relative_buckets.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "heptapod/core/error.h"

namespace heptapod {

int relative_bucket(int relative, bool bidirectional, int buckets, int max_distance) {
  int n = buckets, bucket = 0, distance = 0;
  if (bidirectional) {
    n /= 2;
    if (relative > 0) bucket = n;
    distance = std::abs(relative);
  } else {
    distance = std::max(-relative, 0);
  }
  const int exact = n / 2;
  if (distance < exact) return bucket + distance;
  // float32 throughout, as torch computes log(d / exact) / log(max_distance / exact) * (n - exact).
  const float ratio = std::log(static_cast<float>(distance) / static_cast<float>(exact)) /
                      static_cast<float>(std::log(static_cast<double>(max_distance) / exact));
  const int large = exact + static_cast<int>(ratio * static_cast<float>(n - exact));
  return bucket + std::min(large, n - 1);
}

void bucketed_step_bias(const BucketedBias<float>& params, int H, int p, float* bias, int stride) {
  for (int j = 0; j <= p; ++j) {
    const float* row = params.table + static_cast<long>(
                                          relative_bucket(j - p, params.bidirectional, params.buckets,
                                                          params.max_distance)) * H;
    for (int h = 0; h < H; ++h) bias[static_cast<long>(h) * stride + j] = row[h];
  }
}

template <typename T>
BucketedBiasTerm<T>::BucketedBiasTerm(const BucketedBias<T>& params, int heads, const AttentionShape& shape)
    : params_(params), H_(heads), P_(std::max(1, shape.k().longest)), blocks_(shape.count() * heads) {
  require(params.bidirectional != shape.causal(), "relative buckets: an encoder's bias is bidirectional, a "
                                                  "decoder's causal");
  buckets_.resize(static_cast<std::size_t>(2 * P_ - 1));
  for (int d = -(P_ - 1); d < P_; ++d)
    buckets_[static_cast<std::size_t>(d + P_ - 1)] =
        relative_bucket(d, params.bidirectional, params.buckets, params.max_distance);
}

template <typename T>
void BucketedBiasTerm<T>::add(int, int h, const T*, int, const T*, int, int lq, int lk, T* scores) const {
  for (int i = 0; i < lq; ++i) {
    const int p = lk - lq + i;  // the query's position among the keys
    T* s = scores + static_cast<long>(i) * lk;
    for (int j = 0; j < lk; ++j) s[j] += params_.table[static_cast<long>(bucket_of(j - p)) * H_ + h];
  }
}

template <typename T>
void BucketedBiasTerm<T>::begin_backward() {
  grads_.assign(static_cast<std::size_t>(blocks_) * params_.buckets, T(0));
}

template <typename T>
void BucketedBiasTerm<T>::backward(int b, int h, const T*, int, const T*, int, const T* ds, int lq, int lk, T*, T*) {
  T* g = grads_.data() + (static_cast<std::size_t>(b) * H_ + h) * params_.buckets;  // (buckets)
  for (int i = 0; i < lq; ++i) {
    const int p = lk - lq + i;
    const T* d = ds + static_cast<long>(i) * lk;
    // A causal block's scores past the query were masked: their gradient is zero.
    for (int j = 0; j < lk; ++j) g[bucket_of(j - p)] += d[j];
  }
}

template <typename T>
void BucketedBiasTerm<T>::finish_backward() {
  if (grads_.empty()) return;
  if (params_.dtable) {
    for (int bh = 0; bh < blocks_; ++bh) {
      const int h = bh % H_;
      const T* g = grads_.data() + static_cast<std::size_t>(bh) * params_.buckets;
      for (int k = 0; k < params_.buckets; ++k) params_.dtable[static_cast<long>(k) * H_ + h] += g[k];
    }
  }
  std::vector<T>().swap(grads_);  // until the next backward pass
}

template class BucketedBiasTerm<float>;
template class BucketedBiasTerm<double>;

}  // namespace heptapod
