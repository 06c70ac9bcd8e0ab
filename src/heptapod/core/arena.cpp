// Arena implementation: a chain of blocks carved in order and kept across reset().
#include "heptapod/core/arena.h"

#include <algorithm>

#include "heptapod/core/pages.h"

namespace heptapod {

namespace {
constexpr std::size_t kAlign = 64;
std::size_t round_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

Arena::Arena(std::size_t initial_bytes) {
  if (initial_bytes > 0) {
    blocks_.push_back(make_block(initial_bytes));
    total_ = blocks_.back().size;
  }
}

Arena::Block Arena::make_block(std::size_t bytes) {
  Block b;
  b.size = round_up(bytes);
  b.storage.reset(new std::byte[b.size + kAlign]);
  auto addr = reinterpret_cast<std::uintptr_t>(b.storage.get());
  b.base = b.storage.get() + (round_up(addr) - addr);
  advise_huge_pages(b.base, b.size);
  ++heap_allocations_;
  return b;
}

void* Arena::alloc_bytes(std::size_t bytes) {
  bytes = round_up(std::max<std::size_t>(bytes, 1));
  for (; current_ < blocks_.size(); ++current_, offset_ = 0) {
    if (offset_ + bytes <= blocks_[current_].size) {
      void* p = blocks_[current_].base + offset_;
      offset_ += bytes;
      return p;
    }
  }
  // Out of blocks. A quarter of the arena at least, so a growing workload settles after a few additions.
  constexpr std::size_t kMinBlock = std::size_t(1) << 20;
  blocks_.push_back(make_block(std::max({bytes, total_ / 4, kMinBlock})));
  total_ += blocks_.back().size;
  current_ = blocks_.size() - 1;
  offset_ = bytes;
  return blocks_.back().base;
}

void Arena::reset() {
  current_ = 0;
  offset_ = 0;
}

void Arena::trim(std::size_t keep_bytes) {
  if (blocks_.empty()) return;
  blocks_.resize(1);
  Block& first = blocks_.front();
  total_ = first.size;
  if (keep_bytes < first.size) release_pages(first.base + keep_bytes, first.size - keep_bytes);
  reset();
}

}  // namespace heptapod
