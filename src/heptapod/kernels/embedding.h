// Token embedding lookup with the sqrt(d_model) scale and positional encoding, and its scatter-add backward.
#pragma once

namespace heptapod::kernels {

// tokens: (B, T); table: (V, C); pe: (>= T, C) positional table -> out: (B*T, C) =
// table[token] * scale + pe[t]. Token ids must already be validated to lie in [0, V).
template <typename T>
void embedding_forward(const int* tokens, int B, int Tlen, const T* table, int C, T scale, const T* pe, T* out);

// x: (B*T, C) holding table rows -> x * scale + pe[t], in place (for rows gathered from elsewhere).
template <typename T>
void scale_add_positions(T* x, int B, int Tlen, int C, T scale, const T* pe);

// dout: (B*T, C) -> dtable: (V, C) += scale * dout scattered to each row's token.
template <typename T>
void embedding_backward(const T* dout, const int* tokens, long N, int C, T scale, T* dtable);

// pe: (L, C) sinusoidal positional encoding of the paper, positions from 0.
template <typename T>
void sinusoid_table(int L, int C, T* pe);

}  // namespace heptapod::kernels
