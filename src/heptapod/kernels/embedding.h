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

// How a sinusoidal table lays out its C columns, with i the frequency index and h = C / 2:
//   Interleaved (the paper):  PE[p, 2i] = sin(p / 10000^(2i/C)), PE[p, 2i+1] = cos(the same angle)
//   Halves (Marian):          PE[p, i] = sin(p / 10000^(2i/C)), PE[p, h + i] = cos(the same angle)
//   Tensor2Tensor (fairseq):  PE[p, i] = sin(p * 10000^(-i/(h-1))), PE[p, h + i] = cos(the same angle)
// The halves layouts need an even C (and Tensor2Tensor C >= 4).
enum class SinusoidLayout { Interleaved, Halves, Tensor2Tensor };

// pe: (L, C), row r the encoding of position first_position + r.
template <typename T>
void sinusoid_table(int L, int C, SinusoidLayout layout, int first_position, T* pe);

}  // namespace heptapod::kernels
