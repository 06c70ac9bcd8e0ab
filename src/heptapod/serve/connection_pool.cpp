// A bounded thread pool for cpp-httplib's accepted connections.
#include "heptapod/serve/connection_pool.h"

#include "heptapod/core/error.h"

namespace heptapod {

ConnectionPool::ConnectionPool(int threads, int max_pending, ConnectionCounts& counts)
    : max_pending_(max_pending), counts_(counts) {
  require(threads > 0 && max_pending > 0, "connection pool: threads and pending connections must be positive");
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

ConnectionPool::~ConnectionPool() { shutdown(); }

void ConnectionPool::enqueue(std::function<void()> task) {
  std::unique_lock lock(mutex_);
  has_room_.wait(lock, [&] { return stopping_ || static_cast<int>(tasks_.size()) < max_pending_; });
  tasks_.push_back(std::move(task));
  counts_.pending.store(static_cast<int>(tasks_.size()));
  has_task_.notify_one();
}

void ConnectionPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  has_task_.notify_all();
  has_room_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void ConnectionPool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      has_task_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, every accepted connection served
      task = std::move(tasks_.front());
      tasks_.pop_front();
      counts_.pending.store(static_cast<int>(tasks_.size()));
    }
    has_room_.notify_one();
    ++counts_.active;
    task();
    --counts_.active;
  }
}

}  // namespace heptapod
