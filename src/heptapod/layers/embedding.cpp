// Embedding layer over kernels/embedding.h and kernels/dropout.h.
#include "heptapod/layers/embedding.h"

#include <cmath>

#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/embedding.h"

namespace heptapod {

template <typename T>
T* embedding_forward(const Embedding<T>& emb, const int* tokens, int B, int L, const T* pe, const DropoutSite& drop,
                     Arena& arena) {
  const long count = static_cast<long>(B) * L * emb.C;
  T* x = arena.alloc<T>(count);
  kernels::embedding_forward(tokens, B, L, emb.table, emb.C, std::sqrt(T(emb.C)), pe, x);
  kernels::dropout(x, count, drop.rate, drop.seed, drop.stream);
  return x;
}

template <typename T>
void embedding_backward(const Embedding<T>& emb, T* dx, const int* tokens, int B, int L, const DropoutSite& drop) {
  const long N = static_cast<long>(B) * L;
  kernels::dropout(dx, N * emb.C, drop.rate, drop.seed, drop.stream);
  kernels::embedding_backward(dx, tokens, N, emb.C, std::sqrt(T(emb.C)), emb.dtable);
}

template float* embedding_forward<float>(const Embedding<float>&, const int*, int, int, const float*,
                                         const DropoutSite&, Arena&);
template double* embedding_forward<double>(const Embedding<double>&, const int*, int, int, const double*,
                                           const DropoutSite&, Arena&);
template void embedding_backward<float>(const Embedding<float>&, float*, const int*, int, int, const DropoutSite&);
template void embedding_backward<double>(const Embedding<double>&, double*, const int*, int, int,
                                         const DropoutSite&);

}  // namespace heptapod
