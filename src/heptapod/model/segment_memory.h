// Transformer-XL's segment memory (Dai et al. 2019, section 3.2): for every layer of a decoder-only stack, the
// last M hidden states that layer read (its input; layer 0's is the embedding output) in the previous segments
// of each stream. A segment's layer attends over its memory and then its own rows; the memory is read as a
// constant (no gradient flows into it) and afterwards keeps the last M rows of memory + segment per stream.
// Training keeps the hidden states, which each segment projects with the current weights; inference, whose
// weights do not change, may keep each layer's projected keys and values instead, so that no segment projects
// its memory again (the same numbers, up to rounding).
#pragma once

#include <string>
#include <vector>

#include "heptapod/layers/sequences.h"

namespace heptapod {

enum class MemoryContent {
  HiddenStates,  // (rows, C) per layer: what the layer read
  KeysValues,    // (rows, 2C) per layer: its self-attention's key | value of each of those rows (inference)
};

template <typename T>
class SegmentMemory {
 public:
  // capacity: M, the rows kept per stream and layer (> 0).
  SegmentMemory(int layers, int d_model, int capacity, MemoryContent content = MemoryContent::HiddenStates);

  int layers() const { return static_cast<int>(rows_.size()); }
  int d_model() const { return C_; }
  MemoryContent content() const { return content_; }
  int width() const { return content_ == MemoryContent::KeysValues ? 2 * C_ : C_; }  // elements per row
  int capacity() const { return capacity_; }
  // The streams the memory continues (0 while it holds nothing) and the rows it holds for each.
  int streams() const { return static_cast<int>(lengths_.size()); }
  const std::vector<int>& lengths() const { return lengths_; }
  long rows() const;  // sum of lengths()
  // Layer l's memory: (rows(), width()), stream after stream.
  const T* layer(int l) const { return rows_[l].data(); }

  // Forgets every stream: the next segment starts a text.
  void clear();
  // Throws Error unless a batch of `streams` streams can continue this memory (an empty memory takes any).
  void check_streams(int streams) const;
  // Layer l's rows of the segment, x: (seg.rows(), width()) (what it read, or their keys and values): its
  // memory becomes the last capacity() rows of memory + segment per stream. commit(seg) once every layer has
  // been given its rows.
  // x's rows are ld apart (0: width()).
  void append(int l, const T* x, const Sequences& seg, long ld = 0);
  void commit(const Sequences& seg);

  // The state as it is saved (checkpoints): lengths (streams) and every layer's rows; restore() takes the same
  // back, checking the sizes (`where` names the source in errors).
  void restore(const std::vector<int>& lengths, std::vector<std::vector<T>> rows, const std::string& where);
  const std::vector<T>& layer_rows(int l) const { return rows_[l]; }

 private:
  std::vector<int> grown(const Sequences& seg) const;  // each stream's length after the segment

  int C_, capacity_;
  MemoryContent content_;
  std::vector<int> lengths_;           // (streams)
  std::vector<std::vector<T>> rows_;   // per layer (rows(), width())
  std::vector<std::vector<T>> spare_;  // per layer: append()'s output buffer
};

}  // namespace heptapod
