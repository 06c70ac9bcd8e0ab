// Embedding kernels. The backward scatter runs over column blocks so repeated tokens never race.
#include "heptapod/kernels/embedding.h"

#include <cmath>

#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

template <typename T>
void embedding_forward(const int* tokens, long N, const int* positions, const T* table, int C, T scale, const T* pe,
                       T* out) {
#pragma omp parallel for schedule(static) if (N * C > kParallelMinWork)
  for (long n = 0; n < N; ++n) {
    const T* e = table + static_cast<long>(tokens[n]) * C;
    const T* p = pe + static_cast<long>(positions[n]) * C;
    T* o = out + n * C;
    for (int c = 0; c < C; ++c) o[c] = e[c] * scale + p[c];
  }
}

template <typename T>
void scale_add_positions(T* x, long N, const int* positions, int C, T scale, const T* pe) {
#pragma omp parallel for schedule(static) if (N * C > kParallelMinWork)
  for (long n = 0; n < N; ++n) {
    const T* p = pe + static_cast<long>(positions[n]) * C;
    T* o = x + n * C;
    for (int c = 0; c < C; ++c) o[c] = o[c] * scale + p[c];
  }
}

template <typename T>
void embedding_backward(const T* dout, const int* tokens, long N, int C, T scale, T* dtable) {
  for_column_blocks(C, N * C, [&](int c0, int c1) {
    for (long n = 0; n < N; ++n) {
      const T* g = dout + n * C;
      T* d = dtable + static_cast<long>(tokens[n]) * C;
      for (int c = c0; c < c1; ++c) d[c] += scale * g[c];
    }
  });
}

template <typename T>
void sinusoid_table(int L, int C, T* pe) {
  for (int p = 0; p < L; ++p) {
    for (int c = 0; c < C; ++c) {
      const int i2 = c - (c % 2);
      const double angle = p / std::pow(10000.0, static_cast<double>(i2) / C);
      pe[static_cast<long>(p) * C + c] = static_cast<T>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
}

template void embedding_forward<float>(const int*, long, const int*, const float*, int, float, const float*, float*);
template void embedding_forward<double>(const int*, long, const int*, const double*, int, double, const double*,
                                        double*);
template void scale_add_positions<float>(float*, long, const int*, int, float, const float*);
template void scale_add_positions<double>(double*, long, const int*, int, double, const double*);
template void embedding_backward<float>(const float*, const int*, long, int, float, float*);
template void embedding_backward<double>(const double*, const int*, long, int, double, double*);
template void sinusoid_table<float>(int, int, float*);
template void sinusoid_table<double>(int, int, double*);

}  // namespace heptapod::kernels
