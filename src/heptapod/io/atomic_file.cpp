// Atomic write via temp file + fsync + rename (POSIX).
#include "heptapod/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {
void fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Writes to a device or pipe as it is.
void write_special_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
  write(out);
  out.flush();
  if (!out) throw Error("cannot write " + path + ": write failed");
}
}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  require(status.type() != std::filesystem::file_type::directory, "cannot write " + path + ": is a directory");
  if (!ec && std::filesystem::exists(status) && status.type() != std::filesystem::file_type::regular)
    return write_special_file(path, write);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(tmp);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp);
      throw Error("cannot write " + path + ": write failed (disk full?)");
    }
  }
  fsync_path(tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::filesystem::remove(tmp);
    throw Error("cannot write " + path + ": rename failed: " + reason);
  }
  const auto dir = std::filesystem::path(path).parent_path();
  fsync_path(dir.empty() ? "." : dir.string());
}

std::string read_file(const std::string& path) {
  require(!std::filesystem::is_directory(path), "cannot read " + path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("cannot read " + path);
  return ss.str();
}

}  // namespace heptapod
