// Per-head norms: the heads gathered into contiguous rows, normalised by the layer norm kernels, scattered back.
#include "heptapod/layers/head_norm.h"

#include <algorithm>

namespace heptapod {

namespace {

// x: (rows, ld) heads of D from column 0 <-> packed: (rows * heads, D).
template <typename T>
void gather_heads(const T* x, long ld, int rows, int width, T* packed) {
  for (int r = 0; r < rows; ++r) std::copy_n(x + r * ld, width, packed + static_cast<long>(r) * width);
}

template <typename T>
void scatter_heads(const T* packed, long ld, int rows, int width, T* x) {
  for (int r = 0; r < rows; ++r) std::copy_n(packed + static_cast<long>(r) * width, width, x + r * ld);
}

}  // namespace

template <typename T>
void head_norm_forward(const LayerNorm<T>& norm, T* x, long ld, int rows, int heads, Arena& arena,
                       HeadNormSaved<T>& saved) {
  const int width = heads * norm.C;
  T* in = arena.alloc<T>(static_cast<std::size_t>(rows) * width);  // (rows * heads, D)
  gather_heads(x, ld, rows, width, in);
  const T* out = layer_norm_forward(norm, in, rows * heads, arena, saved.norm);  // (rows * heads, D)
  scatter_heads(out, ld, rows, width, x);
  saved.rows = rows;
}

template <typename T>
void head_norm_backward(const LayerNorm<T>& norm, T* dx, long ld, int heads, const HeadNormSaved<T>& saved,
                        Arena& arena) {
  const int rows = saved.rows, width = heads * norm.C;
  T* dout = arena.alloc<T>(static_cast<std::size_t>(rows) * width);  // (rows * heads, D)
  T* din = arena.alloc<T>(static_cast<std::size_t>(rows) * width);   // (rows * heads, D)
  gather_heads(dx, ld, rows, width, dout);
  layer_norm_backward(norm, dout, rows * heads, saved.norm, din, false);
  scatter_heads(din, ld, rows, width, dx);
}

template void head_norm_forward<float>(const LayerNorm<float>&, float*, long, int, int, Arena&, HeadNormSaved<float>&);
template void head_norm_forward<double>(const LayerNorm<double>&, double*, long, int, int, Arena&,
                                        HeadNormSaved<double>&);
template void head_norm_backward<float>(const LayerNorm<float>&, float*, long, int, const HeadNormSaved<float>&,
                                        Arena&);
template void head_norm_backward<double>(const LayerNorm<double>&, double*, long, int, const HeadNormSaved<double>&,
                                         Arena&);

}  // namespace heptapod
