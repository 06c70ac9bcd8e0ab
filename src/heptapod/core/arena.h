// Arena: the bump allocator that holds a step's activations and their gradients.
// A step calls reset(), then carves tensors with alloc<T>(n). When a step outgrows the arena, the extra
// space comes from overflow blocks and the next reset() merges everything into one block of the high-water
// size plus a quarter, so after the largest batch has been seen once the steady state performs no heap
// allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace heptapod {

class Arena {
 public:
  explicit Arena(std::size_t initial_bytes = 0);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Uninitialised storage for n values of T, 64-byte aligned.
  template <typename T>
  T* alloc(std::size_t n) {
    return static_cast<T*>(alloc_bytes(n * sizeof(T)));
  }
  // Zero-filled storage for n values of T.
  template <typename T>
  T* alloc_zero(std::size_t n) {
    T* p = alloc<T>(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = T(0);
    return p;
  }

  // Frees every allocation at once; grows the main block to the high-water mark (+25%) if it overflowed.
  void reset();
  // Gives the main block's pages past its first `keep_bytes` back to the system (an idle arena then holds
  // only that much memory; the pages are faulted in again when next used). keep_bytes is rounded up to the
  // end of the 2 MB huge page it falls in, so that no huge page is split: the half given back would otherwise
  // be faulted in again 4 KB at a time (each fault costs microseconds on a virtual machine). Only between
  // steps: the contents past the kept bytes are lost.
  void trim(std::size_t keep_bytes);
  // Makes sure the main block holds at least `bytes` (used to plan memory from a token budget).
  void reserve(std::size_t bytes);

  std::size_t capacity() const { return main_size_; }
  // Number of heap allocations made so far (a steady-state step must not change it).
  std::uint64_t heap_allocations() const { return heap_allocations_; }

 private:
  struct Block {
    std::unique_ptr<std::byte[]> storage;
    std::byte* base = nullptr;
    std::size_t size = 0;
  };
  void* alloc_bytes(std::size_t bytes);
  Block make_block(std::size_t bytes);

  Block main_;
  std::size_t main_size_ = 0;
  std::size_t used_ = 0;             // bytes used in main_ plus overflow blocks
  std::size_t high_water_ = 0;
  std::vector<Block> overflow_;
  std::size_t overflow_used_ = 0;    // bytes used in the last overflow block
  std::uint64_t heap_allocations_ = 0;
};

}  // namespace heptapod
