// `heptapod serve`: one HTTP server (serve/http_front_end.h) for every kind of model, each served by its kind:
//   translation: POST /translate (LibreTranslate's API), POST /v1/translate (native), GET /languages;
//   generation: POST /v1/completions (OpenAI's API, streamed as server-sent events on request), POST
//     /v1/generate (native: every option of `heptapod generate`), on a continuous batch per model;
//   classification: POST /v1/classify (native), and POST /v1/embeddings;
//   embedding: POST /v1/embeddings (OpenAI's API).
// And for all: GET /v1/models (OpenAI's list, with each model's kind), GET /health (200 once every model is
// loaded), GET /metrics (Prometheus), GET / (the web page, a panel per kind). Translation and encoder
// requests batch across requests in a queue per model. Every request is checked against the limits in
// ServerOptions and answered with JSON (OpenAI's error object on OpenAI's routes, {"error": "..."} on the
// others); one line per request goes to stderr.
//
//   heptapod::ModelServer server({heptapod::parse_model_spec("es-en=mt.htp"),
//                                 heptapod::parse_model_spec("writer=lm.htp")}, {});
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

class ModelServer {
 public:
  // Checks the options and the model list (a missing or damaged model file, its header and config read, a
  // translation model not named by its pair, or a bad API key file is an Error here, before anything
  // listens). Loads no weights yet.
  ModelServer(std::vector<ModelSpec> models, const ServerOptions& options);
  ~ModelServer();
  ModelServer(const ModelServer&) = delete;
  ModelServer& operator=(const ModelServer&) = delete;

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
