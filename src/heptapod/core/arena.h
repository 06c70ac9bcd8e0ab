// Arena: the bump allocator that holds a step's activations and their gradients.
// A step calls reset(), then carves tensors with alloc<T>(n) from a chain of blocks, in order. When a step
// outgrows the chain a new block is added (at least a quarter of what the arena holds), and every block is
// kept: pages once touched stay mapped, so a step that grows the arena pays page faults for the new block
// only, and once the largest batch has been seen the steady state performs no heap allocation.
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

  // Frees every allocation at once; keeps the blocks.
  void reset();
  // Gives the pages past the first `keep_bytes` of the first block back to the system and frees the other
  // blocks (an idle arena then holds only that much memory). Only between steps: the contents past
  // keep_bytes are lost.
  void trim(std::size_t keep_bytes);

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

  std::vector<Block> blocks_;  // carved in order; all kept across reset()
  std::size_t current_ = 0;    // the block being carved
  std::size_t offset_ = 0;     // bytes used in it
  std::size_t total_ = 0;      // bytes in all blocks
  std::uint64_t heap_allocations_ = 0;
};

}  // namespace heptapod
