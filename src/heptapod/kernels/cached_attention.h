// Attention of one query row over cached key/value vectors, every head in one call: the incremental
// decoder's self-attention (its cache) and cross-attention (the source's keys and values). The cached
// vectors are float or half (kernels/half.h); arithmetic is float.
#pragma once

#include "heptapod/kernels/half.h"

namespace heptapod::kernels {

// q: (H*D), one query row. Position j's key and value vectors are keys + offsets[j] and values + offsets[j],
// each (KH*D), of element type E (float or half); query head h reads key/value head h / (H / KH) (grouped-query
// attention; KH == H: one each). scores: (H, score_stride), receives each head's attention probabilities over
// the count positions (softmax of scale * (q.k + bias)); out: (H*D), the weighted values. bias: (H,
// score_stride) terms added to each head's raw products q.k before the scale (Transformer-XL's position
// terms), or null. count >= 1.
template <typename E>
void attend_cached(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int KH,
                   int D, float scale, float* scores, int score_stride, float* out, const float* bias = nullptr);

}  // namespace heptapod::kernels
