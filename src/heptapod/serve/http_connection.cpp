// One connection of the HTTP front end: its phases and deadlines, the hand-off to a request thread, replies
// and streams. Everything here runs on the connection's strand except RequestExchange's calls, which come from
// a request thread and post to it.
#include "heptapod/serve/http_connection.h"

#include <sys/socket.h>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <array>
#include <exception>
#include <future>

namespace heptapod {

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using error_code = boost::system::error_code;
using StringResponse = http::response<http::string_body>;

std::string seconds_text(std::chrono::milliseconds d) {
  const long long ms = d.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

std::string text_of(boost::beast::string_view s) { return std::string(s.data(), s.size()); }

// Room in a connection's read buffer beyond the header limit, for a body's framing (a chunk-size line with
// its extensions, a trailer): without a bound a client could grow the buffer for the whole body deadline.
constexpr std::size_t kFramingBytes = 16 << 10;

// The answer to one request, handed to its handler on a request thread. Holds the connection alive until the
// reply is taken. Each call posts to the connection's strand; stream writes wait for their bytes to be written.
class RequestExchange : public HttpExchange {
 public:
  RequestExchange(std::shared_ptr<Connection> connection, HttpRequest request)
      : connection_(std::move(connection)), request_(std::move(request)) {}
  const HttpRequest& request() const override { return request_; }
  void reply(HttpResponse response) override {
    require_state(State::Open, "reply");
    state_ = State::Replied;
    net::post(connection_->executor(),
              [c = connection_, r = std::move(response)]() mutable { c->send_reply(std::move(r)); });
  }
  bool start_stream(int status, const std::string& content_type, const HttpHeaders& headers) override {
    require_state(State::Open, "start_stream");
    state_ = State::Streaming;
    return wait([&](std::function<void(bool)> done) {
      net::post(connection_->executor(), [c = connection_, status, content_type, headers, done]() {
        c->send_stream_head(status, content_type, headers, done);
      });
    });
  }
  bool write_chunk(std::string_view data) override {
    require_state(State::Streaming, "write_chunk");
    if (broken_) return false;
    return wait([&](std::function<void(bool)> done) {
      net::post(connection_->executor(), [c = connection_, data, done]() { c->send_chunk(data, done); });
    });
  }
  void end_stream() override {
    require_state(State::Streaming, "end_stream");
    state_ = State::Replied;
    net::post(connection_->executor(), [c = connection_] { c->end_stream(); });
  }
  void set_log_note(std::string note) override {
    net::post(connection_->executor(), [c = connection_, n = std::move(note)]() mutable { c->set_log_note(std::move(n)); });
  }
  // After the handler returned: a handler that gave no reply gets a 500, an unended stream its end.
  void finish(const std::string& failure) {
    if (state_ == State::Open)
      reply(error_response(500, failure.empty() ? "Internal error: the handler gave no reply" : failure));
    else if (state_ == State::Streaming) end_stream();
  }
  bool open() const { return state_ == State::Open; }

 private:
  enum class State { Open, Streaming, Replied };
  void require_state(State want, const char* call) const {
    if (state_ != want) throw std::logic_error(std::string("HttpExchange::") + call + " out of order");
  }
  // Runs `start(done)` and waits for done(ok); a strand that is gone (the server stopped) counts as a failure.
  bool wait(const std::function<void(std::function<void(bool)>)>& start) {
    auto promise = std::make_shared<std::promise<bool>>();
    std::future<bool> result = promise->get_future();
    start([promise](bool ok) { promise->set_value(ok); });
    bool ok = false;
    try {
      ok = result.get();
    } catch (const std::future_error&) {
    }
    broken_ = !ok;
    return ok;
  }
  std::shared_ptr<Connection> connection_;
  HttpRequest request_;
  State state_ = State::Open;
  bool broken_ = false;
};

}  // namespace

// ---- FrontEndShared

int FrontEndShared::admit(const std::string& address, const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(mutex_);
  if (static_cast<int>(open_.size()) >= options.max_connections) {
    ++counts.refused_total;
    return 503;
  }
  int& from_address = per_address_[address];
  if (from_address >= options.max_connections_per_address) {
    ++counts.refused_per_address;
    return 429;
  }
  ++from_address;
  open_.emplace(connection.get(), connection);
  counts.open.store(static_cast<int>(open_.size()));
  return 0;
}

void FrontEndShared::closed(const std::string& address, Connection* connection) {
  bool drained = false;
  {
    std::lock_guard lock(mutex_);
    if (!open_.erase(connection)) return;
    auto it = per_address_.find(address);
    if (--it->second == 0) per_address_.erase(it);
    counts.open.store(static_cast<int>(open_.size()));
    drained = stopping && open_.empty();
  }
  if (drained && on_drained) on_drained();
}

const HttpHandler* FrontEndShared::find_route(const std::string& method, const std::string& path) const {
  if (const auto exact = routes.find({method, path}); exact != routes.end()) return &exact->second;
  const HttpHandler* found = nullptr;
  std::size_t longest = 0;
  for (const auto& [key, handler] : routes) {
    const std::string& pattern = key.second;
    if (key.first != method || pattern.size() < 2 || pattern.compare(pattern.size() - 2, 2, "/*") != 0) continue;
    const std::size_t prefix = pattern.size() - 1;  // through the slash
    if (path.size() > prefix && path.compare(0, prefix, pattern, 0, prefix) == 0 && prefix > longest) {
      found = &handler;
      longest = prefix;
    }
  }
  return found;
}

std::vector<std::shared_ptr<Connection>> FrontEndShared::open_connections() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Connection>> out;
  for (auto& [raw, weak] : open_)
    if (auto c = weak.lock()) out.push_back(std::move(c));
  return out;
}

