// Prometheus text rendering of the server's counters and histograms.
#include "heptapod/serve/server_metrics.h"

#include <cstdio>

namespace heptapod {

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

void help(std::string& out, const char* name, const char* type, const char* text) {
  out += std::string("# HELP ") + name + " " + text + "\n# TYPE " + name + " " + type + "\n";
}

std::string label(const std::string& key, const std::string& value) { return key + "=\"" + value + "\""; }

const std::vector<double> kLatencyBounds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                            0.5,   1,      2.5,   5,    10,    30,   60};
const std::vector<double> kBatchBounds = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  std::size_t b = 0;
  while (b < bounds_.size() && value > bounds_[b]) ++b;
  ++counts_[b];
  sum_ += value;
  ++count_;
}

void Histogram::render(std::string& out, const std::string& name, const std::string& labels) const {
  const std::string sep = labels.empty() ? "" : labels + ",";
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b <= bounds_.size(); ++b) {
    cumulative += counts_[b];
    const std::string le = b < bounds_.size() ? number(bounds_[b]) : "+Inf";
    out += name + "_bucket{" + sep + label("le", le) + "} " + std::to_string(cumulative) + "\n";
  }
  const std::string braces = labels.empty() ? "" : "{" + labels + "}";
  out += name + "_sum" + braces + " " + number(sum_) + "\n";
  out += name + "_count" + braces + " " + std::to_string(count_) + "\n";
}

ServerMetrics::ModelCounters::ModelCounters() : batch_sentences(kBatchBounds), batch_requests(kBatchBounds) {}

ServerMetrics::ServerMetrics() = default;

std::string metric_path(const std::string& path) {
  for (const char* known : {"/", "/translate", "/v1/translate", "/languages", "/health", "/metrics", "/frontend/settings"})
    if (path == known) return path;
  return "other";
}

void ServerMetrics::record_request(const std::string& path, int status, double seconds) {
  std::lock_guard lock(mutex_);
  const std::string p = metric_path(path);
  ++requests_[{p, status}];
  latency_.try_emplace(p, kLatencyBounds).first->second.observe(seconds);
}

void ServerMetrics::record_batch(const std::string& model, const BatchReport& batch) {
  std::lock_guard lock(mutex_);
  ModelCounters& m = models_[model];
  m.batch_sentences.observe(batch.sentences);
  m.batch_requests.observe(batch.requests);
  ++m.batches;
  m.sentences += batch.sentences;
  m.output_tokens += batch.output_tokens;
  m.search_seconds += batch.seconds;
}

std::string ServerMetrics::render(const ServerGauges& gauges) const {
  std::lock_guard lock(mutex_);
  std::string out;
  help(out, "heptapod_ready", "gauge", "1 once every model is loaded");
  out += "heptapod_ready " + std::to_string(gauges.ready ? 1 : 0) + "\n";
  help(out, "heptapod_requests_total", "counter", "HTTP requests by path and status code");
  for (const auto& [key, count] : requests_)
    out += "heptapod_requests_total{" + label("path", key.first) + "," + label("code", std::to_string(key.second)) +
           "} " + std::to_string(count) + "\n";
  help(out, "heptapod_request_duration_seconds", "histogram", "HTTP request latency, from headers read to reply ready");
  for (const auto& [path, h] : latency_) h.render(out, "heptapod_request_duration_seconds", label("path", path));
  if (const FrontEndCounts* c = gauges.connections) {
    help(out, "heptapod_connections_active", "gauge", "HTTP connections open");
    out += "heptapod_connections_active " + std::to_string(c->open.load()) + "\n";
    help(out, "heptapod_requests_in_progress", "gauge", "HTTP requests being handled");
    out += "heptapod_requests_in_progress " + std::to_string(c->in_handlers.load()) + "\n";
    help(out, "heptapod_connections_pending", "gauge", "HTTP requests waiting for a request thread");
    out += "heptapod_connections_pending " + std::to_string(c->waiting.load()) + "\n";
    help(out, "heptapod_connections_refused_total", "counter",
         "connections refused at accept: too many from one address (429) or in all (503)");
    out += "heptapod_connections_refused_total{reason=\"per_address\"} " + std::to_string(c->refused_per_address.load()) + "\n";
    out += "heptapod_connections_refused_total{reason=\"total\"} " + std::to_string(c->refused_total.load()) + "\n";
    help(out, "heptapod_request_timeouts_total", "counter",
         "requests whose header or body missed its deadline (408, or a silent close when nothing was sent)");
    out += "heptapod_request_timeouts_total{phase=\"header\"} " + std::to_string(c->header_timeouts.load()) + "\n";
    out += "heptapod_request_timeouts_total{phase=\"body\"} " + std::to_string(c->body_timeouts.load()) + "\n";
    help(out, "heptapod_connections_idle_closed_total", "counter", "keep-alive connections closed after --keep-alive idle seconds");
    out += "heptapod_connections_idle_closed_total " + std::to_string(c->idle_closed.load()) + "\n";
  }

  help(out, "heptapod_queue_sentences", "gauge", "sentences waiting in a model's translation queue");
  for (const auto& [model, s] : gauges.queues)
    out += "heptapod_queue_sentences{" + label("model", model) + "} " + std::to_string(s.queued_sentences) + "\n";
  help(out, "heptapod_queue_refused_total", "counter", "requests refused because the queue was full (503)");
  for (const auto& [model, s] : gauges.queues)
    out += "heptapod_queue_refused_total{" + label("model", model) + "} " + std::to_string(s.refused) + "\n";
  help(out, "heptapod_queue_expired_total", "counter", "requests whose deadline passed while queued (504)");
  for (const auto& [model, s] : gauges.queues)
    out += "heptapod_queue_expired_total{" + label("model", model) + "} " + std::to_string(s.expired) + "\n";

  help(out, "heptapod_batches_total", "counter", "search batches run");
  for (const auto& [model, m] : models_) out += "heptapod_batches_total{" + label("model", model) + "} " + std::to_string(m.batches) + "\n";
  help(out, "heptapod_sentences_total", "counter", "sentences translated");
  for (const auto& [model, m] : models_)
    out += "heptapod_sentences_total{" + label("model", model) + "} " + std::to_string(m.sentences) + "\n";
  help(out, "heptapod_output_tokens_total", "counter", "tokens of the best translations (rate(): tokens/s)");
  for (const auto& [model, m] : models_)
    out += "heptapod_output_tokens_total{" + label("model", model) + "} " + std::to_string(m.output_tokens) + "\n";
  help(out, "heptapod_search_seconds_total", "counter", "seconds spent in search");
  for (const auto& [model, m] : models_)
    out += "heptapod_search_seconds_total{" + label("model", model) + "} " + number(m.search_seconds) + "\n";
  help(out, "heptapod_batch_sentences", "histogram", "sentences per search batch");
  for (const auto& [model, m] : models_) m.batch_sentences.render(out, "heptapod_batch_sentences", label("model", model));
  help(out, "heptapod_batch_requests", "histogram", "requests merged into one search batch");
  for (const auto& [model, m] : models_) m.batch_requests.render(out, "heptapod_batch_requests", label("model", model));
  return out;
}

}  // namespace heptapod
