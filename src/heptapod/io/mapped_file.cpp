// MappedFile: mmap (read-only, private) and madvise(MADV_DONTNEED) for released ranges.
#include "heptapod/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "heptapod/core/error.h"
#include "heptapod/core/pages.h"

namespace heptapod {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("cannot read " + path + ": not a regular file");
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  void* base = nullptr;
  if (size > 0) {
    base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error("cannot map " + path + ": " + std::strerror(err));
    }
  }
  ::close(fd);
  return std::shared_ptr<const MappedFile>(new MappedFile(base, size));
}

MappedFile::~MappedFile() {
  if (base_) ::munmap(base_, size_);
}

void MappedFile::release(std::size_t begin, std::size_t end) const {
  end = std::min(end, size_);
  if (base_ && begin < end) release_pages(static_cast<char*>(base_) + begin, end - begin);
}

}  // namespace heptapod
