// The HTTP server: routes, request checks, model lookup, queue submission, replies, logs and metrics.
#include "heptapod/serve/translation_server.h"

#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <future>
#include <httplib.h>
#include <mutex>
#include <set>
#include <thread>

#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/serve/api_keys.h"
#include "heptapod/serve/connection_pool.h"
#include "heptapod/serve/request_body.h"
#include "heptapod/serve/server_metrics.h"
#include "heptapod/serve/translation_api.h"
#include "heptapod/serve/translation_queue.h"
#include "heptapod/serve/web_page.h"

namespace heptapod {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// cpp-httplib's server with the listen backlog set (the library's build fixes it at 5).
class BackloggedServer : public httplib::Server {
 public:
  void set_backlog(int backlog) { ::listen(svr_sock_, backlog); }
};

// What the log line and the metrics need of the request this thread is serving.
struct RequestRecord {
  Clock::time_point start{};
  std::size_t sentences = 0;
  double seconds = 0;     // headers read to reply ready
  bool counted = false;   // in the metrics already
};
thread_local RequestRecord current_request;

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, const HttpError& e) {
  if (e.retry_after > 0) res.set_header("Retry-After", std::to_string(e.retry_after));
  send_json(res, e.status, {{"error", e.what()}});
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
  BackloggedServer http;
  int port = -1;
  ServerMetrics metrics;
  ConnectionCounts connections;
  std::vector<ServedTranslator> models;  // filled before `ready`, read-only after
  std::atomic<bool> ready{false};
  std::mutex stop_mutex;
  std::condition_variable stop_wake;
  bool stop_requested = false;

  void routes();
  void load_models();
  // The body as JSON: the native API takes JSON only, LibreTranslate's also forms.
  json read_body(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader,
                 Api api) const;
  void check_api_key(const httplib::Request& req, const json& body) const;
  const ServedTranslator& find_model(const TranslationCall& call) const;
  void translate(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader, Api api);
  ServerGauges gauges() const;
  // Counts a request in the metrics once its reply is ready, before it is sent, so that a client's next request
  // already sees it; log() writes its line after the reply went out.
  void count(const httplib::Request& req, const httplib::Response& res);
  void log(const httplib::Request& req, const httplib::Response& res);
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
  require(options.port >= 0 && options.port <= 65535, "--port must be 0-65535");
  require(options.http_threads > 0, "--http-threads must be positive");
  require(options.max_pending_connections > 0, "--max-pending-connections must be positive");
  require(options.listen_backlog > 0, "--backlog must be positive");
  require(options.keep_alive_seconds >= 0 && options.keep_alive_requests > 0, "keep-alive settings must be positive");
  require(l.max_body_bytes > 0, "--max-body-bytes must be positive");
  require(l.max_characters > 0, "--max-characters must be positive");
  require(l.max_sentences > 0, "--max-sentences must be positive");
  require(l.max_beam > 0 && l.max_nbest > 0, "--max-beam and --max-nbest must be positive");
  require(options.defaults.search.beam <= l.max_beam, "--beam " + std::to_string(options.defaults.search.beam) +
                                                          " is above --max-beam " + std::to_string(l.max_beam) +
                                                          ": every request would be refused");
  require(l.timeout.count() > 0, "--timeout must be positive");
  impl_->specs = std::move(models);
  impl_->options = options;
  if (!options.api_keys_file.empty()) impl_->api_keys = load_api_keys(options.api_keys_file);
  impl_->routes();
}

TranslationServer::~TranslationServer() {
  stop();
  impl_->http.stop();
}

int TranslationServer::bind() {
  Impl& s = *impl_;
  const ServerOptions& o = s.options;
  if (o.port == 0) {
    s.port = s.http.bind_to_any_port(o.host);
    require(s.port > 0, "serve: cannot listen on --host " + o.host + " (not an address of this machine)");
  } else {
    require(s.http.bind_to_port(o.host, o.port),
            "serve: cannot listen on --host " + o.host + " --port " + std::to_string(o.port) +
                " (the port is in use, or the host not an address of this machine)");
    s.port = o.port;
  }
  s.http.set_backlog(o.listen_backlog);
  return s.port;
}

