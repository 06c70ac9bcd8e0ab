// Multi-head scaled dot-product attention (self or cross), forward and backward.
#pragma once

#include "heptapod/core/arena.h"
#include "heptapod/layers/dropout_site.h"
#include "heptapod/layers/linear.h"

namespace heptapod {

template <typename T>
struct MultiHeadAttention {
  Linear<T> q_proj, k_proj, v_proj, out_proj;  // each (C, C)
  int heads = 0;
};

struct AttentionShape {
  int B = 0;
  int Tq = 0;                    // padded query length
  int Tk = 0;                    // padded key length
  const int* key_len = nullptr;  // (B) true key lengths
  bool causal = false;           // decoder self-attention
};

template <typename T>
struct AttentionSaved {
  T* q = nullptr;        // (B*Tq, C)
  T* k = nullptr;        // (B*Tk, C)
  T* v = nullptr;        // (B*Tk, C)
  T* probs = nullptr;    // (B, H, Tq, Tk) softmax output
  T* dropped = nullptr;  // (B, H, Tq, Tk) after attention dropout (== probs when the rate is 0)
  T* context = nullptr;  // (B*Tq, C) heads concatenated, before out_proj
};

// xq: (B*Tq, C), xkv: (B*Tk, C) (the same pointer for self-attention) -> y: (B*Tq, C) assigned.
template <typename T>
void attention_forward(const MultiHeadAttention<T>& attn, const T* xq, const T* xkv, const AttentionShape& shape,
                       const DropoutSite& drop, Arena& arena, AttentionSaved<T>& saved, T* y);

// dy: (B*Tq, C). dxq: (B*Tq, C) assigned or accumulated (accumulate_dxq). dxkv: (B*Tk, C) always accumulated;
// for self-attention pass dxq == dxkv. Parameter gradients accumulated. Temporaries come from the arena.
template <typename T>
void attention_backward(const MultiHeadAttention<T>& attn, const T* dy, const T* xq, const T* xkv,
                        const AttentionShape& shape, const DropoutSite& drop, const AttentionSaved<T>& saved,
                        Arena& arena, T* dxq, bool accumulate_dxq, T* dxkv);

}  // namespace heptapod
