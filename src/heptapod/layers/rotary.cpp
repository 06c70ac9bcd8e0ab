// Rotary position embeddings: the scaled frequencies, the angles of a pass's rows, the rotation of heads.
#include "heptapod/layers/rotary.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "heptapod/core/error.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod {

namespace {

constexpr std::pair<RopeScaling, const char*> kScalings[] = {{RopeScaling::None, "none"},
                                                             {RopeScaling::Linear, "linear"},
                                                             {RopeScaling::Dynamic, "dynamic"},
                                                             {RopeScaling::Llama3, "llama3"}};

// theta^(-2i / R) for i < R/2.
std::vector<double> plain_frequencies(double theta, int R) {
  std::vector<double> inv(static_cast<std::size_t>(R / 2));
  for (int i = 0; i < R / 2; ++i) inv[static_cast<std::size_t>(i)] = 1.0 / std::pow(theta, 2.0 * i / R);
  return inv;
}

}  // namespace

const char* rope_scaling_name(RopeScaling scaling) {
  for (const auto& [s, name] : kScalings)
    if (s == scaling) return name;
  return "?";
}

RopeScaling rope_scaling_from_name(const std::string& name, const std::string& where) {
  for (const auto& [s, n] : kScalings)
    if (name == n) return s;
  throw Error(where + ": rope scaling \"" + name + "\" is not supported (Heptapod has none, linear, dynamic and "
                      "llama3)");
}

void validate(const RotaryConfig& r, int head_dim, const std::string& where) {
  require(r.theta > 1.0 && std::isfinite(r.theta), where + ": rotary theta must be a finite number above 1");
  require(r.dims >= 0 && r.dims % 2 == 0 && r.dims <= head_dim,
          where + ": rotary dims must be even and at most the head size (" + std::to_string(head_dim) + "), got " +
              std::to_string(r.dims));
  require(rotary_dims(r, head_dim) % 2 == 0, where + ": rotary positions need an even head size");
  if (r.scaling == RopeScaling::None) return;
  require(r.factor >= 1.0 && std::isfinite(r.factor),
          where + ": the rope scaling factor must be a finite number of at least 1");
  if (r.scaling == RopeScaling::Linear) return;
  require(r.original_positions > 0, where + ": " + rope_scaling_name(r.scaling) +
                                        " rope scaling needs original_positions (the original context length)");
  require(r.scaling != RopeScaling::Dynamic || rotary_dims(r, head_dim) > 2,
          where + ": dynamic rope scaling needs more than 2 rotated columns per head");
  if (r.scaling == RopeScaling::Llama3)
    require(r.high_freq_factor > r.low_freq_factor && r.low_freq_factor > 0,
            where + ": llama3 rope scaling needs high_freq_factor > low_freq_factor > 0");
}

std::vector<double> rotary_frequencies(const RotaryConfig& r, int head_dim, int seq_len) {
  const int R = rotary_dims(r, head_dim);
  switch (r.scaling) {
    case RopeScaling::None: return plain_frequencies(r.theta, R);
    case RopeScaling::Linear: {
      std::vector<double> inv = plain_frequencies(r.theta, R);
      for (double& f : inv) f /= r.factor;
      return inv;
    }
    case RopeScaling::Dynamic: {
      // Past the original context the base grows with the length (NTK-aware scaling).
      const double length = std::max(seq_len, r.original_positions);
      const double grown =
          r.theta * std::pow(r.factor * length / r.original_positions - (r.factor - 1.0), R / (R - 2.0));
      return plain_frequencies(grown, R);
    }
    case RopeScaling::Llama3: {
      std::vector<double> inv = plain_frequencies(r.theta, R);
      const double original = r.original_positions;
      const double short_wave = original / r.high_freq_factor, long_wave = original / r.low_freq_factor;
      for (double& f : inv) {
        const double wavelength = 2.0 * std::numbers::pi / f;
        if (wavelength < short_wave) continue;  // high frequencies: kept
        if (wavelength > long_wave) {           // low frequencies: scaled
          f /= r.factor;
          continue;
        }
        const double smooth = (original / wavelength - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
        f = (1.0 - smooth) * f / r.factor + smooth * f;
      }
      return inv;
    }
  }
  return {};
}

template <typename T>
RotaryAngles<T> rotary_angles(const RotaryConfig& rope, int head_dim, const int* positions, const int* lengths,
                              int rows, Arena& arena) {
  const int half = rotary_dims(rope, head_dim) / 2;
  T* cos = arena.alloc<T>(static_cast<std::size_t>(rows) * half);  // (rows, half)
  T* sin = arena.alloc<T>(static_cast<std::size_t>(rows) * half);  // (rows, half)
  // Only dynamic scaling's frequencies depend on the length; the others' are computed once.
  const bool by_length = rope.scaling == RopeScaling::Dynamic;
  const std::vector<double> shared = rotary_frequencies(rope, head_dim, 0);
#pragma omp parallel if (static_cast<long>(rows) * half * 16 > kernels::kParallelMinWork)
  {
    // A sentence's rows share a length: a thread recomputes dynamic frequencies only when it changes.
    std::vector<double> own;
    int own_length = -1;
#pragma omp for schedule(static)
    for (int n = 0; n < rows; ++n) {
      if (by_length && own_length != lengths[n]) {
        own = rotary_frequencies(rope, head_dim, lengths[n]);
        own_length = lengths[n];
      }
      const std::vector<double>& inv = by_length ? own : shared;
      for (int i = 0; i < half; ++i) {
        const double angle = positions[n] * inv[static_cast<std::size_t>(i)];
        cos[static_cast<std::size_t>(n) * half + i] = static_cast<T>(std::cos(angle));
        sin[static_cast<std::size_t>(n) * half + i] = static_cast<T>(std::sin(angle));
      }
    }
  }
  return {cos, sin, rows, half};
}

template <typename T>
void rotate_heads(const RotaryAngles<T>& a, T* x, long ld, int heads, int head_dim, bool inverse) {
  const int half = a.half;
  const T sign = inverse ? T(-1) : T(1);
#pragma omp parallel for schedule(static) if (static_cast<long>(a.rows) * heads * half > kernels::kParallelMinWork)
  for (int n = 0; n < a.rows; ++n) {
    const T* c = a.cos + static_cast<std::size_t>(n) * half;  // (half)
    const T* s = a.sin + static_cast<std::size_t>(n) * half;  // (half)
    for (int h = 0; h < heads; ++h) {
      T* first = x + n * ld + static_cast<long>(h) * head_dim;  // columns [0, half) of the head
      T* second = first + half;                                 // columns [half, 2 half)
#pragma omp simd
      for (int i = 0; i < half; ++i) {
        const T u = first[i], v = second[i], si = sign * s[i];
        first[i] = u * c[i] - v * si;
        second[i] = v * c[i] + u * si;
      }
    }
  }
}

template RotaryAngles<float> rotary_angles<float>(const RotaryConfig&, int, const int*, const int*, int, Arena&);
template RotaryAngles<double> rotary_angles<double>(const RotaryConfig&, int, const int*, const int*, int, Arena&);
template void rotate_heads<float>(const RotaryAngles<float>&, float*, long, int, int, bool);
template void rotate_heads<double>(const RotaryAngles<double>&, double*, long, int, int, bool);

}  // namespace heptapod
