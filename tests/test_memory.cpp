// Memory helpers: an arena gives its idle pages back on trim() and keeps what it was asked to keep, and a page
// buffer keeps its mapping (and contents) while it is large enough, and its pages when it grows.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "heptapod/core/arena.h"
#include "heptapod/core/page_buffer.h"

namespace heptapod {
namespace {

long resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * 4096;
}

TEST(Arena, TrimGivesIdlePagesBackAndKeepsTheFirstBytes) {
  constexpr std::size_t kBytes = 64 << 20, kKeep = 1 << 20;
  Arena arena(kBytes);
  auto* p = arena.alloc<unsigned char>(kBytes);
  std::memset(p, 7, kBytes);
  const long before = resident_bytes();
  arena.trim(kKeep);
  const long after = resident_bytes();
  EXPECT_GT(before - after, static_cast<long>(kBytes / 2)) << "trim() did not give the pages back";
  // Kept: the first kKeep bytes and the rest of the 2 MB page they end in (no huge page is split).
  constexpr std::uintptr_t kHugePage = 2u << 20;
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::size_t kept = (start + kKeep + kHugePage - 1) / kHugePage * kHugePage - start;
  for (std::size_t i = 0; i < kept; i += 4096) ASSERT_EQ(p[i], 7) << i;
  EXPECT_EQ(p[kept], 0) << "trim() kept more than the huge page holding the first bytes";
  arena.reset();
  auto* q = arena.alloc<unsigned char>(kBytes);  // the same block, usable again
  EXPECT_EQ(q, p);
  std::memset(q, 1, kBytes);
  EXPECT_EQ(q[kBytes - 1], 1);
}

TEST(PageBuffer, KeepsItsMappingWhileLargeEnough) {
  PageBuffer buffer;
  buffer.reset(1 << 20);
  int* first = buffer.as<int>();
  first[1000] = 42;
  buffer.reset(4096);  // smaller: the same pages
  EXPECT_EQ(buffer.as<int>(), first);
  EXPECT_EQ(buffer.as<int>()[1000], 42);
  buffer.reset(8 << 20);  // larger: a fresh mapping
  buffer.as<char>()[(8 << 20) - 1] = 1;
  EXPECT_EQ(buffer.as<char>()[(8 << 20) - 1], 1);
}

TEST(PageBuffer, GrowsWithTheBytesItHad) {
  // Growing moves the mapping's pages instead of mapping fresh ones: what was written is still there, so
  // the pages were not faulted in (and zeroed) again.
  PageBuffer buffer;
  buffer.reset(4 << 20);
  std::memset(buffer.as<char>(), 5, 4 << 20);
  buffer.reset(64 << 20);
  for (std::size_t i = 0; i < (4u << 20); i += 4096) ASSERT_EQ(buffer.as<char>()[i], 5) << i;
  buffer.as<char>()[(64 << 20) - 1] = 1;  // and the new room is usable
  EXPECT_EQ(buffer.as<char>()[(64 << 20) - 1], 1);
}

}  // namespace
}  // namespace heptapod
