// `heptapod serve`: an HTTP translation server (serve/http_front_end.h) over one TranslationQueue per model, so that
// concurrent requests share search batches. Endpoints: POST /translate (LibreTranslate's API), POST
// /v1/translate (native: every option of the CLI), GET /languages, GET /health (200 once every model is
// loaded), GET /metrics (Prometheus), GET / (the web page). Every request is checked against the limits in
// ServerOptions and answered with JSON, {"error": "..."} for failures; one line per request goes to stderr.
//
//   heptapod::TranslationServer server({heptapod::parse_model_spec("es-en=model.htp")}, {});
//   server.bind();                 // listening from here on; /health says 503 until the models are loaded
//   std::thread t([&] { server.serve(); });
//   ...  server.stop();  t.join(); // stop: no new connections; what is in flight is answered
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heptapod/serve/served_model.h"
#include "heptapod/serve/server_options.h"

namespace heptapod {

class TranslationServer {
 public:
  // Checks the options and the model list (a missing or damaged model file, its header and config read, or a
  // bad API key file is an Error here, before anything listens). Loads no weights yet.
  TranslationServer(std::vector<ModelSpec> models, const ServerOptions& options);
  ~TranslationServer();
  TranslationServer(const TranslationServer&) = delete;
  TranslationServer& operator=(const TranslationServer&) = delete;

  // Binds host:port and starts listening (connections wait in the backlog until serve()). Returns the port
  // (the chosen one for port 0). Throws Error when the address cannot be bound.
  int bind();
  // Serves connections while loading the models, then until stop(). Returns once every accepted connection
  // is answered. A model that fails to load stops the server and rethrows its Error.
  void serve();
  // Stops accepting; serve() returns after the requests in flight are answered. Any thread; idempotent.
  void stop();

  bool ready() const;  // every model loaded
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heptapod
