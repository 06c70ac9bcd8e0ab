// Embedding kernels. The backward scatter runs over groups of rows with one token, so repeated tokens never
// race.
#include "heptapod/kernels/embedding.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

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
  // Rows grouped by token, each group in row order (a stable sort), groups in parallel: repeated tokens never
  // race, each table row adds its gradient rows in row order whatever the thread count, and every thread
  // streams whole rows.
  thread_local std::vector<long> order, group_start;  // (N), (groups + 1); kept between calls
  order.resize(N);
  std::iota(order.begin(), order.end(), 0L);
  std::stable_sort(order.begin(), order.end(), [&](long a, long b) { return tokens[a] < tokens[b]; });
  group_start.clear();
  for (long i = 0; i < N; ++i)
    if (i == 0 || tokens[order[i]] != tokens[order[i - 1]]) group_start.push_back(i);
  group_start.push_back(N);
  const long groups = static_cast<long>(group_start.size()) - 1;
  const long* rows = order.data();  // the thread_local vectors belong to this thread: pass their data on
  const long* starts = group_start.data();
#pragma omp parallel for schedule(static) if (N * C > kParallelMinWork)
  for (long g = 0; g < groups; ++g) {
    const T s = scale;  // a local: stores through d cannot change it
    T* d = dtable + static_cast<long>(tokens[rows[starts[g]]]) * C;
    for (long i = starts[g]; i < starts[g + 1]; ++i) {
      const T* row = dout + rows[i] * C;
#pragma omp simd
      for (int c = 0; c < C; ++c) d[c] += s * row[c];
    }
  }
}

template <typename T>
void sinusoid_table(int L, int C, SinusoidLayout layout, int first_position, T* pe) {
  const bool interleaved = layout == SinusoidLayout::Interleaved;
  const int h = C / 2;
  for (int r = 0; r < L; ++r) {
    const double p = first_position + r;
    for (int c = 0; c < C; ++c) {
      // Column c's frequency index i and whether it holds the sine.
      const int i = interleaved ? c / 2 : c % h;
      const bool sine = interleaved ? c % 2 == 0 : c < h;
      const double angle = layout == SinusoidLayout::Tensor2Tensor
                               ? p * std::exp(-std::log(10000.0) * i / (h - 1))
                               : p / std::pow(10000.0, 2.0 * i / C);
      pe[static_cast<long>(r) * C + c] = static_cast<T>(sine ? std::sin(angle) : std::cos(angle));
    }
  }
}

void register_embedding(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, embedding_forward);
  HEPTAPOD_REGISTER_TYPED(t, scale_add_positions);
  HEPTAPOD_REGISTER_TYPED(t, embedding_backward);
  HEPTAPOD_REGISTER_TYPED(t, sinusoid_table);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
