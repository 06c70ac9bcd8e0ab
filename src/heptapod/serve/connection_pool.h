// The server's connection threads, replacing cpp-httplib's default pool (8 threads, an unbounded job list):
// a fixed number of threads serve accepted connections; at most `max_pending` accepted connections wait for
// one, and beyond that accepting blocks, so the kernel's listen backlog holds further clients and memory
// stays bounded however many connect. Shutdown serves every connection already accepted, then joins.
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace heptapod {

// Gauges the pool keeps for the server's metrics; owned by the server (the pool is re-made per listen).
struct ConnectionCounts {
  std::atomic<int> active{0}, pending{0};
};

class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(int threads, int max_pending, ConnectionCounts& counts);
  ~ConnectionPool() override;
  void enqueue(std::function<void()> task) override;
  void shutdown() override;

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable has_task_, has_room_;
  std::deque<std::function<void()>> tasks_;
  int max_pending_;
  bool stopping_ = false;
  ConnectionCounts& counts_;
  std::vector<std::thread> threads_;
};

}  // namespace heptapod
