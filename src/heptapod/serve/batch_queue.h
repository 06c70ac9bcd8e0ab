// Cross-request batching for models that answer a batch in one call (a Translator, an Encoder): callers on
// any thread submit items (sentences, texts); one worker thread owns the model and runs the waiting requests
// that share their options as one call, then hands each request its own results in order. A lone request
// starts at once; under load the worker may wait a few milliseconds for company. The queue is bounded (a full
// queue refuses at once) and each request may carry a deadline. Generation batches continuously instead
// (serve/generation_queue.h).
//
//   heptapod::BatchQueue<std::string, heptapod::EmbedOptions, std::vector<float>> queue(
//       [&](const std::vector<std::string>& texts, const heptapod::EmbedOptions& o) { return encoder.embed(texts, o); },
//       [](const auto& a, const auto& b) { return a.pooling == b.pooling; }, {});
//   auto future = queue.submit({"a text"}, {});  // from any thread
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "heptapod/core/error.h"

namespace heptapod {

// What the worker reports after each batch (for metrics).
struct BatchReport {
  int requests = 0, sentences = 0;  // sentences: the batch's items
  std::uint64_t output_tokens = 0;  // tokens made (a translation's best hypotheses); 0 where nothing is made
  double seconds = 0;               // the model's call
};

struct QueueOptions {
  int max_batch_sentences = 256;    // items of one call (the model's token budget cuts it further)
  int max_batch_requests = 0;       // requests of one call; 0: no limit, 1: each request alone
  int max_queued_sentences = 4096;  // waiting items beyond which submit() refuses
  // Under load, how long the worker waits for more requests to fill a batch. Load means requests already
  // waiting behind the first, or a last batch of several requests (their clients are likely to send again
  // at once); the wait ends early when as many requests as the last batch had are waiting. An idle queue
  // (a lone request after a lone request) never waits.
  std::chrono::microseconds max_wait{2000};
  std::function<void(const BatchReport&)> on_batch;  // called by the worker after each batch, if set
};

// What submit() throws when the queue holds max_queued_sentences already (a server answers 503).
struct QueueFull : Error {
  using Error::Error;
};
// What a request's future throws when its deadline passed before its batch ran (a server answers 504).
struct DeadlineExceeded : Error {
  using Error::Error;
};

struct QueueStats {
  std::uint64_t requests = 0, sentences = 0, batches = 0, refused = 0, expired = 0;
  std::uint64_t batched_requests = 0;  // requests summed over batches (their mean: requests per batch)
  int queued_sentences = 0;            // waiting now
  int last_batch_sentences = 0;        // items of the last batch (its occupancy against max_batch_sentences)
};

// Checks a queue's options; throws Error naming the first one out of range.
void validate(const QueueOptions& options);

template <typename Item, typename Options, typename Result>
class BatchQueue {
 public:
  // The model's call: one Result per item, in order.
  using Run = std::function<std::vector<Result>(const std::vector<Item>&, const Options&)>;
  // Whether two requests' options give the same call, so that their items may share it.
  using Same = std::function<bool(const Options&, const Options&)>;
  // Tokens a result made (for BatchReport::output_tokens); none when unset.
  using Count = std::function<std::uint64_t(const Result&)>;

  // run is called by the queue's worker alone from now on.
  BatchQueue(Run run, Same same, const QueueOptions& options, Count count = {})
      : run_(std::move(run)), same_(std::move(same)), count_(std::move(count)), options_(options) {
    validate(options);
    worker_ = std::thread([this] { work(); });
  }
  // Stops taking requests, finishes every request already queued, joins the worker.
  ~BatchQueue() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // Queues `items` with `options`; the future holds one Result per item, in order, or the error the call
  // raised. deadline: the latest moment the batch may start (none when max()). Throws QueueFull when the
  // queue is full, Error once stopping.
  std::future<std::vector<Result>> submit(
      std::vector<Item> items, const Options& options,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max()) {
    Request r{std::move(items), options, deadline, {}};
    std::future<std::vector<Result>> future = r.promise.get_future();
    const int n = static_cast<int>(r.items.size());
    {
      std::lock_guard lock(mutex_);
      require(!stopping_, "request queue: stopping, no new requests");
      if (queued_ > 0 && queued_ + n > options_.max_queued_sentences) {
        ++stats_.refused;
        throw QueueFull("request queue: full (" + std::to_string(queued_) + " waiting, at most " +
                        std::to_string(options_.max_queued_sentences) + ")");
      }
      queued_ += n;
      ++stats_.requests;
      stats_.sentences += n;
      waiting_.push_back(std::move(r));
    }
    wake_.notify_one();
    return future;
  }