void TranslationServer::serve() {
  Impl& s = *impl_;
  require(s.port >= 0, "serve: bind() first");
  std::atomic<bool> listening_done{false};
  std::thread listener([&] {
    s.http.listen_after_bind();
    listening_done = true;
  });
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
  // httplib's stop() acts only once its loop runs: repeat until the listener has returned.
  while (!listening_done) {
    s.http.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
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

json TranslationServer::Impl::read_body(const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& reader, Api api) const {
  const std::size_t limit = options.limits.max_body_bytes;
  const HttpError too_large(413, "Request body larger than " + std::to_string(limit) + " bytes");
  std::string body;
  bool over = false;
  auto append = [&](const char* data, std::size_t n) {
    if (body.size() + n > limit) {
      over = true;
      return false;
    }
    body.append(data, n);
    return true;
  };
  if (req.is_multipart_form_data()) {
    if (api == Api::Native) throw HttpError(400, "Invalid request: /v1/translate takes a JSON body");
    std::multimap<std::string, std::string> fields;
    std::string name;
    const bool ok = reader(
        [&](const httplib::MultipartFormData& part) {
          name = part.name;
          fields.emplace(name, "");
          return true;
        },
        [&](const char* data, std::size_t n) {
          if (!append(data, n)) return false;
          auto it = fields.upper_bound(name);
          (--it)->second.append(data, n);
          return true;
        });
    if (over || res.status == 413) throw too_large;
    if (!ok) throw HttpError(400, "Invalid request: malformed multipart body");
    return form_fields(fields);
  }
  const bool ok = reader(append);
  if (over || res.status == 413) throw too_large;
  if (!ok) throw HttpError(400, "Invalid request: the body could not be read");
  return parse_body(body, api == Api::Native ? "application/json" : req.get_header_value("Content-Type"));
}

void TranslationServer::Impl::check_api_key(const httplib::Request& req, const json& body) const {
  if (api_keys.empty()) return;
  std::string key = string_field(body, "api_key").value_or("");
  if (key.empty()) key = req.get_header_value("X-API-Key");
  const std::string auth = req.get_header_value("Authorization");
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

void TranslationServer::Impl::translate(const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& reader, Api api) {
  try {
    const json body = read_body(req, res, reader, api);
    check_api_key(req, body);
    const TranslationCall call =
        api == Api::LibreTranslate ? parse_libretranslate(body, options) : parse_native(body, options);
    const ServedTranslator& model = find_model(call);
    current_request.sentences = call.lines.size();
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
    send_json(res, 200, api == Api::LibreTranslate ? libretranslate_reply(call, out, model.spec)
                                                   : native_reply(call, out, model.spec));
  } catch (const HttpError& e) {
    send_error(res, e);
  } catch (const Error& e) {
    send_error(res, HttpError(500, std::string("Translation failed: ") + e.what()));
  }
}

ServerGauges TranslationServer::Impl::gauges() const {
  ServerGauges g;
  g.ready = ready;
  g.active_connections = connections.active;
  g.pending_connections = connections.pending;
  if (ready)
    for (const ServedTranslator& m : models) g.queues.emplace_back(m.spec.pair(), m.queue->stats());
  return g;
}

void TranslationServer::Impl::count(const httplib::Request& req, const httplib::Response& res) {
  RequestRecord& r = current_request;
  if (r.counted) return;
  r.seconds = r.start == Clock::time_point{} ? 0 : std::chrono::duration<double>(Clock::now() - r.start).count();
  metrics.record_request(req.path, res.status, r.seconds);
  r.counted = true;
}

void TranslationServer::Impl::log(const httplib::Request& req, const httplib::Response& res) {
  count(req, res);  // replies that bypass routing (a body too large, a bad request line)
  RequestRecord& r = current_request;
  std::fprintf(stderr, "%s %s %s %s %d %zu sentences %.1f ms\n", utc_now().c_str(), req.remote_addr.c_str(),
               req.method.c_str(), req.path.c_str(), res.status, r.sentences, r.seconds * 1000);
  r = RequestRecord{};
}

void TranslationServer::Impl::routes() {
  const ServerOptions& o = options;
  http.new_task_queue = [this] {
    return new ConnectionPool(options.http_threads, options.max_pending_connections, connections);
  };
  http.set_tcp_nodelay(true);
  http.set_keep_alive_timeout(o.keep_alive_seconds);
  http.set_keep_alive_max_count(static_cast<std::size_t>(o.keep_alive_requests));
  http.set_payload_max_length(o.limits.max_body_bytes);
  http.set_default_headers({{"Access-Control-Allow-Origin", "*"}});
  http.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    current_request = RequestRecord{.start = Clock::now()};
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) { count(req, res); });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) { log(req, res); });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) send_json(res, 404, {{"error", "Not found: " + req.path}});
    else if (res.status == 413) send_json(res, 413, {{"error", "Request body too large"}});
    else send_json(res, res.status, {{"error", "Bad request"}});
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_json(res, 500, {{"error", "Internal error: " + what}});
  });

  http.Post("/translate", [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& r) {
    translate(req, res, r, Api::LibreTranslate);
  });
  http.Post("/v1/translate", [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& r) {
    translate(req, res, r, Api::Native);
  });
  http.Get("/languages", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, languages_reply(specs));
  });
  http.Get("/frontend/settings", [this](const httplib::Request&, httplib::Response& res) {
    json settings = {{"charLimit", options.limits.max_characters}, {"frontendTimeout", 500},
                     {"apiKeys", !api_keys.empty()},             {"keyRequired", !api_keys.empty()},
                     {"suggestions", false},                      {"filesTranslation", false},
                     {"supportedFilesFormat", json::array()}};
    const ModelSpec& first = specs.front();
    const std::string src = first.named() ? first.source : "src", tgt = first.named() ? first.target : "tgt";
    settings["language"] = {{"source", {{"code", src}, {"name", language_name(src)}}},
                            {"target", {{"code", tgt}, {"name", language_name(tgt)}}}};
    send_json(res, 200, settings);
  });
  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    json models_json = json::array();
    for (const ModelSpec& m : specs) models_json.push_back(m.pair());
    send_json(res, ready ? 200 : 503, {{"status", ready ? "ok" : "loading"}, {"models", models_json}});
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.render(gauges()), "text/plain; version=0.0.4; charset=utf-8");
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    const std::string_view page = web_page();
    res.set_content(page.data(), page.size(), "text/html; charset=utf-8");
  });
  http.Options(R"(/.*)", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization, X-API-Key");
    res.status = 204;
  });
}

}  // namespace heptapod