// ---- Connection

Connection::Connection(tcp::socket socket, std::string address, FrontEndShared& shared)
    : socket_(std::move(socket)), timer_(socket_.get_executor()),
      buffer_(shared.options.max_header_bytes + kFramingBytes), address_(std::move(address)), shared_(shared),
      accepted_(Clock::now()) {}

Connection::~Connection() { shared_.closed(address_, this); }

void Connection::refuse(int status) {
  const std::string body = error_response(status, status == 429 ? "Too many connections from your address"
                                                                : "The server has too many connections; retry shortly")
                               .body;
  const std::string reply = "HTTP/1.1 " + std::string(status == 429 ? "429 Too Many Requests" : "503 Service Unavailable") +
                            "\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
                            "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  [[maybe_unused]] const ssize_t sent =
      ::send(socket_.native_handle(), reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  close();
}

void Connection::arm(Clock::time_point deadline) {
  const unsigned generation = ++deadline_generation_;
  deadline_passed_ = false;
  timer_.expires_at(deadline);
  timer_.async_wait([self = shared_from_this(), generation](error_code ec) {
    if (ec || generation != self->deadline_generation_) return;
    self->deadline_passed_ = true;
    error_code ignored;
    self->socket_.cancel(ignored);
  });
}

void Connection::disarm() {
  ++deadline_generation_;
  timer_.cancel();
}

void Connection::start() {
  phase_ = Phase::FirstHeader;
  arm(accepted_ + shared_.options.header_timeout);
  read_header();
}

void Connection::close_if_idle() {
  if (phase_ == Phase::Idle) return close();
  error_code ec;
  // A first request not yet begun: closed, unless its bytes are already here (then it is answered).
  if (phase_ == Phase::FirstHeader && !(parser_ && parser_->got_some()) && buffer_.size() == 0 &&
      socket_.available(ec) == 0)
    close();
}

void Connection::read_header() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(shared_.options.max_header_bytes));
  parser_->body_limit(shared_.options.max_body_bytes);
  http::async_read_header(socket_, buffer_, *parser_,
                          [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
}

void Connection::await_next_request() {
  parser_.reset();
  if (shared_.stopping) return close();
  if (buffer_.size() > 0) {  // the client sent its next request already
    phase_ = Phase::Header;
    arm(Clock::now() + shared_.options.header_timeout);
    return read_header();
  }
  phase_ = Phase::Idle;
  buffer_.shrink_to_fit();  // an idle connection keeps no buffer from its last request
  arm(Clock::now() + shared_.options.keep_alive);
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) {
    if (self->phase_ == Phase::Closed) return;  // closed by stop() while this completion was queued
    if (ec) {
      if (self->deadline_passed_) ++self->shared_.counts.idle_closed;
      return self->close();
    }
    self->phase_ = Phase::Header;
    self->arm(Clock::now() + self->shared_.options.header_timeout);
    self->read_header();
  });
}

