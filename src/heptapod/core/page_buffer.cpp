// See page_buffer.h: one private anonymous mapping, kept while it is large enough and grown by mremap.
#include "heptapod/core/page_buffer.h"

#include <sys/mman.h>

#include <string>
#include <utility>

#include "heptapod/core/error.h"

namespace heptapod {

PageBuffer::~PageBuffer() {
  if (data_) ::munmap(data_, capacity_);
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    this->~PageBuffer();
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void PageBuffer::reset(std::size_t bytes) {
  if (bytes <= capacity_) return;
  // A first mapping, or the mapping grown in place or moved with its pages: those already touched keep their
  // contents and are not faulted in (and zeroed) again.
  void* p = data_ ? ::mremap(data_, capacity_, bytes, MREMAP_MAYMOVE)
                  : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  require(p != MAP_FAILED, "out of memory for a " + std::to_string(bytes >> 20) + " MB buffer");
  data_ = p;
  capacity_ = bytes;
}

}  // namespace heptapod
