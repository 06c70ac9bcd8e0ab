// A buffer made of fresh anonymous pages: pages never written cost no memory. For caches sized for the
// worst case but filled as work proceeds (the decoder's key/value cache is sized for the longest output and
// all rows; most rows stop earlier).
#pragma once

#include <cstddef>

namespace heptapod {

class PageBuffer {
 public:
  PageBuffer() = default;
  ~PageBuffer();
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  // Room for `bytes` bytes, keeping the contents it had (fresh bytes read as zeros). The mapping is kept
  // while it is large enough, and grown (in place or moved, its pages with it) when not, so pages touched
  // before are reused rather than faulted in again.
  void reset(std::size_t bytes);

  template <typename T>
  T* as() {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  std::size_t capacity_ = 0;  // in bytes
};

}  // namespace heptapod