void Connection::on_header(error_code ec) {
  if (phase_ == Phase::Closed) return;
  if (ec) {
    if (deadline_passed_) {
      ++shared_.counts.header_timeouts;
      if (phase_ == Phase::FirstHeader && !parser_->got_some() && buffer_.size() == 0) return close();  // sent nothing
      return fail(408, "The request header did not arrive within " + seconds_text(shared_.options.header_timeout), true);
    }
    if (ec == http::error::body_limit) {  // a Content-Length over the limit, found with the header
      record_request_line();
      return fail(413, "Request body larger than " + std::to_string(shared_.options.max_body_bytes) + " bytes", true);
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow)
      return fail(431, "Request header larger than " + std::to_string(shared_.options.max_header_bytes) + " bytes", true);
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::connection_reset ||
        ec == net::error::operation_aborted || ec == net::error::eof)
      return close();  // the client left
    return fail(400, "Bad request: " + ec.message(), true);
  }
  header_read_ = Clock::now();
  phase_ = Phase::Body;
  const auto& req = parser_->get();
  record_request_line();
  request_keep_alive_ = req.keep_alive();
  request_version_ = req.version();
  arm(header_read_ + shared_.options.body_timeout);
  auto start_body_read = [self = shared_from_this()] {
    if (self->parser_->is_done()) return self->on_body({});
    http::async_read(self->socket_, self->buffer_, *self->parser_,
                     [self](error_code ec, std::size_t) { self->on_body(ec); });
  };
  if (boost::beast::iequals(req[http::field::expect], "100-continue") && !parser_->is_done()) {
    static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    net::async_write(socket_, net::buffer(kContinue), [self = shared_from_this(), start_body_read](error_code ec, std::size_t) {
      if (ec) return self->close();
      start_body_read();
    });
    return;
  }
  start_body_read();
}

void Connection::on_body(error_code ec) {
  if (phase_ == Phase::Closed) return;
  if (ec) {
    if (deadline_passed_) {
      ++shared_.counts.body_timeouts;
      return fail(408, "The request body did not arrive within " + seconds_text(shared_.options.body_timeout), true);
    }
    if (ec == http::error::body_limit)
      return fail(413, "Request body larger than " + std::to_string(shared_.options.max_body_bytes) + " bytes", true);
    if (ec == http::error::buffer_overflow)
      return fail(400, "Bad request: a chunk-size line or trailer longer than " + std::to_string(kFramingBytes / 1024) + " KiB", true);
    if (ec == http::error::end_of_stream || ec == net::error::connection_reset || ec == net::error::eof ||
        ec == http::error::partial_message)
      return close();
    return fail(400, "Bad request: " + ec.message(), true);
  }
  dispatch();
}

void Connection::dispatch() {
  disarm();
  phase_ = Phase::Handling;
  auto& req = parser_->get();
  HttpRequest request;
  request.method = record_.method;
  request.path = record_.path;
  const std::string target = text_of(req.target());
  if (const std::size_t q = target.find('?'); q != std::string::npos) request.query = target.substr(q + 1);
  for (const auto& field : req) request.headers.emplace_back(text_of(field.name_string()), text_of(field.value()));
  request.body = std::move(req.body());
  request.remote_address = address_;
  head_only_ = request.method == "HEAD";
  if (request.method == "OPTIONS") {
    send_reply({204, "", "", {{"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
                              {"Access-Control-Allow-Headers", "Content-Type, Authorization, X-API-Key"}}});
    return;
  }
  const HttpHandler* handler = shared_.find_route(head_only_ ? "GET" : request.method, request.path);
  if (!handler) return fail(404, "Not found: " + request.path, false);
  auto exchange = std::make_shared<RequestExchange>(shared_from_this(), std::move(request));
  shared_.threads->submit([exchange, handler = *handler] {
    std::string failure;
    try {
      handler(*exchange);
    } catch (const std::exception& e) {
      failure = std::string("Internal error: ") + e.what();
    } catch (...) {
      failure = "Internal error: unknown error";
    }
    try {
      exchange->finish(exchange->open() ? failure : "");
    } catch (const std::logic_error&) {
    }
  });
}

void Connection::record_request_line() {
  const auto& req = parser_->get();
  const std::string target = text_of(req.target());
  begin_record(text_of(req.method_string()), target.substr(0, target.find('?')));
}

void Connection::begin_record(std::string method, std::string path) {
  record_ = HttpRequestRecord{};
  record_.remote_address = address_;
  record_.method = std::move(method);
  record_.path = std::move(path);
}

bool Connection::keep_alive() const {
  return request_keep_alive_ && !close_after_ && !shared_.stopping && shared_.options.keep_alive.count() > 0 &&
         served_ + 1 < shared_.options.keep_alive_requests;
}

void Connection::fail(int status, const std::string& message, bool close) {
  if (record_.method.empty()) begin_record("-", "-");  // no request line read
  close_after_ = close;
  send_reply(error_response(status, message));
}

// The headers every reply carries: its content type, CORS, the caller's, and whether the connection stays.
template <class Message>
void Connection::set_headers(Message& m, const std::string& content_type, const HttpHeaders& headers) const {
  if (!content_type.empty()) m.set(http::field::content_type, content_type);
  m.set(http::field::access_control_allow_origin, "*");
  for (const auto& [name, value] : headers) m.set(name, value);
  const bool keep = keep_alive();
  m.keep_alive(keep);
  if (keep && request_version_ == 10) m.set(http::field::connection, "keep-alive");
  // How long the connection stays open idle, so that a client reusing it (Node's fetch, the OpenAI clients)
  // does not send on one the server is closing.
  if (keep)
    m.set(http::field::keep_alive,
          "timeout=" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(shared_.options.keep_alive).count()));
}

