// Embedding layer over kernels/embedding.h and kernels/dropout.h.
#include "heptapod/layers/embedding.h"

#include <cmath>
#include <type_traits>

#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod {

template <typename T>
void embed(const Embedding<T>& emb, const int* tokens, long N, const int* positions, const T* pe, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    if (emb.packed) {
#pragma omp parallel for schedule(static) if (N * emb.C > kernels::kParallelMinWork)
      for (long n = 0; n < N; ++n) emb.packed->row(tokens[n], out + n * emb.C);
      kernels::scale_add_positions(out, N, positions, emb.C, emb.scale, pe);
      return;
    }
  }
  kernels::embedding_forward(tokens, N, positions, emb.table, emb.C, emb.scale, pe, out);
}

template <typename T>
T* embedding_forward(const Embedding<T>& emb, const int* tokens, long N, const int* positions, const T* pe,
                     const DropoutSite& drop, Arena& arena) {
  const long count = N * emb.C;
  T* x = arena.alloc<T>(count);  // (N, C)
  embed(emb, tokens, N, positions, pe, x);
  kernels::dropout(x, count, drop.rate, drop.seed, drop.stream);
  return x;
}

template <typename T>
void embedding_backward(const Embedding<T>& emb, T* dx, const int* tokens, long N, const DropoutSite& drop) {
  kernels::dropout(dx, N * emb.C, drop.rate, drop.seed, drop.stream);
  if (emb.dtable) kernels::embedding_backward(dx, tokens, N, emb.C, emb.scale, emb.dtable);
}

template void embed<float>(const Embedding<float>&, const int*, long, const int*, const float*, float*);
template void embed<double>(const Embedding<double>&, const int*, long, const int*, const double*, double*);
template float* embedding_forward<float>(const Embedding<float>&, const int*, long, const int*, const float*,
                                         const DropoutSite&, Arena&);
template double* embedding_forward<double>(const Embedding<double>&, const int*, long, const int*, const double*,
                                           const DropoutSite&, Arena&);
template void embedding_backward<float>(const Embedding<float>&, float*, const int*, long, const DropoutSite&);
template void embedding_backward<double>(const Embedding<double>&, double*, const int*, long, const DropoutSite&);

}  // namespace heptapod
