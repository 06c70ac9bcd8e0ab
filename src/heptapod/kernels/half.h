// IEEE binary16 ("half") storage for the decoder's key/value caches: scalar conversion both ways (round to
// nearest even, overflow to infinity, subnormals kept), which are also the naive twins the kernel tests
// compare against over every half value; and, through the kernel dispatch, a row's conversion and the two
// products attention needs against a stored vector, with float arithmetic throughout (each ISA's versions in
// kernels/isa/half_simd.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace heptapod::kernels {

using half = std::uint16_t;

inline half to_half_scalar(float x) {
  std::uint32_t f;
  std::memcpy(&f, &x, sizeof f);
  const auto sign = static_cast<half>((f >> 16) & 0x8000u);
  f &= 0x7fffffffu;
  if (f >= 0x7f800000u) return sign | (f > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN stays NaN, inf stays inf
  if (f >= 0x477ff000u) return sign | 0x7c00u;                               // 65520 and above round to inf
  if (f < 0x38800000u) {                                                      // below 2^-14: subnormal or zero
    float a;
    std::memcpy(&a, &f, sizeof a);
    return sign | static_cast<half>(std::nearbyint(a * 16777216.0f));        // units of 2^-24, nearest even
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest, ties to even.
  f += 0xc8000fffu + ((f >> 13) & 1u);
  return sign | static_cast<half>(f >> 13);
}

inline float from_half_scalar(half h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float out;
  if (e == 0) {
    out = static_cast<float>(m) * (1.0f / 16777216.0f);
    return sign ? -out : out;
  }
  const std::uint32_t bits = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112) << 23) | (m << 13));
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// x: (n) -> y: (n) = half(x).
void to_half(const float* x, half* y, long n);
// a: (n), b: (n) stored -> sum_i a[i] * b[i].
float dot(const float* a, const half* b, long n);
// out: (n) += w * v (n) for a stored vector v (float or half).
template <typename E>
void add_scaled(float w, const E* v, float* out, long n);

}  // namespace heptapod::kernels
