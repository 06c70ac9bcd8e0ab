// The HTTP server: routes, request checks, model lookup, queue submission, replies, logs and metrics.
#include "heptapod/serve/translation_server.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/serve/api_keys.h"
#include "heptapod/serve/http_front_end.h"
#include "heptapod/serve/request_body.h"
#include "heptapod/serve/server_metrics.h"
#include "heptapod/serve/translation_api.h"
#include "heptapod/serve/translation_queue.h"
#include "heptapod/serve/web_page.h"

namespace heptapod {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

HttpResponse error_reply(const HttpError& e) {
  HttpResponse r = error_response(e.status, e.what());
  if (e.retry_after > 0) r.headers.emplace_back("Retry-After", std::to_string(e.retry_after));
  return r;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct ServedTranslator {
  ModelSpec spec;
  std::unique_ptr<Translator> translator;
  std::unique_ptr<TranslationQueue> queue;
};

enum class Api { LibreTranslate, Native };

}  // namespace

struct TranslationServer::Impl {
  std::vector<ModelSpec> specs;
  std::vector<ComputeType> stored_types;  // per spec: the compute type its weights are stored in
  ServerOptions options;
  std::set<std::string> api_keys;
  std::unique_ptr<HttpFrontEnd> http;
  int port = -1;
  ServerMetrics metrics;
  std::vector<ServedTranslator> models;  // filled before `ready`, read-only after
  std::atomic<bool> ready{false};
  std::mutex stop_mutex;
  std::condition_variable stop_wake;
  bool stop_requested = false;

  void routes();
  void load_models();
  // The body as JSON: the native API takes JSON only, LibreTranslate's also forms.
  json read_body(const HttpRequest& req, Api api) const;
  void check_api_key(const HttpRequest& req, const json& body) const;
  const ServedTranslator& find_model(const TranslationCall& call) const;
  void translate(HttpExchange& exchange, Api api);
  ServerGauges gauges() const;
};

TranslationServer::TranslationServer(std::vector<ModelSpec> models, const ServerOptions& options)
    : impl_(std::make_unique<Impl>()) {
  require(!models.empty(), "serve: no model given (-m MODEL or -m SRC-TGT=MODEL)");
  std::set<std::string> pairs;
  for (const ModelSpec& m : models) {
    require(models.size() == 1 || m.named(),
            "serve: with several models, name each one's pair: -m SRC-TGT=" + m.path);
    require(pairs.insert(m.pair()).second, "serve: the pair " + m.pair() + " is given twice");
    require(std::filesystem::is_regular_file(m.path), "--model " + m.path + ": not a file");
    const SafetensorsFile file = SafetensorsFile::read(m.path);
    read_model_config(file);  // a damaged file is refused before listening
    impl_->stored_types.push_back(stored_compute_type(file));
  }
  const RequestLimits& l = options.limits;
  require(l.max_characters > 0, "--max-characters must be positive");
  require(l.max_sentences > 0, "--max-sentences must be positive");
  require(l.max_beam > 0 && l.max_nbest > 0, "--max-beam and --max-nbest must be positive");
  require(options.defaults.search.beam <= l.max_beam, "--beam " + std::to_string(options.defaults.search.beam) +
                                                          " is above --max-beam " + std::to_string(l.max_beam) +
                                                          ": every request would be refused");
  require(l.timeout.count() > 0, "--timeout must be positive");
  impl_->http = std::make_unique<HttpFrontEnd>(options.http);  // checks the connection options
  impl_->specs = std::move(models);
  impl_->options = options;
  if (!options.api_keys_file.empty()) impl_->api_keys = load_api_keys(options.api_keys_file);
  impl_->routes();
}

TranslationServer::~TranslationServer() { stop(); }

int TranslationServer::bind() {
  impl_->port = impl_->http->bind();
  return impl_->port;
}

void TranslationServer::serve() {
  Impl& s = *impl_;
  require(s.port >= 0, "serve: bind() first");
  std::thread listener([&] { s.http->run(); });
  std::exception_ptr error;
  try {
    s.load_models();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::unique_lock lock(s.stop_mutex);
    s.stop_wake.wait(lock, [&] { return s.stop_requested || error; });
  }
  s.http->stop();
  listener.join();
  if (error) std::rethrow_exception(error);
}

void TranslationServer::stop() {
  {
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stop_requested = true;
  }
  impl_->stop_wake.notify_all();
}

bool TranslationServer::ready() const { return impl_->ready; }
int TranslationServer::port() const { return impl_->port; }

void TranslationServer::Impl::load_models() {
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ModelSpec& spec = specs[i];
    ModelLoadOptions precision = options.translator;
    if (!precision.compute_type && stored_types[i] == ComputeType::Float32)
      precision.compute_type = ComputeType::Int8;  // batch-invariant: batching cannot change a reply
    ServedTranslator m{spec, std::make_unique<Translator>(spec.path, precision), nullptr};
    QueueOptions q = options.queue;
    const std::string pair = spec.pair();
    q.on_batch = [this, pair](const BatchReport& b) { metrics.record_batch(pair, b); };
    m.queue = std::make_unique<TranslationQueue>(*m.translator, q);
    std::fprintf(stderr, "%s heptapod serve: loaded %s (%s)\n", utc_now().c_str(), pair.c_str(), spec.path.c_str());
    models.push_back(std::move(m));
  }
  ready = true;
}

