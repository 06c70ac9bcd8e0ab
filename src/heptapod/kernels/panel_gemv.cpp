// Panel GEMV: per 64-column panel and row, 64 accumulators updated with one broadcast x[k] per panel row;
// the fixed-width inner loop vectorises to whole registers. Panels are split between threads when the
// weights are large.
#include "heptapod/kernels/panel_gemv.h"

#include <algorithm>

namespace heptapod::kernels {

void panel_gemv(const float* panels, int N, int K, int k_padded, const float* x, int rows, const float* bias, bool relu,
                float* y) {
  const int panel_count = (N + kPanelWidth - 1) / kPanelWidth;
  const bool parallel = static_cast<long>(N) * K >= (1L << 17);  // below ~512 KB of weights one thread streams them
#pragma omp parallel for schedule(static) if (parallel)
  for (int p = 0; p < panel_count; ++p) {
    const float* panel = panels + static_cast<long>(p) * k_padded * kPanelWidth;  // (k_padded, 64)
    const int n0 = p * kPanelWidth, width = std::min(kPanelWidth, N - n0);
    for (int r = 0; r < rows; ++r) {
      const float* xr = x + static_cast<long>(r) * K;
      float acc[kPanelWidth] = {};
      for (int k = 0; k < K; ++k) {
        const float xk = xr[k];
        const float* w = panel + static_cast<long>(k) * kPanelWidth;
        for (int j = 0; j < kPanelWidth; ++j) acc[j] += xk * w[j];
      }
      float* yr = y + static_cast<long>(r) * N + n0;
      for (int j = 0; j < width; ++j) {
        const float v = acc[j] + (bias ? bias[n0 + j] : 0.0f);
        yr[j] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

}  // namespace heptapod::kernels
