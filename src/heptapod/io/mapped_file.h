// A read-only memory map of a whole file. Model files and corpus caches are read in place, and release()
// gives back the pages of a range already copied out, so loading a model never holds the whole file and the
// parameters at once. A file that shrinks while mapped (truncated, or rewritten in place by another program)
// would kill the process with SIGBUS when its lost pages are touched; here such a page reads as zeros instead
// and the map remembers it, so readers check intact() after copying and report the file by name.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "heptapod/core/error.h"

namespace heptapod {

class MappedFile {
 public:
  // Throws Error naming the path if it cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::string& path() const { return path_; }
  std::string_view bytes() const { return {static_cast<const char*>(base_), size_}; }
  // Drops the whole pages inside [begin, end) from this process's memory (they are read again if touched).
  void release(std::size_t begin, std::size_t end) const;
  // False once a page past the file's end was touched: the bytes read since may be zeros, not the file's.
  bool intact() const;
  // Throws Error naming the file unless intact().
  void check_intact() const;

 private:
  MappedFile(std::string path, void* base, std::size_t size, int slot)
      : path_(std::move(path)), base_(base), size_(size), slot_(slot) {}
  std::string path_;
  void* base_;
  std::size_t size_;
  int slot_;  // the guard's record of this map; -1: the file was read into memory instead
};

// Parses a mapped file's bytes with parse(view), then checks that the file did not change while it was read; a
// parse error of a file that changed underneath (a header that shrank away) says so rather than what its zeros
// looked like. The containers (safetensors, GGUF) read their files through it.
template <typename Parse>
auto parse_mapped(const MappedFile& mapped, Parse parse) {
  try {
    auto parsed = parse(mapped.bytes());
    mapped.check_intact();
    return parsed;
  } catch (const Error&) {
    mapped.check_intact();
    throw;
  }
}

}  // namespace heptapod
