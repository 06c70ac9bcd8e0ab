// The one definition of which keys a query may attend to, shared by the fast and naive kernels.
#pragma once

#include <algorithm>

namespace heptapod::kernels {

// Keys [0, result) of a sentence with K keys are visible to its query i: all of them, or for causal attention
// those not after the query (j <= i).
inline int visible_keys(int K, bool causal, int i) { return std::max(causal ? std::min(K, i + 1) : K, 0); }

}  // namespace heptapod::kernels
