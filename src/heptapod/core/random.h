// Random numbers that do not depend on thread count or call order.
// CounterWords hashes (seed, stream, index) to random words: dropout masks are a pure function of where they
// are, so the backward pass regenerates them instead of storing them. Rng is a small sequential generator
// (splitmix64) for initialisation and shuffling, identical on every platform.
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

// The 32-bit words of one counter-based sequence (seed, stream): word(i) is a pure function of the sequence
// and i, three multiply rounds on 32-bit lanes (Wellons' triple32 constants), which vectorise sixteen to an
// AVX-512 register. The key enters twice, before the first round and before the last, so two sequences are
// not one permutation of the other. A sequence is 2^32 words per block; indices past that continue in further
// blocks, each with its own key.
class CounterWords {
 public:
  CounterWords(std::uint64_t seed, std::uint64_t stream, std::uint32_t block = 0) {
    const std::uint64_t k = mix64(mix64(seed ^ mix64(stream)) + block);
    in_ = static_cast<std::uint32_t>(k);
    mid_ = static_cast<std::uint32_t>(k >> 32);
  }
  std::uint32_t operator()(std::uint32_t index) const {
    std::uint32_t x = index ^ in_;
    x ^= x >> 17;
    x *= 0xED5AD4BBu;
    x ^= x >> 11;
    x *= 0xAC4C1B51u;
    x ^= (x >> 15) ^ mid_;
    x *= 0x31848BABu;
    return x ^ (x >> 14);
  }

 private:
  std::uint32_t in_, mid_;
};

// Uniform in [0, 1) with 24 random bits: element `index` of the sequence (seed, stream).
inline float counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const CounterWords words(seed, stream, static_cast<std::uint32_t>(index >> 32));
  return static_cast<float>(words(static_cast<std::uint32_t>(index)) >> 8) * (1.0f / 16777216.0f);
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

 private:
  std::uint64_t state_;
};

}  // namespace heptapod