json TranslationServer::Impl::read_body(const HttpRequest& req, Api api) const {
  const std::string content_type = req.header("Content-Type");
  if (api == Api::Native) {
    if (media_type(content_type) == "multipart/form-data")
      throw HttpError(400, "Invalid request: /v1/translate takes a JSON body");
    return parse_body(req.body, "application/json");
  }
  return parse_body(req.body, content_type);
}

void TranslationServer::Impl::check_api_key(const HttpRequest& req, const json& body) const {
  if (api_keys.empty()) return;
  std::string key = string_field(body, "api_key").value_or("");
  if (key.empty()) key = req.header("X-API-Key");
  const std::string auth = req.header("Authorization");
  if (key.empty() && auth.rfind("Bearer ", 0) == 0) key = auth.substr(7);
  if (key.empty()) throw HttpError(403, "Please provide an API key (api_key field, X-API-Key or Authorization: Bearer)");
  if (!api_keys.count(key)) throw HttpError(403, "Invalid API key");
}

const ServedTranslator& TranslationServer::Impl::find_model(const TranslationCall& call) const {
  if (!ready) throw HttpError(503, "The models are still loading", 5);
  const bool any_source = call.source.empty() || call.source == "auto";
  if (models.size() == 1) {
    const ServedTranslator& m = models[0];
    if (!m.spec.named()) return m;
    if (!any_source && call.source != m.spec.source) throw HttpError(400, call.source + " is not supported");
    if (!call.target.empty() && call.target != m.spec.target) throw HttpError(400, call.target + " is not supported");
    return m;
  }
  if (call.target.empty()) throw HttpError(400, "Invalid request: missing target parameter");
  const ServedTranslator* found = nullptr;
  int candidates = 0;
  bool source_known = false;
  for (const ServedTranslator& m : models) {
    source_known |= m.spec.source == call.source;
    if (m.spec.target == call.target && (any_source || m.spec.source == call.source)) {
      found = &m;
      ++candidates;
    }
  }
  if (candidates == 1) return *found;
  if (candidates > 1)
    throw HttpError(400, "Invalid request: several models translate into " + call.target + "; give the source language");
  if (!any_source && !source_known) throw HttpError(400, call.source + " is not supported");
  throw HttpError(400, call.target + " is not supported");
}

