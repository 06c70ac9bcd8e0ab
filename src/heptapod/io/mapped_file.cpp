// MappedFile: mmap (read-only, private), madvise(MADV_DONTNEED) for released ranges, and the SIGBUS guard:
// a table of live maps that the signal handler searches (lock-free); a fault inside one gets an anonymous
// zero page in place of the lost one and marks the map, any other fault goes to the previous handler.
#include "heptapod/io/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "heptapod/core/error.h"
#include "heptapod/core/pages.h"

namespace heptapod {
namespace {

struct GuardSlot {
  std::atomic<std::uintptr_t> begin{0};  // 0: free
  std::atomic<std::size_t> size{0};
  std::atomic<bool> shrunk{false};
};

std::array<GuardSlot, 256> guard_slots;
struct sigaction previous_sigbus{};
std::uintptr_t page_bytes = 4096;

void on_sigbus(int, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (GuardSlot& s : guard_slots) {
    const std::uintptr_t begin = s.begin.load(std::memory_order_acquire);
    if (begin == 0 || addr < begin || addr - begin >= s.size.load(std::memory_order_relaxed)) continue;
    void* page = reinterpret_cast<void*>(addr & ~(page_bytes - 1));
    if (::mmap(page, page_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      s.shrunk.store(true, std::memory_order_release);
      return;  // the faulting read runs again and sees zeros
    }
  }
  ::sigaction(SIGBUS, &previous_sigbus, nullptr);  // not ours: the fault recurs under the previous handler
}

void install_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_bytes = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action{};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous_sigbus);
  });
}

// A free slot recording [base, base + size), or -1 when all are taken. Slots are claimed and freed under
// one mutex; the signal handler only reads them.
std::mutex guard_mutex;
int guard(void* base, std::size_t size) {
  const std::lock_guard<std::mutex> lock(guard_mutex);
  for (std::size_t i = 0; i < guard_slots.size(); ++i) {
    GuardSlot& s = guard_slots[i];
    if (s.begin.load(std::memory_order_relaxed) != 0) continue;
    s.size.store(size, std::memory_order_relaxed);
    s.shrunk.store(false, std::memory_order_relaxed);
    s.begin.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unguard(int slot) {
  const std::lock_guard<std::mutex> lock(guard_mutex);
  guard_slots[static_cast<std::size_t>(slot)].begin.store(0, std::memory_order_release);
}

// The whole file read into anonymous memory (when no guard slot is free): a file that shrinks meanwhile is
// a short read, reported.
void* read_whole(int fd, std::size_t size, const std::string& path) {
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw Error("cannot read " + path + ": " + std::strerror(errno));
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::pread(fd, static_cast<char*>(base) + done, size - done, static_cast<off_t>(done));
    if (n <= 0) {
      const int err = n < 0 ? errno : 0;
      ::munmap(base, size);
      throw Error(path + (err ? ": read error: " + std::string(std::strerror(err))
                              : ": the file shrank while it was being read"));
    }
    done += static_cast<std::size_t>(n);
  }
  return base;
}

}  // namespace

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
  int slot = -1;
  if (size > 0) {
    install_guard();
    base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error("cannot map " + path + ": " + std::strerror(err));
    }
    slot = guard(base, size);
    if (slot < 0) {
      ::munmap(base, size);
      try {
        base = read_whole(fd, size, path);
      } catch (...) {
        ::close(fd);
        throw;
      }
    }
  }
  ::close(fd);
  return std::shared_ptr<const MappedFile>(new MappedFile(path, base, size, slot));
}

MappedFile::~MappedFile() {
  if (slot_ >= 0) unguard(slot_);
  if (base_) ::munmap(base_, size_);
}

void MappedFile::release(std::size_t begin, std::size_t end) const {
  end = std::min(end, size_);
  if (base_ && begin < end) release_pages(static_cast<char*>(base_) + begin, end - begin);
}

bool MappedFile::intact() const {
  return slot_ < 0 || !guard_slots[static_cast<std::size_t>(slot_)].shrunk.load(std::memory_order_acquire);
}

void MappedFile::check_intact() const {
  if (!intact())
    throw Error(path_ + ": the file shrank while it was being read (truncated, or rewritten in place by another "
                        "program); nothing read from it was used");
}

}  // namespace heptapod
