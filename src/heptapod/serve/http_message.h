// What a route handler of the HTTP front end sees: the request, read whole (header and body, within their
// deadlines and the body limit), and an HttpExchange to answer it through, either with one complete reply or
// as a stream of chunks (server-sent events) written while the handler works. Handlers run on the front end's
// request threads, never on its event loop, so they may block (on a translation queue, on each chunk's write).
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heptapod {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;          // "GET", "POST", ...
  std::string path;            // the request target without its query
  std::string query;           // after '?', undecoded; empty when none
  HttpHeaders headers;         // as received
  std::string body;            // decoded from chunked transfer when it was chunked
  std::string remote_address;  // the client's IP address
  // The value of the first header called `name` (any case), "" when there is none.
  std::string header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  HttpHeaders headers;  // besides Content-Type, Content-Length and the front end's own (CORS, Connection)
};

// One request's answer. Exactly one of reply() or start_stream()..end_stream() per request; a handler that
// returns without either gets a 500. Any thread; each call returns once the front end has taken it.
class HttpExchange {
 public:
  virtual ~HttpExchange() = default;
  virtual const HttpRequest& request() const = 0;
  virtual void reply(HttpResponse response) = 0;
  // A streamed reply (chunked transfer): the status line and headers now, then one chunk per write_chunk, each
  // written to the socket before it returns. false: the client went away or stopped reading (the write missed
  // its deadline); the handler should stop producing. end_stream() ends the reply.
  virtual bool start_stream(int status, const std::string& content_type, const HttpHeaders& headers = {}) = 0;
  virtual bool write_chunk(std::string_view data) = 0;
  virtual void end_stream() = 0;
  // What the request log line says about the work done ("3 sentences"), set by the handler.
  virtual void set_log_note(std::string note) = 0;
};

using HttpHandler = std::function<void(HttpExchange&)>;

// A JSON reply (invalid UTF-8 in strings replaced, never an exception), and the {"error": message} reply every
// failure gets, from the front end and the routes alike.
HttpResponse json_response(int status, const nlohmann::json& body);
HttpResponse error_response(int status, const std::string& message);

// One line of the request log and one sample of the metrics, given to the front end's observer.
struct HttpRequestRecord {
  std::string remote_address, method, path, note;
  int status = 0;
  double seconds = 0;  // header read to reply ready (to the stream's end for a stream)
};

}  // namespace heptapod
