// The server's metrics, exported at GET /metrics in Prometheus' text format (version 0.0.4): requests by
// path and status, request latency, search batches (sentences and requests per batch, search time, output
// tokens: rate() of heptapod_output_tokens_total is tokens/s), and the gauges the server reads at scrape time
// (queue depth, connections). Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "heptapod/serve/http_front_end.h"
#include "heptapod/serve/translation_queue.h"

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

// What the server reads at scrape time.
struct ServerGauges {
  bool ready = false;
  const FrontEndCounts* connections = nullptr;  // the front end's gauges and counts; none: not rendered
  std::vector<std::pair<std::string, QueueStats>> queues;  // model pair -> its queue
};

class ServerMetrics {
 public:
  ServerMetrics();
  void record_request(const std::string& path, int status, double seconds);
  void record_batch(const std::string& model, const BatchReport& batch);
  std::string render(const ServerGauges& gauges) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;  // (path, status) -> count
  std::map<std::string, Histogram> latency_;                       // path -> seconds
  struct ModelCounters {
    Histogram batch_sentences, batch_requests;
    std::uint64_t batches = 0, sentences = 0, output_tokens = 0;
    double search_seconds = 0;
    ModelCounters();
  };
  std::map<std::string, ModelCounters> models_;
};

// The metric label for a request path: the server's routes as they are, anything else "other" (so that
// scanning clients cannot grow the label set without bound).
std::string metric_path(const std::string& path);

}  // namespace heptapod
