// The input embedding layer: drop(E[token] * scale + PE[position]), forward and backward; scale is the paper's
// sqrt(C), or 1 for models trained without it.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/kernels/weight_matrix.h"
#include "heptapod/layers/dropout_site.h"

namespace heptapod {

template <typename T>
struct Embedding {
  const T* table = nullptr;  // (V, C), possibly shared with other roles
  T* dtable = nullptr;       // (V, C) gradient, accumulated; null for a frozen table (none computed)
  int C = 0;
  T scale = 0;  // sqrt(C) or 1
  // A model packed for inference reads a table tied to the output projection through the packed projection
  // (table is then null).
  const kernels::WeightMatrix* packed = nullptr;
};

// tokens, positions: (N); pe: (> max position, C) -> out: (N, C) = E[token] * scale + pe[position], no
// dropout.
template <typename T>
void embed(const Embedding<T>& emb, const int* tokens, long N, const int* positions, const T* pe, T* out);

// tokens, positions: (N); pe: (> max position, C) -> returns x: (N, C) carved from the arena, with dropout.
template <typename T>
T* embedding_forward(const Embedding<T>& emb, const int* tokens, long N, const int* positions, const T* pe,
                     const DropoutSite& drop, Arena& arena);

// dx: (N, C), modified in place (dropout backward); dtable accumulated (when there is one).
template <typename T>
void embedding_backward(const Embedding<T>& emb, T* dx, const int* tokens, long N, const DropoutSite& drop);

}  // namespace heptapod
