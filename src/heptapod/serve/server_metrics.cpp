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
constexpr std::chrono::seconds kRateWindow{10};  // the window of heptapod_tokens_per_second

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

ServerMetrics::ModelCounters::ModelCounters()
    : batch_sentences(kBatchBounds), batch_requests(kBatchBounds), first_token(kLatencyBounds), step_rows(kBatchBounds) {}

void ServerMetrics::ModelCounters::add_tokens(std::uint64_t tokens) {
  const auto now = std::chrono::steady_clock::now();
  output_tokens += tokens;
  recent.emplace_back(now, tokens);
  while (!recent.empty() && recent.front().first < now - kRateWindow) recent.pop_front();
}

double ServerMetrics::ModelCounters::tokens_per_second() const {
  const auto now = std::chrono::steady_clock::now();
  std::uint64_t tokens = 0;
  for (const auto& [when, n] : recent)
    if (when >= now - kRateWindow) tokens += n;
  return static_cast<double>(tokens) / std::chrono::duration<double>(kRateWindow).count();
}

ServerMetrics::ModelCounters& ServerMetrics::model(const std::string& name, const std::string& kind) {
  ModelCounters& m = models_[name];
  m.kind = kind;
  return m;
}

ServerMetrics::ServerMetrics() = default;

std::string metric_path(const std::string& path) {
  for (const char* known : {"/", "/translate", "/v1/translate", "/languages", "/health", "/metrics", "/frontend/settings",
                            "/v1/models", "/v1/completions", "/v1/chat/completions", "/v1/generate", "/v1/embeddings",
                            "/v1/classify"})
    if (path == known) return path;
  if (path.rfind("/v1/models/", 0) == 0) return "/v1/models/*";
  return "other";
}

void ServerMetrics::record_request(const std::string& path, int status, double seconds) {
  std::lock_guard lock(mutex_);
  const std::string p = metric_path(path);
  ++requests_[{p, status}];
  latency_.try_emplace(p, kLatencyBounds).first->second.observe(seconds);
}

void ServerMetrics::record_batch(const std::string& name, const std::string& kind, const BatchReport& batch,
                                 int max_batch) {
  std::lock_guard lock(mutex_);
  ModelCounters& m = model(name, kind);
  m.batch_sentences.observe(batch.sentences);
  m.batch_requests.observe(batch.requests);
  ++m.batches;
  m.sentences += batch.sentences;
  m.add_tokens(batch.output_tokens);
  m.search_seconds += batch.seconds;
  m.occupancy = static_cast<double>(batch.sentences) / max_batch;
}

void ServerMetrics::record_step(const std::string& name, const GenerationStepReport& step) {
  std::lock_guard lock(mutex_);
  ModelCounters& m = model(name, "generation");
  m.step_rows.observe(step.rows);
  ++m.batches;
  m.add_tokens(static_cast<std::uint64_t>(step.tokens));
  m.search_seconds += step.seconds;
  m.occupancy = static_cast<double>(step.rows) / step.max_rows;
}

void ServerMetrics::record_first_token(const std::string& name, double seconds) {
  std::lock_guard lock(mutex_);
  model(name, "generation").first_token.observe(seconds);
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

  auto queue_label = [](const QueueGauges& q) { return label("model", q.model) + "," + label("kind", q.kind); };
  help(out, "heptapod_queue_sentences", "gauge", "items (sentences, texts) or samples waiting in a model's queue");
  for (const QueueGauges& q : gauges.queues)
    out += "heptapod_queue_sentences{" + queue_label(q) + "} " + std::to_string(q.queued) + "\n";
  help(out, "heptapod_queue_refused_total", "counter", "requests refused because the queue was full (503)");
  for (const QueueGauges& q : gauges.queues)
    out += "heptapod_queue_refused_total{" + queue_label(q) + "} " + std::to_string(q.refused) + "\n";
  help(out, "heptapod_queue_expired_total", "counter", "requests whose deadline passed before they were done (504)");
  for (const QueueGauges& q : gauges.queues)
    out += "heptapod_queue_expired_total{" + queue_label(q) + "} " + std::to_string(q.expired) + "\n";

  help(out, "heptapod_generation_rows", "gauge", "rows (samples) in a language model's running batch");
  for (const QueueGauges& q : gauges.queues)
    if (q.generation) out += "heptapod_generation_rows{" + queue_label(q) + "} " + std::to_string(q.running) + "\n";
  help(out, "heptapod_generation_cancelled_total", "counter",
       "generation requests dropped because their client left (their rows freed)");
  for (const QueueGauges& q : gauges.queues)
    if (q.generation)
      out += "heptapod_generation_cancelled_total{" + queue_label(q) + "} " + std::to_string(q.cancelled) + "\n";

  auto model_label = [](const std::string& name, const ModelCounters& m) {
    return label("model", name) + "," + label("kind", m.kind);
  };
  auto counter = [&](const char* name, const char* text, auto value) {
    help(out, name, "counter", text);
    for (const auto& [model, m] : models_) out += std::string(name) + "{" + model_label(model, m) + "} " + value(m) + "\n";
  };
  counter("heptapod_batches_total", "batches run (a language model's: decoding steps)",
          [](const ModelCounters& m) { return std::to_string(m.batches); });
  counter("heptapod_sentences_total", "sentences translated, or texts embedded or classified",
          [](const ModelCounters& m) { return std::to_string(m.sentences); });
  counter("heptapod_output_tokens_total", "tokens made: the best translations', or generated (rate(): tokens/s)",
          [](const ModelCounters& m) { return std::to_string(m.output_tokens); });
  counter("heptapod_search_seconds_total", "seconds the model computed (search, encoding, decoding steps)",
          [](const ModelCounters& m) { return number(m.search_seconds); });
  help(out, "heptapod_tokens_per_second", "gauge", "tokens made per second over the last 10 seconds");
  for (const auto& [model, m] : models_)
    out += "heptapod_tokens_per_second{" + model_label(model, m) + "} " + number(m.tokens_per_second()) + "\n";
  help(out, "heptapod_batch_occupancy", "gauge",
       "the last batch's items over the most a batch holds (a language model's: rows over --max-batch-rows)");
  for (const auto& [model, m] : models_)
    out += "heptapod_batch_occupancy{" + model_label(model, m) + "} " + number(m.occupancy) + "\n";
  help(out, "heptapod_batch_sentences", "histogram", "items per batch of a translation or encoder model");
  for (const auto& [model, m] : models_)
    if (m.kind != "generation") m.batch_sentences.render(out, "heptapod_batch_sentences", model_label(model, m));
  help(out, "heptapod_batch_requests", "histogram", "requests merged into one batch of a translation or encoder model");
  for (const auto& [model, m] : models_)
    if (m.kind != "generation") m.batch_requests.render(out, "heptapod_batch_requests", model_label(model, m));
  help(out, "heptapod_generation_batch_rows", "histogram", "rows (samples) per decoding step of a language model");
  for (const auto& [model, m] : models_)
    if (m.kind == "generation") m.step_rows.render(out, "heptapod_generation_batch_rows", model_label(model, m));
  help(out, "heptapod_time_to_first_token_seconds", "histogram",
       "a generation request's time from its arrival in the queue to its first token");
  for (const auto& [model, m] : models_)
    if (m.kind == "generation") m.first_token.render(out, "heptapod_time_to_first_token_seconds", model_label(model, m));
  return out;
}

}  // namespace heptapod
