// The one definition of which keys a query may attend to, shared by the fast and naive kernels.
#pragma once

#include <algorithm>

namespace heptapod::kernels {

// Keys [0, result) are visible to query i: those inside the sentence (j < key_len), and for causal
// attention those not after the query (j <= i). K is the padded key length.
inline int visible_keys(int key_len, int K, bool causal, int i) {
  int v = std::min(key_len, K);
  if (causal) v = std::min(v, i + 1);
  return std::max(v, 0);
}

}  // namespace heptapod::kernels
