// The server's metrics, exported at GET /metrics in Prometheus' text format (version 0.0.4): requests by
// path and status, request latency; per model (labelled with its kind): batches (items and requests per
// batch, compute time, output tokens: rate() of heptapod_output_tokens_total is tokens/s, and the last 10 s's
// tokens/s as a gauge), batch occupancy, a language model's time to first token and rows per step; and the
// gauges the server reads at scrape time (queue depth, connections). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "heptapod/serve/http_front_end.h"
#include "heptapod/serve/generation_queue.h"

namespace heptapod {

// A cumulative histogram with fixed upper bounds (the +Inf bucket is implied).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // The _bucket, _sum and _count lines of metric `name` with extra labels `labels` (e.g. path="/translate").
  void render(std::string& out, const std::string& name, const std::string& labels) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; the last is +Inf
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

// A model's queue as read at scrape time: a batch queue's (translation, encoders) or a generation queue's.
struct QueueGauges {
  std::string model, kind;
  int queued = 0;  // items (sentences, texts) or samples waiting
  std::uint64_t refused = 0, expired = 0;
  bool generation = false;     // a language model's queue, which also has:
  int running = 0;             // rows in its batch now
  std::uint64_t cancelled = 0; // requests dropped because their client left
};

// What the server reads at scrape time.
struct ServerGauges {
  bool ready = false;
  const FrontEndCounts* connections = nullptr;  // the front end's gauges and counts; none: not rendered
  std::vector<QueueGauges> queues;
};

class ServerMetrics {
 public:
  ServerMetrics();
  void record_request(const std::string& path, int status, double seconds);
  // A batch of a translation or encoder model's queue, of at most max_batch items.
  void record_batch(const std::string& model, const std::string& kind, const BatchReport& batch, int max_batch);
  // A language model's step, and a request's time to its first token.
  void record_step(const std::string& model, const GenerationStepReport& step);
  void record_first_token(const std::string& model, double seconds);
  std::string render(const ServerGauges& gauges) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;  // (path, status) -> count
  std::map<std::string, Histogram> latency_;                       // path -> seconds
  struct ModelCounters {
    std::string kind;
    Histogram batch_sentences, batch_requests, first_token, step_rows;
    std::uint64_t batches = 0, sentences = 0, output_tokens = 0;
    double search_seconds = 0;
    double occupancy = 0;  // the last batch's items (rows) over its limit
    std::deque<std::pair<std::chrono::steady_clock::time_point, std::uint64_t>> recent;  // (when, tokens) of 10 s
    ModelCounters();
    void add_tokens(std::uint64_t tokens);
    double tokens_per_second() const;
  };
  ModelCounters& model(const std::string& name, const std::string& kind);
  std::map<std::string, ModelCounters> models_;
};

// The metric label for a request path: the server's routes as they are, anything else "other" (so that
// scanning clients cannot grow the label set without bound).
std::string metric_path(const std::string& path);

}  // namespace heptapod
