// Dropout kernel over the counter-based generator in core/random.h.
#include "heptapod/kernels/dropout.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/random.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

// Runs fn(begin, count) over chunks of [0, n) in parallel.
template <typename Fn>
void for_chunks(long n, Fn&& fn) {
  constexpr long kChunk = 4096;
  const long chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n > kParallelMinWork / 4)
  for (long c = 0; c < chunks; ++c) fn(c * kChunk, std::min(kChunk, n - c * kChunk));
}

}  // namespace

template <typename T>
void dropout_copy_slice(const T* src, T* dst, long n, std::uint64_t first, float p, std::uint64_t seed,
                        std::uint64_t stream) {
  if (p <= 0.0f) {
    if (dst != src) std::copy_n(src, n, dst);
    return;
  }
  const T keep_scale = T(1) / (T(1) - static_cast<T>(p));
  // An element is dropped when its word's top 24 bits, as a fraction of 2^24, fall below p: the same test as
  // counter_uniform(...) < p, in integers.
  const auto threshold = static_cast<std::uint32_t>(std::ceil(static_cast<double>(p) * 16777216.0));
  while (n > 0) {  // one piece per block of 2^32 indices
    const CounterWords words(seed, stream, static_cast<std::uint32_t>(first >> 32));
    const std::uint32_t low = static_cast<std::uint32_t>(first);
    const long count = static_cast<long>(std::min<std::uint64_t>(static_cast<std::uint64_t>(n), (1ull << 32) - low));
#pragma omp simd
    for (long i = 0; i < count; ++i)
      dst[i] = (words(low + static_cast<std::uint32_t>(i)) >> 8) < threshold ? T(0) : src[i] * keep_scale;
    src += count;
    dst += count;
    n -= count;
    first += static_cast<std::uint64_t>(count);
  }
}

template <typename T>
void dropout_slice(T* x, long n, std::uint64_t first, float p, std::uint64_t seed, std::uint64_t stream) {
  dropout_copy_slice(x, x, n, first, p, seed, stream);
}

template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  if (p <= 0.0f) return;
  for_chunks(n, [&](long begin, long count) {
    dropout_slice(x + begin, count, static_cast<std::uint64_t>(begin), p, seed, stream);
  });
}

template <typename T>
void dropout_copy(const T* src, T* dst, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  for_chunks(n, [&](long begin, long count) {
    dropout_copy_slice(src + begin, dst + begin, count, static_cast<std::uint64_t>(begin), p, seed, stream);
  });
}

template <typename T>
void dropout_add(const T* x, T* delta, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  for_chunks(n, [&](long begin, long count) {
    T* d = delta + begin;
    const T* r = x + begin;
    dropout_slice(d, count, static_cast<std::uint64_t>(begin), p, seed, stream);
    for (long i = 0; i < count; ++i) d[i] += r[i];
  });
}

template <typename T>
void dropout_backward_from_output(T* grad, const T* out, long n, float p) {
  if (p <= 0.0f) return;
  const T keep_scale = T(1) / (T(1) - static_cast<T>(p));
#pragma omp simd
  for (long i = 0; i < n; ++i) grad[i] = out[i] != T(0) ? grad[i] * keep_scale : T(0);
}

void register_dropout(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, dropout);
  HEPTAPOD_REGISTER_TYPED(t, dropout_copy);
  HEPTAPOD_REGISTER_TYPED(t, dropout_add);
  HEPTAPOD_REGISTER_TYPED(t, dropout_slice);
  HEPTAPOD_REGISTER_TYPED(t, dropout_copy_slice);
  HEPTAPOD_REGISTER_TYPED(t, dropout_backward_from_output);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
