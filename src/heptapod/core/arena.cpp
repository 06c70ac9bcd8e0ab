// Arena implementation: one main block plus overflow blocks merged at reset().
#include "heptapod/core/arena.h"

#include <algorithm>

#include "heptapod/core/pages.h"

namespace heptapod {

namespace {
constexpr std::size_t kAlign = 64;
std::size_t round_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

Arena::Arena(std::size_t initial_bytes) {
  if (initial_bytes > 0) reserve(initial_bytes);
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
  void* p = nullptr;
  if (overflow_.empty() && used_ + bytes <= main_size_) {
    p = main_.base + used_;
  } else {
    if (overflow_.empty() || overflow_used_ + bytes > overflow_.back().size) {
      overflow_.push_back(make_block(std::max(bytes, main_size_ / 2 + kAlign)));
      overflow_used_ = 0;
    }
    p = overflow_.back().base + overflow_used_;
    overflow_used_ += bytes;
  }
  used_ += bytes;
  high_water_ = std::max(high_water_, used_);
  return p;
}

void Arena::reset() {
  if (!overflow_.empty()) {
    overflow_.clear();
    main_.storage.reset();  // freed before the larger block is made, so the two never coexist
    // A quarter of headroom: batches of varying shape then settle after one or two growths instead of
    // growing (and faulting in a fresh block) each time a slightly larger one arrives.
    main_ = make_block(high_water_ + high_water_ / 4);
    main_size_ = main_.size;
  }
  used_ = 0;
  overflow_used_ = 0;
}

void Arena::trim(std::size_t keep_bytes) {
  const auto keep = static_cast<std::size_t>(huge_page_boundary(main_.base + keep_bytes) - main_.base);
  if (keep < main_size_) release_pages(main_.base + keep, main_size_ - keep);
}

void Arena::reserve(std::size_t bytes) {
  bytes = round_up(bytes);
  if (bytes <= main_size_) return;
  overflow_.clear();
  main_ = make_block(bytes);
  main_size_ = main_.size;
  used_ = 0;
  overflow_used_ = 0;
}

}  // namespace heptapod
