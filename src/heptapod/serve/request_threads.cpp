// The front end's pool of request threads.
#include "heptapod/serve/request_threads.h"

#include "heptapod/core/error.h"

namespace heptapod {

RequestThreads::RequestThreads(int threads, std::atomic<int>& waiting, std::atomic<int>& running)
    : waiting_(waiting), running_(running) {
  require(threads > 0, "request threads must be positive");
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

RequestThreads::~RequestThreads() { shutdown(); }

void RequestThreads::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
    waiting_.store(static_cast<int>(tasks_.size()));
  }
  has_task_.notify_one();
}

void RequestThreads::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  has_task_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void RequestThreads::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      has_task_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, every task run
      task = std::move(tasks_.front());
      tasks_.pop_front();
      waiting_.store(static_cast<int>(tasks_.size()));
    }
    ++running_;
    task();
    --running_;
  }
}

}  // namespace heptapod
