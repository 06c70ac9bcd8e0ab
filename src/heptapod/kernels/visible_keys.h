// The one definition of which keys a query may attend to, shared by the fast and naive kernels.
#pragma once

#include <algorithm>

namespace heptapod::kernels {

// Keys [0, result) of a sentence with Tq queries and K keys are visible to its query i: all of them, or for
// causal attention those not after the query. The queries are the last Tq of the K positions: keys before
// them (a cache, or Transformer-XL's memory) are visible to every query, and query i sits at key K - Tq + i.
inline int visible_keys(int Tq, int K, bool causal, int i) {
  return std::max(causal ? std::min(K, K - Tq + i + 1) : K, 0);
}

}  // namespace heptapod::kernels