void TranslationServer::Impl::translate(HttpExchange& exchange, Api api) {
  const HttpRequest& req = exchange.request();
  try {
    const json body = read_body(req, api);
    check_api_key(req, body);
    const TranslationCall call =
        api == Api::LibreTranslate ? parse_libretranslate(body, options) : parse_native(body, options);
    const ServedTranslator& model = find_model(call);
    exchange.set_log_note(std::to_string(call.lines.size()) + " sentences");
    const Clock::time_point deadline = Clock::now() + call.timeout;
    std::future<std::vector<Translation>> future;
    try {
      future = model.queue->submit(call.lines, call.options, deadline);
    } catch (const QueueFull&) {
      throw HttpError(503, "The server is busy (translation queue full); retry shortly", 1);
    }
    const std::string timed_out = "Translation timed out after " + std::to_string(call.timeout.count()) + " ms";
    if (future.wait_until(deadline) != std::future_status::ready) throw HttpError(504, timed_out);
    std::vector<Translation> out;
    try {
      out = future.get();
    } catch (const DeadlineExceeded&) {
      throw HttpError(504, timed_out + " (queued)");
    }
    exchange.reply(json_response(200, api == Api::LibreTranslate ? libretranslate_reply(call, out, model.spec)
                                                              : native_reply(call, out, model.spec)));
  } catch (const HttpError& e) {
    exchange.reply(error_reply(e));
  } catch (const Error& e) {
    exchange.reply(error_reply(HttpError(500, std::string("Translation failed: ") + e.what())));
  }
}

ServerGauges TranslationServer::Impl::gauges() const {
  ServerGauges g;
  g.ready = ready;
  g.connections = &http->counts();
  if (ready)
    for (const ServedTranslator& m : models) g.queues.emplace_back(m.spec.pair(), m.queue->stats());
  return g;
}

void TranslationServer::Impl::routes() {
  http->observe([this](const HttpRequestRecord& r) { metrics.record_request(r.path, r.status, r.seconds); },
                [](const HttpRequestRecord& r) {
                  std::fprintf(stderr, "%s %s %s %s %d %s %.1f ms\n", utc_now().c_str(), r.remote_address.c_str(),
                               r.method.c_str(), r.path.c_str(), r.status, r.note.empty() ? "0 sentences" : r.note.c_str(),
                               r.seconds * 1000);
                });
  http->route("POST", "/translate", [this](HttpExchange& x) { translate(x, Api::LibreTranslate); });
  http->route("POST", "/v1/translate", [this](HttpExchange& x) { translate(x, Api::Native); });
  http->route("GET", "/languages", [this](HttpExchange& x) { x.reply(json_response(200, languages_reply(specs))); });
  http->route("GET", "/frontend/settings", [this](HttpExchange& x) {
    json settings = {{"charLimit", options.limits.max_characters}, {"frontendTimeout", 500},
                     {"apiKeys", !api_keys.empty()},             {"keyRequired", !api_keys.empty()},
                     {"suggestions", false},                      {"filesTranslation", false},
                     {"supportedFilesFormat", json::array()}};
    const ModelSpec& first = specs.front();
    const std::string src = first.named() ? first.source : "src", tgt = first.named() ? first.target : "tgt";
    settings["language"] = {{"source", {{"code", src}, {"name", language_name(src)}}},
                            {"target", {{"code", tgt}, {"name", language_name(tgt)}}}};
    x.reply(json_response(200, settings));
  });
  http->route("GET", "/health", [this](HttpExchange& x) {
    json models_json = json::array();
    for (const ModelSpec& m : specs) models_json.push_back(m.pair());
    x.reply(json_response(ready ? 200 : 503, {{"status", ready ? "ok" : "loading"}, {"models", models_json}}));
  });
  http->route("GET", "/metrics", [this](HttpExchange& x) {
    x.reply({200, "text/plain; version=0.0.4; charset=utf-8", metrics.render(gauges()), {}});
  });
  http->route("GET", "/", [](HttpExchange& x) { x.reply({200, "text/html; charset=utf-8", std::string(web_page()), {}}); });
}

}  // namespace heptapod
