// Token embedding lookup with the sqrt(d_model) scale and positional encoding, and its scatter-add backward.
#pragma once

namespace heptapod::kernels {

// tokens: (N); positions: (N) each row's position in its sentence; table: (V, C); pe: (> max position, C)
// positional table -> out: (N, C) = table[token] * scale + pe[position]. Token ids must already be
// validated to lie in [0, V).
template <typename T>
void embedding_forward(const int* tokens, long N, const int* positions, const T* table, int C, T scale, const T* pe,
                       T* out);

// x: (N, C) holding table rows -> x * scale + pe[position], in place (for rows gathered from elsewhere).
template <typename T>
void scale_add_positions(T* x, long N, const int* positions, int C, T scale, const T* pe);

// dout: (N, C) -> dtable: (V, C) += scale * dout scattered to each row's token.
template <typename T>
void embedding_backward(const T* dout, const int* tokens, long N, int C, T scale, T* dtable);

// pe: (L, C) sinusoidal positional encoding of the paper, positions from 0.
template <typename T>
void sinusoid_table(int L, int C, T* pe);

}  // namespace heptapod::kernels
