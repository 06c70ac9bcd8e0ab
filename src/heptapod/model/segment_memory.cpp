// SegmentMemory: the last M layer inputs per stream, appended segment by segment.
#include "heptapod/model/segment_memory.h"

#include <algorithm>
#include <numeric>

#include "heptapod/core/error.h"

namespace heptapod {

template <typename T>
SegmentMemory<T>::SegmentMemory(int layers, int d_model, int capacity, MemoryContent content)
    : C_(d_model), capacity_(capacity), content_(content), rows_(static_cast<std::size_t>(layers)),
      spare_(static_cast<std::size_t>(layers)) {
  require(layers > 0 && d_model > 0 && capacity > 0, "segment memory: needs layers, a width and a capacity > 0");
}

template <typename T>
long SegmentMemory<T>::rows() const {
  return std::accumulate(lengths_.begin(), lengths_.end(), 0L);
}

template <typename T>
void SegmentMemory<T>::clear() {
  lengths_.clear();
  for (auto& r : rows_) r.clear();
}

template <typename T>
void SegmentMemory<T>::check_streams(int streams) const {
  require(lengths_.empty() || streams == this->streams(),
          "segment memory: a batch of " + std::to_string(streams) + " streams cannot continue a memory of " +
              std::to_string(this->streams()));
}

template <typename T>
std::vector<int> SegmentMemory<T>::grown(const Sequences& seg) const {
  std::vector<int> out(static_cast<std::size_t>(seg.count()));
  for (int b = 0; b < seg.count(); ++b)
    out[b] = std::min(capacity_, (lengths_.empty() ? 0 : lengths_[b]) + seg.len[b]);
  return out;
}

template <typename T>
void SegmentMemory<T>::append(int l, const T* x, const Sequences& seg, long ld) {
  check_streams(seg.count());
  const std::vector<int> after = grown(seg);
  const long W = width();
  if (ld == 0) ld = W;
  const std::vector<T>& old = rows_[l];
  // (rows, W) written into the layer's spare buffer, which then trades places with its rows: no allocation
  // once the memory is full.
  std::vector<T>& next = spare_[l];
  next.resize(static_cast<std::size_t>(std::accumulate(after.begin(), after.end(), 0L)) * W);
  long old_start = 0, next_start = 0;  // rows
  for (int b = 0; b < seg.count(); ++b) {
    const int kept = lengths_.empty() ? 0 : lengths_[b];
    // The last after[b] rows of old rows [old_start, + kept) followed by the segment's rows of stream b.
    const int from_segment = std::min(after[b], seg.len[b]);
    const int from_old = after[b] - from_segment;
    std::copy_n(old.data() + (old_start + kept - from_old) * W, static_cast<long>(from_old) * W,
                next.data() + next_start * W);
    const T* rows = x + (static_cast<long>(seg.start[b]) + seg.len[b] - from_segment) * ld;
    for (int r = 0; r < from_segment; ++r) std::copy_n(rows + r * ld, W, next.data() + (next_start + from_old + r) * W);
    old_start += kept;
    next_start += after[b];
  }
  rows_[l].swap(next);
}

template <typename T>
void SegmentMemory<T>::commit(const Sequences& seg) {
  lengths_ = grown(seg);
}

template <typename T>
void SegmentMemory<T>::restore(const std::vector<int>& lengths, std::vector<std::vector<T>> rows,
                               const std::string& where) {
  require(rows.size() == rows_.size(), where + ": the memory has " + std::to_string(rows.size()) +
                                           " layers, the model " + std::to_string(rows_.size()));
  long total = 0;
  for (const int n : lengths) {
    require(n >= 0 && n <= capacity_, where + ": a stream's memory holds " + std::to_string(n) +
                                          " rows, outside 0.." + std::to_string(capacity_));
    total += n;
  }
  for (const auto& r : rows)
    require(r.size() == static_cast<std::size_t>(total) * width(),
            where + ": a layer's memory is not (" + std::to_string(total) + ", " + std::to_string(width()) + ")");
  lengths_ = lengths;
  rows_ = std::move(rows);
}

template class SegmentMemory<float>;
template class SegmentMemory<double>;

}  // namespace heptapod