  QueueStats stats() const {
    std::lock_guard lock(mutex_);
    QueueStats s = stats_;
    s.queued_sentences = queued_;
    return s;
  }
  const QueueOptions& options() const { return options_; }

 private:
  struct Request {
    std::vector<Item> items;
    Options options;
    std::chrono::steady_clock::time_point deadline;
    std::promise<std::vector<Result>> promise;
  };

  // Takes the oldest request and those after it with the same options, up to max_batch_sentences (the
  // oldest is taken whatever its size). Called with the lock held.
  std::vector<Request> take_batch() {
    std::vector<Request> batch;
    int items = 0;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const int n = static_cast<int>(it->items.size());
      const bool fits = batch.empty() || (same_(it->options, batch.front().options) &&
                                          items + n <= options_.max_batch_sentences);
      if (options_.max_batch_requests > 0 && static_cast<int>(batch.size()) >= options_.max_batch_requests) break;
      if (!fits) {
        ++it;
        continue;
      }
      items += n;
      queued_ -= n;
      batch.push_back(std::move(*it));
      it = waiting_.erase(it);
      if (items >= options_.max_batch_sentences) break;
    }
    stats_.last_batch_sentences = items;
    return batch;
  }

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (waiting_.empty()) return;  // stopping, and everything queued is done
      // Under load, give the batch a moment to fill up: until as many requests wait as the last batch took
      // (or the batch is full). An idle queue starts at once.
      const std::size_t expected = std::max(waiting_.size(), last_batch_requests_);
      const bool batching = options_.max_batch_requests != 1;
      if (batching && expected > 1 && queued_ < options_.max_batch_sentences && !stopping_)
        wake_.wait_for(lock, options_.max_wait, [&] {
          return stopping_ || waiting_.size() >= expected || queued_ >= options_.max_batch_sentences;
        });
      std::vector<Request> batch = take_batch();
      last_batch_requests_ = batch.size();
      ++stats_.batches;
      stats_.batched_requests += batch.size();
      lock.unlock();
      run_batch(batch);
      lock.lock();
    }
  }

  void run_batch(std::vector<Request>& batch) {
    const auto now = std::chrono::steady_clock::now();
    std::vector<Request*> live;
    std::vector<Item> items;
    for (Request& r : batch) {
      if (r.deadline < now) {
        r.promise.set_exception(
            std::make_exception_ptr(DeadlineExceeded("request queue: the request's deadline passed while it waited")));
        std::lock_guard lock(mutex_);
        ++stats_.expired;
        continue;
      }
      live.push_back(&r);
      items.insert(items.end(), r.items.begin(), r.items.end());
    }
    if (live.empty()) return;
    std::size_t done = 0;  // requests whose promise is kept
    try {
      const auto start = std::chrono::steady_clock::now();
      std::vector<Result> all = run_(items, live.front()->options);
      if (options_.on_batch) {
        BatchReport report{static_cast<int>(live.size()), static_cast<int>(items.size()), 0,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
        if (count_)
          for (const Result& result : all) report.output_tokens += count_(result);
        options_.on_batch(report);
      }
      std::size_t at = 0;
      for (; done < live.size(); ++done) {
        Request* r = live[done];
        std::vector<Result> mine(std::make_move_iterator(all.begin() + static_cast<long>(at)),
                                 std::make_move_iterator(all.begin() + static_cast<long>(at + r->items.size())));
        at += r->items.size();
        r->promise.set_value(std::move(mine));
      }
    } catch (...) {
      for (; done < live.size(); ++done) live[done]->promise.set_exception(std::current_exception());
    }
  }

  Run run_;
  Same same_;
  Count count_;
  QueueOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Request> waiting_;
  int queued_ = 0;
  bool stopping_ = false;
  std::size_t last_batch_requests_ = 0;
  QueueStats stats_;
  std::thread worker_;
};

}  // namespace heptapod
