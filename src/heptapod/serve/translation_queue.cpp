// The queue's worker: wait for requests, form a batch of those sharing the oldest one's options, translate it
// in one call, fulfil each request's promise with its slice of the results.
#include "heptapod/serve/translation_queue.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace heptapod {

bool same_search(const TranslateOptions& a, const TranslateOptions& b) {
  const SearchOptions &s = a.search, &t = b.search;
  return s.beam == t.beam && s.length_penalty == t.length_penalty && s.max_extra_length == t.max_extra_length &&
         s.nbest == t.nbest && s.min_length == t.min_length && s.cache == t.cache &&
         s.guards.repetition_penalty == t.guards.repetition_penalty &&
         s.guards.no_repeat_ngram == t.guards.no_repeat_ngram && a.sample == b.sample &&
         a.sampling.temperature == b.sampling.temperature && a.sampling.top_k == b.sampling.top_k &&
         a.sampling.top_p == b.sampling.top_p && a.sampling.seed == b.sampling.seed &&
         a.batch_tokens == b.batch_tokens && a.max_input_tokens == b.max_input_tokens &&
         a.reject_long_inputs == b.reject_long_inputs;
}

TranslationQueue::TranslationQueue(Translator& translator, const QueueOptions& options)
    : translator_(translator), options_(options) {
  require(options.max_batch_sentences > 0, "translation queue: max_batch_sentences must be positive");
  require(options.max_batch_requests >= 0, "translation queue: max_batch_requests must not be negative");
  require(options.max_queued_sentences > 0, "translation queue: max_queued_sentences must be positive");
  require(options.max_wait.count() >= 0, "translation queue: max_wait must not be negative");
  worker_ = std::thread([this] { run(); });
}

TranslationQueue::~TranslationQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

std::future<std::vector<Translation>> TranslationQueue::submit(std::vector<std::string> sentences,
                                                               const TranslateOptions& options,
                                                               std::chrono::steady_clock::time_point deadline) {
  Request r{std::move(sentences), options, deadline, {}};
  std::future<std::vector<Translation>> future = r.promise.get_future();
  const int n = static_cast<int>(r.sentences.size());
  {
    std::lock_guard lock(mutex_);
    require(!stopping_, "translation queue: stopping, no new requests");
    if (queued_sentences_ > 0 && queued_sentences_ + n > options_.max_queued_sentences) {
      ++stats_.refused;
      throw QueueFull("translation queue: full (" + std::to_string(queued_sentences_) + " sentences waiting, at most " +
                      std::to_string(options_.max_queued_sentences) + ")");
    }
    queued_sentences_ += n;
    ++stats_.requests;
    stats_.sentences += n;
    waiting_.push_back(std::move(r));
  }
  wake_.notify_one();
  return future;
}

QueueStats TranslationQueue::stats() const {
  std::lock_guard lock(mutex_);
  QueueStats s = stats_;
  s.queued_sentences = queued_sentences_;
  return s;
}

std::vector<TranslationQueue::Request> TranslationQueue::take_batch() {
  std::vector<Request> batch;
  int sentences = 0;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const int n = static_cast<int>(it->sentences.size());
    const bool fits = batch.empty() || (same_search(it->options, batch.front().options) &&
                                        sentences + n <= options_.max_batch_sentences);
    if (options_.max_batch_requests > 0 && static_cast<int>(batch.size()) >= options_.max_batch_requests) break;
    if (!fits) {
      ++it;
      continue;
    }
    sentences += n;
    queued_sentences_ -= n;
    batch.push_back(std::move(*it));
    it = waiting_.erase(it);
    if (sentences >= options_.max_batch_sentences) break;
  }
  return batch;
}

void TranslationQueue::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
    if (waiting_.empty()) return;  // stopping, and everything queued is done
    // Under load, give the batch a moment to fill up: until as many requests wait as the last batch took
    // (or the batch is full). An idle queue starts at once.
    const std::size_t expected = std::max(waiting_.size(), last_batch_requests_);
    const bool batching = options_.max_batch_requests != 1;
    if (batching && expected > 1 && queued_sentences_ < options_.max_batch_sentences && !stopping_)
      wake_.wait_for(lock, options_.max_wait, [&] {
        return stopping_ || waiting_.size() >= expected || queued_sentences_ >= options_.max_batch_sentences;
      });
    std::vector<Request> batch = take_batch();
    last_batch_requests_ = batch.size();
    ++stats_.batches;
    stats_.batched_requests += batch.size();
    lock.unlock();
    translate(batch);
    lock.lock();
  }
}

void TranslationQueue::translate(std::vector<Request>& batch) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<Request*> live;
  std::vector<std::string> sentences;
  for (Request& r : batch) {
    if (r.deadline < now) {
      r.promise.set_exception(
          std::make_exception_ptr(DeadlineExceeded("translation queue: the request's deadline passed while it waited")));
      std::lock_guard lock(mutex_);
      ++stats_.expired;
      continue;
    }
    live.push_back(&r);
    sentences.insert(sentences.end(), r.sentences.begin(), r.sentences.end());
  }
  if (live.empty()) return;
  std::size_t done = 0;  // requests whose promise is kept
  try {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Translation> all = translator_.translate(sentences, live.front()->options);
    if (options_.on_batch) {
      BatchReport report{static_cast<int>(live.size()), static_cast<int>(sentences.size()), 0,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
      for (const Translation& t : all)
        if (!t.hypotheses.empty()) report.output_tokens += t.hypotheses[0].tokens.size();
      options_.on_batch(report);
    }
    std::size_t at = 0;
    for (; done < live.size(); ++done) {
      Request* r = live[done];
      std::vector<Translation> mine(std::make_move_iterator(all.begin() + at),
                                    std::make_move_iterator(all.begin() + at + r->sentences.size()));
      at += r->sentences.size();
      r->promise.set_value(std::move(mine));
    }
  } catch (...) {
    for (; done < live.size(); ++done) live[done]->promise.set_exception(std::current_exception());
  }
}

}  // namespace heptapod
