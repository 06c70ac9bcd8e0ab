// Sentence layout: prefix sums of the lengths, per-row positions, and moves to and from padded matrices.
#include "heptapod/layers/sequences.h"

#include <algorithm>

#include "heptapod/core/error.h"

namespace heptapod {

Sequences::Sequences(const int* lengths, int B) : len(lengths, lengths + B), start(B + 1, 0) {
  for (int b = 0; b < B; ++b) {
    require(len[b] >= 0, "sequences: negative length");
    start[b + 1] = start[b] + len[b];
    longest = std::max(longest, len[b]);
  }
  position.resize(rows());
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < len[b]; ++i) position[start[b] + i] = i;
}

template <typename E>
std::vector<E> Sequences::pack(const E* padded, int L) const {
  std::vector<E> out(rows());
  for (int b = 0; b < count(); ++b)
    std::copy_n(padded + static_cast<long>(b) * L, std::min(len[b], L), out.begin() + start[b]);
  return out;
}

template <typename E>
void Sequences::unpack(const E* packed, int W, int L, E* padded) const {
  for (int b = 0; b < count(); ++b) {
    E* dst = padded + static_cast<long>(b) * L * W;
    const long real = static_cast<long>(std::min(len[b], L)) * W;
    std::copy_n(packed + static_cast<long>(start[b]) * W, real, dst);
    std::fill(dst + real, dst + static_cast<long>(L) * W, E(0));
  }
}

template std::vector<int> Sequences::pack<int>(const int*, int) const;
template void Sequences::unpack<float>(const float*, int, int, float*) const;
template void Sequences::unpack<double>(const double*, int, int, double*) const;

}  // namespace heptapod
