// Random numbers that do not depend on thread count or call order.
// counter_uniform() hashes (seed, stream, index) to a uniform float in [0, 1): dropout masks are a pure
// function of where they are, so the backward pass regenerates them instead of storing them. Rng is a small
// sequential generator (splitmix64) for initialisation and shuffling, identical on every platform.
#pragma once

#include <cmath>
#include <cstdint>

namespace heptapod {

inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The key of counter_uniform's sequence (seed, stream), made once per tensor.
inline std::uint64_t counter_key(std::uint64_t seed, std::uint64_t stream) { return mix64(seed ^ mix64(stream)); }

// Uniform in [0, 1) with 24 random bits, element `index` of the sequence `key`: one mixing round per value,
// which vectorises (64-bit multiplies) in the dropout kernel.
inline float counter_uniform(std::uint64_t key, std::uint64_t index) {
  return static_cast<float>(mix64(key ^ index) >> 40) * (1.0f / 16777216.0f);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64() { return mix64(state_++); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next_u64() % n; }
  // Standard normal (Box-Muller; one value per call for simplicity and reproducibility).
  double normal() {
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  std::uint64_t state() const { return state_; }
  void set_state(std::uint64_t s) { state_ = s; }

 private:
  std::uint64_t state_;
};

}  // namespace heptapod
