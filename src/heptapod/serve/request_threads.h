// The front end's request threads: a fixed number of threads run route handlers, which may block (a
// translation waits for its batch). Tasks wait in order for a thread; their number is bounded by the open
// connections (each has at most one request in flight). shutdown() runs every task already given, then joins.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace heptapod {

class RequestThreads {
 public:
  // `waiting` and `running` are the gauges of tasks waiting for a thread and running (owned by the caller).
  RequestThreads(int threads, std::atomic<int>& waiting, std::atomic<int>& running);
  ~RequestThreads();
  RequestThreads(const RequestThreads&) = delete;
  RequestThreads& operator=(const RequestThreads&) = delete;
  void submit(std::function<void()> task);
  void shutdown();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable has_task_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::atomic<int>& waiting_;
  std::atomic<int>& running_;
  std::vector<std::thread> threads_;
};

}  // namespace heptapod
