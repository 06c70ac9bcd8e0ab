// See pages.h.
#include "heptapod/core/pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace heptapod {

void release_pages(void* begin, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<std::uintptr_t>(begin);
  const std::uintptr_t first = (start + page - 1) / page * page, last = (start + bytes) / page * page;
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

std::byte* huge_page_boundary(std::byte* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  return p + ((at + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes - at);
}

void advise_huge_pages(void* begin, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<std::uintptr_t>(begin) / page * page;
  ::madvise(reinterpret_cast<void*>(start), reinterpret_cast<std::uintptr_t>(begin) + bytes - start, MADV_HUGEPAGE);
}

}  // namespace heptapod
