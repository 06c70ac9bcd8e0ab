// A read-only memory map of a whole file. Model files are read in place, and release() gives back the pages
// of a range already copied out, so loading a model never holds the whole file and the parameters at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace heptapod {

class MappedFile {
 public:
  // Throws Error naming the path if it cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {static_cast<const char*>(base_), size_}; }
  // Drops the whole pages inside [begin, end) from this process's memory (they are read again if touched).
  void release(std::size_t begin, std::size_t end) const;

 private:
  MappedFile(void* base, std::size_t size) : base_(base), size_(size) {}
  void* base_;
  std::size_t size_;
};

}  // namespace heptapod
