// Keeping a row's most likely next tokens while the vocabulary is scored a block at a time.
#pragma once

namespace heptapod {

// Merges the scores x (n), of tokens id0 .. id0 + n - 1, into a row's best-first list of `count` (<= top)
// values and ids. Ties keep the smaller id first, as the blocks arrive in id order. One pass: an entry is
// inserted only when it beats the list's last one.
inline void merge_top(const float* x, int n, int id0, int top, int& count, float* values, int* ids) {
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    if (count == top && !(v > values[count - 1])) continue;
    int at = count == top ? count - 1 : count++;
    for (; at > 0 && v > values[at - 1]; --at) {
      values[at] = values[at - 1];
      ids[at] = ids[at - 1];
    }
    values[at] = v;
    ids[at] = id0 + i;
  }
}

}  // namespace heptapod
