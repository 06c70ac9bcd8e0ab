// A handful of rows against weights stored as column panels, the layout oneDNN picks for packed float
// weights on this machine ("16a64b": W^T (K, N) cut into panels of 64 columns, each panel K_padded x 64
// row-major). The batch-1 decoding step's products: the weights stream once from memory, each panel is
// reused from cache for every row, and no library call or thread start-up is paid for tiny products.
#pragma once

namespace heptapod::kernels {

inline constexpr int kPanelWidth = 64;

// panels: (ceil(N / 64), k_padded, 64); x: (rows, K) -> y: (rows, N) = x W^T (+ bias (N) when not null),
// ReLU applied when `relu`.
void panel_gemv(const float* panels, int N, int K, int k_padded, const float* x, int rows, const float* bias, bool relu,
                float* y);

}  // namespace heptapod::kernels
