// The HTTP front end's listener: binding, the accept loop with its connection limits, the event loop's
// thread, and stopping (close the listener, close idle connections, wait for the rest, join the request
// threads).
#include "heptapod/serve/http_front_end.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <optional>

#include "heptapod/core/error.h"
#include "heptapod/core/file_limit.h"
#include "heptapod/serve/http_connection.h"

namespace heptapod {

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

}  // namespace

struct HttpFrontEnd::Impl {
  FrontEndShared shared;  // first: destroyed last, after any handler the event loop still holds
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer accept_pause{io};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  int port = -1;
  bool stop_begun = false;  // begin_stop ran (on the event loop): the loop may end once the last connection closed

  void accept();
  void on_accept(error_code ec, tcp::socket socket);
  void begin_stop();
};

HttpFrontEnd::HttpFrontEnd(const FrontEndOptions& options) : impl_(std::make_unique<Impl>()) {
  const FrontEndOptions& o = options;
  require(o.port >= 0 && o.port <= 65535, "--port must be 0-65535");
  require(o.request_threads > 0, "--http-threads must be positive");
  require(o.listen_backlog > 0, "--backlog must be positive");
  require(o.header_timeout.count() > 0, "--header-timeout must be positive");
  require(o.body_timeout.count() > 0, "--body-timeout must be positive");
  require(o.keep_alive.count() >= 0 && o.keep_alive_requests > 0, "keep-alive settings must be positive");
  require(o.max_connections > 0, "--max-connections must be positive");
  require(o.max_connections_per_address > 0, "--max-connections-per-address must be positive");
  require(o.max_body_bytes > 0, "--max-body-bytes must be positive");
  impl_->shared.options = options;
}

HttpFrontEnd::~HttpFrontEnd() {
  stop();
  if (impl_->shared.threads) impl_->shared.threads->shutdown();
}

void HttpFrontEnd::route(const std::string& method, const std::string& path, HttpHandler handler) {
  impl_->shared.routes[{method, path}] = std::move(handler);
}

void HttpFrontEnd::observe(std::function<void(const HttpRequestRecord&)> ready,
                           std::function<void(const HttpRequestRecord&)> sent) {
  impl_->shared.on_ready = std::move(ready);
  impl_->shared.on_sent = std::move(sent);
}

int HttpFrontEnd::bind() {
  Impl& s = *impl_;
  const FrontEndOptions& o = s.shared.options;
  const std::string where = "serve: cannot listen on --host " + o.host +
                            (o.port ? " --port " + std::to_string(o.port) : std::string()) + ": ";
  error_code ec;
  tcp::resolver resolver(s.io);
  const auto found = resolver.resolve(o.host, std::to_string(o.port), tcp::resolver::passive, ec);
  require(!ec && !found.empty(), where + "not an address of this machine");
  const tcp::endpoint endpoint = found.begin()->endpoint();
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(o.listen_backlog, ec);
  require(!ec, where + ec.message());
  s.port = s.acceptor.local_endpoint().port();
  raise_open_file_limit();
  return s.port;
}

void HttpFrontEnd::run() {
  Impl& s = *impl_;
  require(s.port >= 0, "serve: bind() first");
  s.shared.threads = std::make_unique<RequestThreads>(s.shared.options.request_threads, s.shared.counts.waiting,
                                                      s.shared.counts.in_handlers);
  s.work.emplace(s.io.get_executor());
  s.shared.on_drained = [&s] {
    net::post(s.io, [&s] {
      if (s.stop_begun) s.work.reset();
    });
  };
  s.accept();
  s.io.run();
  s.shared.threads->shutdown();
}

void HttpFrontEnd::stop() {
  Impl& s = *impl_;
  if (s.shared.stopping.exchange(true)) return;
  net::post(s.io, [&s] { s.begin_stop(); });
}

const FrontEndCounts& HttpFrontEnd::counts() const { return impl_->shared.counts; }

void HttpFrontEnd::Impl::accept() {
  acceptor.async_accept(net::make_strand(io), [this](error_code ec, tcp::socket socket) { on_accept(ec, std::move(socket)); });
}

void HttpFrontEnd::Impl::on_accept(error_code ec, tcp::socket socket) {
  if (!acceptor.is_open()) return;  // stopping
  if (ec) {
    // Out of file descriptors (or another transient failure): pause accepting, the backlog holds clients.
    accept_pause.expires_after(std::chrono::milliseconds(50));
    accept_pause.async_wait([this](error_code wait_ec) {
      if (!wait_ec && acceptor.is_open()) accept();
    });
    return;
  }
  accept();
  error_code endpoint_ec;
  const tcp::endpoint remote = socket.remote_endpoint(endpoint_ec);
  if (endpoint_ec) return;  // already gone
  socket.set_option(tcp::no_delay(true), endpoint_ec);
  const std::string address = remote.address().to_string();
  auto connection = std::make_shared<Connection>(std::move(socket), address, shared);
  if (const int status = shared.admit(address, connection)) {
    connection->refuse(status);
    return;
  }
  net::post(connection->executor(), [connection] { connection->start(); });
}

void HttpFrontEnd::Impl::begin_stop() {
  stop_begun = true;
  error_code ignored;
  acceptor.close(ignored);
  accept_pause.cancel();
  const std::vector<std::shared_ptr<Connection>> open = shared.open_connections();
  for (const auto& c : open) net::post(c->executor(), [c] { c->close_if_idle(); });
  if (open.empty() && shared.counts.open == 0) work.reset();
}

}  // namespace heptapod
