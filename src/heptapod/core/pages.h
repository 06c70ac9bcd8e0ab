// Memory page by page: giving it back to the system, and transparent huge pages.
#pragma once

#include <cstddef>

namespace heptapod {

// Gives back the whole pages inside [begin, begin + bytes) (madvise MADV_DONTNEED on private memory): they
// stop counting towards the resident set and read as zeros if touched again. Partial pages at either end
// are kept.
void release_pages(void* begin, std::size_t bytes);

// The size of a transparent huge page on x86-64.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// The first huge-page boundary at or after p.
std::byte* huge_page_boundary(std::byte* p);

// Asks for transparent huge pages (2 MB) over [begin, begin + bytes) where the system allows them on request:
// a large buffer is then faulted in 512 times less often (page faults are costly on virtual machines).
void advise_huge_pages(void* begin, std::size_t bytes);

}  // namespace heptapod
