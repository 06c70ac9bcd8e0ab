// One connection of the HTTP front end (internal to http_front_end.cpp): reads each request through its
// phases under their deadlines, hands it to a request thread, writes the reply or the stream, and keeps the
// connection alive or closes it. FrontEndShared is what every connection and the acceptor share.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "heptapod/serve/http_front_end.h"
#include "heptapod/serve/request_threads.h"

namespace heptapod {

class Connection;

struct FrontEndShared {
  FrontEndOptions options;
  // (method, path) -> handler; a path ending in "/*" takes every path below it.
  std::map<std::pair<std::string, std::string>, HttpHandler> routes;
  // The route of a request: its exact path's, else the longest "/*" route above it; nullptr when none.
  const HttpHandler* find_route(const std::string& method, const std::string& path) const;
  std::function<void(const HttpRequestRecord&)> on_ready, on_sent;
  FrontEndCounts counts;
  std::unique_ptr<RequestThreads> threads;
  std::atomic<bool> stopping{false};
  std::function<void()> on_drained;  // stopping and the last connection closed

  // Admits a new connection from `address` against the limits: 0, or the status to refuse it with (429, 503).
  int admit(const std::string& address, const std::shared_ptr<Connection>& connection);
  void closed(const std::string& address, Connection* connection);
  // Every open connection (for stop()).
  std::vector<std::shared_ptr<Connection>> open_connections();

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, int> per_address_;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> open_;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using tcp = boost::asio::ip::tcp;
  using Clock = std::chrono::steady_clock;
  Connection(tcp::socket socket, std::string address, FrontEndShared& shared);
  ~Connection();
  // On the connection's strand: start reading the first request; on stop, close if no request is under way.
  void start();
  void close_if_idle();
  // A connection over a limit (429: its address's, 503: the server's): its reply written without waiting, closed.
  void refuse(int status);

  // For the request's exchange, on the connection's strand.
  void send_reply(HttpResponse response);
  void send_stream_head(int status, const std::string& content_type, const HttpHeaders& headers,
                        std::function<void(bool)> done);
  void send_chunk(std::string_view data, std::function<void(bool)> done);
  void end_stream();
  void set_log_note(std::string note) { record_.note = std::move(note); }
  boost::asio::any_io_executor executor() { return socket_.get_executor(); }

 private:
  enum class Phase { FirstHeader, Idle, Header, Body, Handling, Writing, Closing, Closed };
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  void arm(Clock::time_point deadline);
  void disarm();
  void read_header();
  void on_header(boost::system::error_code ec);
  void on_body(boost::system::error_code ec);
  void await_next_request();
  void dispatch();
  // A reply the front end makes itself ({"error": message}); close: the connection ends after it.
  void fail(int status, const std::string& message, bool close);
  void write(boost::beast::http::response<boost::beast::http::string_body> response);
  void after_reply(boost::system::error_code ec);
  void begin_record(std::string method, std::string path);
  void record_request_line();  // begin_record from the header read
  bool keep_alive() const;
  void linger_close();
  void drain(std::shared_ptr<std::array<char, 4096>> sink);  // reads and drops until an error, then closes
  template <class Message>
  void set_headers(Message& m, const std::string& content_type, const HttpHeaders& headers) const;
  void reply_ready(int status);  // the record's status and time, given to the observer
  void close();

  tcp::socket socket_;
  boost::asio::steady_timer timer_;
  unsigned deadline_generation_ = 0;
  bool deadline_passed_ = false;
  // Bytes read and not yet parsed: a header, a chunk-size line or trailer must fit (a body streams through).
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  std::optional<boost::beast::http::response<boost::beast::http::string_body>> reply_;
  std::optional<boost::beast::http::response<boost::beast::http::empty_body>> stream_head_;
  std::optional<boost::beast::http::response_serializer<boost::beast::http::empty_body>> stream_serializer_;
  std::string address_;
  FrontEndShared& shared_;
  Phase phase_ = Phase::FirstHeader;
  Clock::time_point accepted_, header_read_;
  int served_ = 0;             // requests answered on this connection
  bool request_keep_alive_ = false, close_after_ = false, head_only_ = false;
  unsigned request_version_ = 11;  // 10: HTTP/1.0
  HttpRequestRecord record_;
};

}  // namespace heptapod
