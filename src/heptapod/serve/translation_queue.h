// Cross-request batching: callers on any thread submit sentences; one worker thread owns the Translator and
// runs the waiting requests that share their options as one search batch (the Translator sorts their
// sentences by length and cuts them under its token budget), then hands each request its own results in
// order. A lone request starts at once; under load the worker may wait a few milliseconds for company. The
// queue is bounded (a full queue refuses at once) and each request may carry a deadline.
//
//   heptapod::Translator translator("model.htp", {heptapod::ComputeType::Int8});
//   heptapod::TranslationQueue queue(translator, {});
//   auto future = queue.submit({"hola mundo"}, heptapod::TranslateOptions{});  // from any thread
//   std::cout << future.get()[0].hypotheses[0].text << "\n";
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/decode/translator.h"

namespace heptapod {

// What the worker reports after each search batch (for metrics).
struct BatchReport {
  int requests = 0, sentences = 0;
  std::uint64_t output_tokens = 0;  // tokens of the best hypotheses
  double seconds = 0;               // the search call
};

struct QueueOptions {
  int max_batch_sentences = 256;    // sentences of one search call (the Translator's batch_tokens cuts it further)
  int max_batch_requests = 0;       // requests of one search call; 0: no limit, 1: each request alone
  int max_queued_sentences = 4096;  // waiting sentences beyond which submit() refuses
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
};

class TranslationQueue {
 public:
  // The translator must outlive the queue and is used by the queue's worker alone from now on.
  TranslationQueue(Translator& translator, const QueueOptions& options);
  // Stops taking requests, finishes every request already queued, joins the worker.
  ~TranslationQueue();
  TranslationQueue(const TranslationQueue&) = delete;
  TranslationQueue& operator=(const TranslationQueue&) = delete;

  // Queues `sentences` for translation with `options`; the future holds one Translation per sentence, in
  // order, or the error translating them raised. deadline: the latest moment the batch may start (none when
  // max()). Throws QueueFull when the queue is full, Error once stopping.
  std::future<std::vector<Translation>> submit(
      std::vector<std::string> sentences, const TranslateOptions& options,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

  QueueStats stats() const;

 private:
  struct Request {
    std::vector<std::string> sentences;
    TranslateOptions options;
    std::chrono::steady_clock::time_point deadline;
    std::promise<std::vector<Translation>> promise;
  };
  void run();
  // Takes the oldest request and those after it with the same options, up to max_batch_sentences (the
  // oldest is taken whatever its size). Called with the lock held.
  std::vector<Request> take_batch();
  void translate(std::vector<Request>& batch);

  Translator& translator_;
  QueueOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Request> waiting_;
  int queued_sentences_ = 0;
  bool stopping_ = false;
  std::size_t last_batch_requests_ = 0;
  QueueStats stats_;
  std::thread worker_;
};

// Whether two requests' options give the same search, so that their sentences may share a batch.
bool same_search(const TranslateOptions& a, const TranslateOptions& b);

}  // namespace heptapod
