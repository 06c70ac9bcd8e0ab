// Sentences laid end to end in the rows of one matrix, without padding: the layout every layer works in.
// Position-wise layers see (rows, C); attention reads each sentence's rows through start and len.
#pragma once

#include <vector>

namespace heptapod {

struct Sequences {
  std::vector<int> len;       // (B) rows of each sentence (0 allowed)
  std::vector<int> start;     // (B + 1) first row of each sentence; start[B] = rows()
  std::vector<int> position;  // (rows) each row's position within its sentence
  int longest = 0;            // max(len)

  Sequences(const int* lengths, int B);
  int count() const { return static_cast<int>(len.size()); }
  int rows() const { return start.back(); }

  // padded: (B, L) one sentence per row -> (rows) the real entries, sentence after sentence.
  template <typename E>
  std::vector<E> pack(const E* padded, int L) const;
  // packed: (rows, W) -> padded: (B, L, W), the padding entries zero.
  template <typename E>
  void unpack(const E* packed, int W, int L, E* padded) const;
};

}  // namespace heptapod