void Connection::reply_ready(int status) {
  record_.status = status;
  record_.seconds = header_read_ == Clock::time_point{} ? 0 : std::chrono::duration<double>(Clock::now() - header_read_).count();
  if (shared_.on_ready) shared_.on_ready(record_);
}

void Connection::send_reply(HttpResponse response) {
  if (phase_ == Phase::Closed) return;
  StringResponse res{static_cast<http::status>(response.status), 11};
  set_headers(res, response.content_type, response.headers);
  const std::size_t length = response.body.size();
  if (!head_only_) res.body() = std::move(response.body);
  if (response.status != 204) res.content_length(length);
  reply_ready(response.status);
  write(std::move(res));
}

void Connection::write(StringResponse response) {
  phase_ = Phase::Writing;
  reply_.emplace(std::move(response));
  arm(Clock::now() + shared_.options.body_timeout);
  http::async_write(socket_, *reply_, [self = shared_from_this()](error_code ec, std::size_t) { self->after_reply(ec); });
}

void Connection::send_stream_head(int status, const std::string& content_type, const HttpHeaders& headers,
                                  std::function<void(bool)> done) {
  phase_ = Phase::Writing;
  stream_head_.emplace(static_cast<http::status>(status), 11);
  stream_head_->set(http::field::cache_control, "no-cache");
  set_headers(*stream_head_, content_type, headers);
  stream_head_->chunked(true);
  stream_serializer_.emplace(*stream_head_);
  record_.status = status;
  arm(Clock::now() + shared_.options.body_timeout);
  http::async_write_header(socket_, *stream_serializer_, [self = shared_from_this(), done](error_code ec, std::size_t) {
    self->disarm();
    if (ec) self->close();  // a part written: the reply's framing is lost
    done(!ec);
  });
}

void Connection::send_chunk(std::string_view data, std::function<void(bool)> done) {
  if (phase_ == Phase::Closed || data.empty() || head_only_) return done(phase_ != Phase::Closed);
  arm(Clock::now() + shared_.options.body_timeout);
  net::async_write(socket_, http::make_chunk(net::const_buffer(data.data(), data.size())),
                   [self = shared_from_this(), done](error_code ec, std::size_t) {
                     self->disarm();
                     if (ec) self->close();
                     done(!ec);
                   });
}

void Connection::end_stream() {
  if (phase_ == Phase::Closed) return;
  reply_ready(record_.status);
  if (head_only_) return after_reply({});
  arm(Clock::now() + shared_.options.body_timeout);
  net::async_write(socket_, http::make_chunk_last(),
                   [self = shared_from_this()](error_code ec, std::size_t) { self->after_reply(ec); });
}

void Connection::after_reply(error_code ec) {
  disarm();
  if (shared_.on_sent) shared_.on_sent(record_);
  ++served_;
  const bool keep = !ec && keep_alive();
  reply_.reset();
  stream_serializer_.reset();
  stream_head_.reset();
  record_ = HttpRequestRecord{};
  header_read_ = {};
  head_only_ = false;
  if (ec) return close();
  if (!keep) return linger_close();
  await_next_request();
}

// Ends a connection whose client may still be sending (a refused body): stop sending, read and drop what
// arrives for up to a second, then close, so that the client reads the reply instead of a reset.
void Connection::linger_close() {
  phase_ = Phase::Closing;
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  arm(Clock::now() + std::chrono::seconds(1));
  drain(std::make_shared<std::array<char, 4096>>());
}

void Connection::drain(std::shared_ptr<std::array<char, 4096>> sink) {
  socket_.async_read_some(net::buffer(*sink), [self = shared_from_this(), sink](error_code ec, std::size_t) {
    if (ec) return self->close();  // the client's end, an error, or the linger deadline
    self->drain(sink);
  });
}

void Connection::close() {
  if (phase_ == Phase::Closed) return;
  phase_ = Phase::Closed;
  disarm();
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace heptapod
