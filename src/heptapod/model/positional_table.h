// The sinusoidal positional-encoding table, grown on demand (only when a longer sentence than ever before
// arrives, so the steady state never allocates).
#pragma once

#include <vector>

#include "heptapod/kernels/embedding.h"

namespace heptapod {

template <typename T>
class PositionalTable {
 public:
  explicit PositionalTable(int C, int initial_length = 512) : C_(C) { ensure(initial_length); }
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
    kernels::sinusoid_table(length_, C_, table_.data());
  }
  int C_;
  int length_ = 0;
  std::vector<T> table_;
};

}  // namespace heptapod
