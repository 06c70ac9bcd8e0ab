// A few rows (decoding: up to a few hundred hypotheses) against weights stored as column panels, the layout
// oneDNN picks for packed float weights on AVX-512 machines ("16a64b": W^T (K, N) cut into panels of 64
// columns, each panel k_padded x 64 row-major). The weights of a decoding step do not fit in cache, so each
// product streams them from memory once; this kernel prefetches the next stretch of weights while it
// computes on the current one, where the library's product waits for them.
#pragma once

namespace heptapod::kernels {

inline constexpr int kPanelWidth = 64;

// panels: (ceil(N / 64), k_padded, 64); x: (rows, K) -> y: (rows, N) = x W^T (+ bias (N) when not null),
// ReLU applied when `relu`.
void panel_gemm(const float* panels, int N, int K, int k_padded, const float* x, int rows, const float* bias, bool relu,
                float* y);

}  // namespace heptapod::kernels
