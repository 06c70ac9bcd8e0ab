// The server's HTTP/1.1 front end: one event loop (Boost.Asio, Boost.Beast's parser and serializer) holds
// every connection, so an open connection costs memory, not a thread; handlers run on a pool of request
// threads. It enforces what a hostile client could otherwise exhaust: a deadline for a whole request header
// (from the connection's accept, or from the first byte of a keep-alive connection's next request) and for a
// whole body (408), an idle keep-alive timeout, a body size limit (413), a limit on open connections per
// client address (429) and on all connections (503), each breach counted. stop() stops accepting, closes
// idle connections, answers the requests in flight, then run() returns.
//
//   HttpFrontEnd front(options);
//   front.route("GET", "/health", [](HttpExchange& x) { x.reply({200, "application/json", "{}"}); });
//   front.bind();  std::thread t([&] { front.run(); });  ...  front.stop();  t.join();
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "heptapod/serve/http_message.h"

namespace heptapod {

struct FrontEndOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                     // 0: any free port
  int listen_backlog = 1024;
  int request_threads = 256;           // handlers running at once (a request waiting on its translation holds one)
  std::chrono::milliseconds header_timeout{10000};  // a whole request header, else 408
  std::chrono::milliseconds body_timeout{30000};    // a whole body after its header, else 408; also a reply's write
  std::chrono::milliseconds keep_alive{5000};       // idle time before a keep-alive connection is closed
  int keep_alive_requests = 1000;      // requests per connection
  int max_connections = 8192;          // open connections; beyond, 503 and close
  int max_connections_per_address = 256;  // open connections of one client address; beyond, 429 and close
  std::size_t max_body_bytes = 1 << 20;   // 413 beyond
  std::size_t max_header_bytes = 32 << 10;  // 431 beyond
};

// Cumulative counts and gauges for the metrics; read at any time.
struct FrontEndCounts {
  std::atomic<int> open{0};                 // connections open
  std::atomic<int> in_handlers{0};          // requests being handled
  std::atomic<int> waiting{0};              // requests waiting for a request thread
  std::atomic<std::uint64_t> refused_per_address{0}, refused_total{0};
  std::atomic<std::uint64_t> header_timeouts{0}, body_timeouts{0};
  std::atomic<std::uint64_t> idle_closed{0};  // keep-alive connections closed for idleness (not a breach)
};

class HttpFrontEnd {
 public:
  explicit HttpFrontEnd(const FrontEndOptions& options);
  ~HttpFrontEnd();
  HttpFrontEnd(const HttpFrontEnd&) = delete;
  HttpFrontEnd& operator=(const HttpFrontEnd&) = delete;

  // Routes, before bind(): an exact method and path, or a path ending in "/*" for every path below it (the
  // handler reads request().path). A path with no route is 404; OPTIONS on any path is
  // answered for CORS (204); HEAD runs the GET route and sends its headers alone.
  void route(const std::string& method, const std::string& path, HttpHandler handler);
  // Called for every request answered, on the event loop: `ready` when its reply is complete (before the
  // bytes go out, so that a client's next request sees it counted), `sent` once written (the log line).
  void observe(std::function<void(const HttpRequestRecord&)> ready, std::function<void(const HttpRequestRecord&)> sent);

  // Binds host:port and listens (connections wait in the backlog until run()). Returns the port. Throws
  // Error when the address cannot be bound.
  int bind();
  // Serves until stop(), then until every request in flight is answered.
  void run();
  // Any thread, idempotent, also before run().
  void stop();

  const FrontEndCounts& counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heptapod
