// The input embedding layer: drop(E[token] * sqrt(C) + PE[position]), forward and backward.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/layers/dropout_site.h"

namespace heptapod {

template <typename T>
struct Embedding {
  const T* table = nullptr;  // (V, C), possibly shared with other roles
  T* dtable = nullptr;       // (V, C) gradient, accumulated
  int C = 0;
};

// tokens: (B, L); pe: (>= L, C) -> returns x: (B*L, C) carved from the arena.
template <typename T>
T* embedding_forward(const Embedding<T>& emb, const int* tokens, int B, int L, const T* pe, const DropoutSite& drop,
                     Arena& arena);

// dx: (B*L, C), modified in place (dropout backward); dtable accumulated.
template <typename T>
void embedding_backward(const Embedding<T>& emb, T* dx, const int* tokens, int B, int L, const DropoutSite& drop);

}  // namespace heptapod
