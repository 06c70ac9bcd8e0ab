// One training run per output directory: a run holds an exclusive lock on OUT/.lock (flock) for as long as
// it lives. The kernel drops the lock when the process exits in any way (kill -9 included), so a lock is
// never stale; the file keeps the holder's pid, host and start time for the message a second run gets.
#pragma once

#include <string>

namespace heptapod {

class RunLock {
 public:
  // Takes the lock on `dir`/.lock (the directory must exist). Throws Error naming the directory and the
  // holder when another process has it.
  explicit RunLock(const std::string& dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace heptapod
