// The sinusoidal positional-encoding table (row p encodes position first_position + p), grown on demand (only when a longer sentence than ever before
// arrives, so the steady state never allocates).
#pragma once

#include <vector>

#include "heptapod/kernels/embedding.h"

namespace heptapod {

template <typename T>
class PositionalTable {
 public:
  PositionalTable(int C, kernels::SinusoidLayout layout, int first_position, int initial_length = 512)
      : C_(C), layout_(layout), first_position_(first_position) {
    ensure(initial_length);
  }
  // pe: (>= length, C)
  const T* table(int length) {
    ensure(length);
    return table_.data();
  }

 private:
  void ensure(int length) {
    if (length <= length_) return;
    length_ = std::max(length, 2 * length_);
    table_.resize(static_cast<std::size_t>(length_) * C_);
    kernels::sinusoid_table(length_, C_, layout_, first_position_, table_.data());
  }
  int C_;
  kernels::SinusoidLayout layout_;
  int first_position_;
  int length_ = 0;
  std::vector<T> table_;
};

}  // namespace heptapod
