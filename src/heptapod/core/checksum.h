// A fast checksum of stored arrays (corpus caches, checkpoints' values), to find damage before a file is
// used: 4-byte words (then any tail bytes) folded in FNV-1a style. Each step is a bijection of the running
// value, so a change to any one word always changes the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace heptapod {

inline constexpr std::uint64_t kChecksumSeed = 0xcbf29ce484222325ull;

// The checksum of `bytes` bytes at `data`, continued from `h` (kChecksumSeed to start).
inline std::uint64_t checksum_words(std::uint64_t h, const void* data, std::size_t bytes) {
  constexpr std::uint64_t kPrime = 0x100000001b3ull;
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 4 <= bytes; i += 4) {
    std::uint32_t w;
    std::memcpy(&w, p + i, 4);
    h = (h ^ w) * kPrime;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * kPrime;
  return h;
}

}  // namespace heptapod
