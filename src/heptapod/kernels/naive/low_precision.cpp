// Naive twins of the int8 and bfloat16 products and of the bfloat16 rounding (see naive.h), straight from
// their definitions: no layout, no compensation, the rounding done by counting significant bits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "heptapod/kernels/naive/naive.h"

namespace heptapod::kernels::naive {

void int8_linear(const std::int8_t* values, const float* scales, int out, int in, const float* x, int rows,
                 const float* bias, bool relu, float* y, std::int32_t* acc) {
  std::vector<int> q(in);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<long>(r) * in;
    bool finite = true;
    float m = 0.0f;
    for (int i = 0; i < in; ++i) {
      finite = finite && std::isfinite(xr[i]);
      m = std::max(m, std::fabs(xr[i]));
    }
    const float a = finite ? m / 127.0f : NAN;
    for (int i = 0; i < in; ++i)
      q[i] = finite && a != 0.0f ? static_cast<int>(std::clamp(std::nearbyint(xr[i] / a), -127.0f, 127.0f)) : 0;
    for (int o = 0; o < out; ++o) {
      std::int32_t s = 0;
      for (int i = 0; i < in; ++i) s += q[i] * values[static_cast<long>(o) * in + i];
      if (acc) acc[static_cast<long>(r) * out + o] = s;
      const float scale = a * scales[o];
      float v = static_cast<float>(s) * scale;
      if (bias) v = v + bias[o];
      y[static_cast<long>(r) * out + o] = relu && v < 0.0f ? 0.0f : v;
    }
  }
}

void round_to_bfloat16(const float* x, long n, float* out) {
  for (long i = 0; i < n; ++i) {
    const double v = x[i];
    if (!std::isfinite(v) || v == 0.0) {
      out[i] = x[i];
      continue;
    }
    // 8 significant bits, but no finer than bfloat16's smallest subnormal, 2^-133.
    int e;
    std::frexp(v, &e);  // |v| = f * 2^e, f in [0.5, 1)
    const double quantum = std::ldexp(1.0, std::max(e - 8, -133));
    const double r = std::nearbyint(v / quantum) * quantum;
    out[i] =
        std::fabs(r) > 3.3895313892515355e38 ? static_cast<float>(std::copysign(INFINITY, v)) : static_cast<float>(r);
  }
}

void bf16_linear(const std::uint16_t* values, int out, int in, const float* x, int rows, const float* bias, bool relu,
                 double* y) {
  std::vector<float> xr(in);
  for (int r = 0; r < rows; ++r) {
    round_to_bfloat16(x + static_cast<long>(r) * in, in, xr.data());
    for (int o = 0; o < out; ++o) {
      double s = bias ? bias[o] : 0.0;
      for (int i = 0; i < in; ++i) {
        const std::uint32_t bits = static_cast<std::uint32_t>(values[static_cast<long>(o) * in + i]) << 16;
        float w;
        std::memcpy(&w, &bits, 4);
        s += static_cast<double>(xr[i]) * w;
      }
      y[static_cast<long>(r) * out + o] = relu && s < 0.0 ? 0.0 : s;
    }
  }
}

}  // namespace heptapod::kernels::naive
