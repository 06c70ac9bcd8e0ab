// Where a dropout is applied: its rate for this pass and the (seed, stream) key of its mask.
#pragma once

#include <cstdint>

namespace heptapod {

struct DropoutSite {
  float rate = 0.0f;          // 0 outside training
  std::uint64_t seed = 0;     // per step (and micro-batch)
  std::uint64_t stream = 0;   // per site in the model: see model/dropout_streams.h
};

}  // namespace heptapod
