// A norm of each attention head's columns (Qwen 3's RMSNorm of queries and keys, a gain of head_dim shared by
// the heads), applied in place to projections laid out heads side by side in rows of a wider matrix.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/layers/layer_norm.h"

namespace heptapod {

template <typename T>
struct HeadNormSaved {
  LayerNormSaved<T> norm;  // over the (rows * heads, D) input rows
  int rows = 0;
};

// x: (rows, ld), `heads` heads of norm.C columns from column 0 of each row: each head normalised in place.
template <typename T>
void head_norm_forward(const LayerNorm<T>& norm, T* x, long ld, int rows, int heads, Arena& arena,
                       HeadNormSaved<T>& saved);

// dx: (rows, ld) in the forward's layout, in place: the gradient at the norm's output becomes the gradient at
// its input; the gain's gradient accumulated.
template <typename T>
void head_norm_backward(const LayerNorm<T>& norm, T* dx, long ld, int heads, const HeadNormSaved<T>& saved,
                        Arena& arena);

}  // namespace heptapod
