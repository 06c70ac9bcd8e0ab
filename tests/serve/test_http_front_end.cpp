// The HTTP front end on its own, at the byte level, with short deadlines: a trickled header and a trickled body
// get 408 at their deadlines however steadily the client trickles, a connection that sends nothing is closed,
// an idle keep-alive connection is closed, the per-address and total connection limits refuse with 429 and 503,
// every breach is counted; bodies over the limit (by Content-Length or chunked) get 413; pipelined requests,
// chunked bodies and Expect: 100-continue work; a streamed reply arrives chunk by chunk while its handler
// works, and a handler learns that its streaming client went away; a handler that throws or gives no reply
// is a 500; stop() answers the request in flight and closes idle connections.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

#include "heptapod/serve/http_front_end.h"
#include "raw_http.h"
#include "test_process.h"

namespace heptapod {
namespace {

using namespace std::chrono_literals;
using test::RawConnection;

FrontEndOptions short_deadlines() {
  FrontEndOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.request_threads = 4;
  o.header_timeout = 500ms;
  o.body_timeout = 500ms;
  o.keep_alive = 500ms;
  o.max_body_bytes = 1000;
  return o;
}

// A front end with an echo route (POST /echo: the body's length), run in a thread.
class RunningFrontEnd {
 public:
  explicit RunningFrontEnd(const FrontEndOptions& options, const std::function<void(HttpFrontEnd&)>& add_routes = {})
      : front_(options) {
    front_.route("POST", "/echo", [](HttpExchange& x) {
      x.reply({200, "text/plain", std::to_string(x.request().body.size()) + ":" + x.request().body, {}});
    });
    if (add_routes) add_routes(front_);
    port_ = front_.bind();
    thread_ = std::thread([this] { front_.run(); });
  }
  ~RunningFrontEnd() { stop(); }
  void stop() {
    front_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  const FrontEndCounts& counts() const { return front_.counts(); }
  HttpFrontEnd& front() { return front_; }

 private:
  HttpFrontEnd front_;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpFrontEnd, TrickledHeaderGets408AtItsDeadline) {
  RunningFrontEnd server(short_deadlines());
  RawConnection loris(server.port(), "127.0.0.2");
  ASSERT_GE(loris.fd(), 0);
  ASSERT_TRUE(loris.send("POST /echo HTTP/1.1\r\nHost: x\r\n"));
  std::string reply;
  for (int i = 0; i < 30 && !loris.closed(); ++i) {  // one header line every 100 ms, at most 3 s
    loris.send("X-Pad: 1\r\n");
    reply += loris.read(0.1);
  }
  ASSERT_TRUE(loris.closed()) << "a client trickling its header kept the connection for 3 s";
  EXPECT_HAS_SUBSTR(reply, "HTTP/1.1 408 Request Timeout");
  EXPECT_HAS_SUBSTR(reply, "The request header did not arrive within 500 ms");
  EXPECT_GE(loris.seconds_to_close(), 0.45);
  EXPECT_LT(loris.seconds_to_close(), 1.5);

  RawConnection silent(server.port(), "127.0.0.2");
  EXPECT_EQ(silent.read(3), "") << "a connection that sent nothing gets no reply";
  ASSERT_TRUE(silent.closed());
  EXPECT_GE(silent.seconds_to_close(), 0.45);
  EXPECT_LT(silent.seconds_to_close(), 1.5);
  EXPECT_EQ(server.counts().header_timeouts.load(), 2u);
}

TEST(HttpFrontEnd, TrickledBodyGets408AtItsDeadline) {
  RunningFrontEnd server(short_deadlines());
  RawConnection client(server.port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"));
  client.restart_clock();
  std::string reply;
  for (int i = 0; i < 30 && !client.closed(); ++i) {
    client.send("x");
    reply += client.read(0.1);
  }
  ASSERT_TRUE(client.closed());
  EXPECT_HAS_SUBSTR(reply, "HTTP/1.1 408");
  EXPECT_HAS_SUBSTR(reply, "The request body did not arrive within 500 ms");
  EXPECT_LT(client.seconds_to_close(), 1.5);
  EXPECT_EQ(server.counts().body_timeouts.load(), 1u);
}

TEST(HttpFrontEnd, IdleKeepAliveConnectionIsClosed) {
  RunningFrontEnd server(short_deadlines());
  RawConnection client(server.port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"));
  client.restart_clock();  // before the reply: the server's idle time starts when it has written it
  EXPECT_HAS_SUBSTR(client.read_reply(3), "2:hi");
  ASSERT_FALSE(client.closed()) << "keep-alive";
  EXPECT_EQ(client.read(3), "");
  ASSERT_TRUE(client.closed());
  EXPECT_GE(client.seconds_to_close(), 0.45);
  EXPECT_LT(client.seconds_to_close(), 1.5);
  EXPECT_EQ(server.counts().idle_closed.load(), 1u);
  EXPECT_EQ(server.counts().header_timeouts.load(), 0u);
}

TEST(HttpFrontEnd, ConnectionLimitsPerAddressAndInAll) {
  FrontEndOptions o = short_deadlines();
  o.header_timeout = 10s;  // the held connections stay open for the test's length
  o.max_connections_per_address = 3;
  o.max_connections = 6;
  RunningFrontEnd server(o);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<RawConnection>(server.port(), "127.0.0.2"));
  RawConnection fourth(server.port(), "127.0.0.2");
  const std::string refused = fourth.read(3);
  EXPECT_HAS_SUBSTR(refused, "HTTP/1.1 429 Too Many Requests");
  EXPECT_HAS_SUBSTR(refused, "Too many connections from your address");
  EXPECT_TRUE(fourth.closed());
  // Other addresses still connect, up to the total.
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<RawConnection>(server.port(), "127.0.0." + std::to_string(3 + i)));
  RawConnection seventh(server.port(), "127.0.0.9");
  EXPECT_HAS_SUBSTR(seventh.read(3), "HTTP/1.1 503 Service Unavailable");
  EXPECT_EQ(server.counts().refused_per_address.load(), 1u);
  EXPECT_EQ(server.counts().refused_total.load(), 1u);
  EXPECT_EQ(server.counts().open.load(), 6);
  // Held connections still work, and closing them makes room.
  ASSERT_TRUE(held[0]->send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na"));
  EXPECT_HAS_SUBSTR(held[0]->read_reply(3), "1:a");
  held.clear();
  for (int i = 0; i < 100 && server.counts().open.load() > 0; ++i) std::this_thread::sleep_for(10ms);
  httplib::Client client("127.0.0.1", server.port());
  auto res = client.Post("/echo", "abc", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body, "3:abc");
}

TEST(HttpFrontEnd, BodiesOverTheLimitAre413) {
  RunningFrontEnd server(short_deadlines());
  RawConnection declared(server.port());
  declared.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'a'));
  const std::string reply = declared.read_reply(3);
  EXPECT_HAS_SUBSTR(reply, "HTTP/1.1 413");
  EXPECT_HAS_SUBSTR(reply, "Request body larger than 1000 bytes");
  RawConnection chunked(server.port());
  std::string body = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i) body += "1f4\r\n" + std::string(500, 'b') + "\r\n";
  chunked.send(body + "0\r\n\r\n");
  EXPECT_HAS_SUBSTR(chunked.read_reply(3), "HTTP/1.1 413");
  httplib::Client client("127.0.0.1", server.port());
  auto res = client.Post("/echo", std::string(1000, 'c'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << "a body of exactly the limit is accepted";
}

TEST(HttpFrontEnd, PipelinedChunkedAndExpectContinue) {
  FrontEndOptions o = short_deadlines();
  o.header_timeout = o.body_timeout = 5s;  // the test's own pauses are not what it tests
  RunningFrontEnd server(o);
  RawConnection client(server.port());
  client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
              "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n5\r\nthree\r\n0\r\n\r\n");
  EXPECT_HAS_SUBSTR(client.read_reply(3), "3:one");
  EXPECT_HAS_SUBSTR(client.read_reply(3), "8:twothree");
  client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_HAS_SUBSTR(client.read_reply(3), "HTTP/1.1 100 Continue");
  client.send("four");
  EXPECT_HAS_SUBSTR(client.read_reply(3), "4:four");
  client.send("GARBAGE\r\n\r\n");
  EXPECT_HAS_SUBSTR(client.read_reply(3), "HTTP/1.1 400");
}

// A chunk-size line (or a trailer) that never ends cannot grow the connection's buffer without bound: 400.
TEST(HttpFrontEnd, EndlessChunkFramingIs400) {
  FrontEndOptions o = short_deadlines();
  o.body_timeout = 5s;
  RunningFrontEnd server(o);
  for (const std::string start : {"1;", "0\r\nX-Trailer: "}) {
    RawConnection client(server.port());
    client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + start);
    for (int i = 0; i < 64 && client.send(std::string(1024, 'a')); ++i) {
    }
    EXPECT_HAS_SUBSTR(client.read_reply(3), "HTTP/1.1 400") << start;
  }
}

TEST(HttpFrontEnd, RoutesCorsHeadAndHandlerFailures) {
  RunningFrontEnd server(short_deadlines(), [](HttpFrontEnd& f) {
    f.route("GET", "/page", [](HttpExchange& x) { x.reply({200, "text/html", "<p>page</p>", {{"X-Extra", "1"}}}); });
    f.route("GET", "/throws", [](HttpExchange&) { throw std::runtime_error("boom"); });
    f.route("GET", "/silent", [](HttpExchange&) {});
  });
  httplib::Client client("127.0.0.1", server.port());
  auto page = client.Get("/page");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->body, "<p>page</p>");
  EXPECT_EQ(page->get_header_value("X-Extra"), "1");
  EXPECT_EQ(page->get_header_value("Access-Control-Allow-Origin"), "*");
  auto head = client.Head("/page");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
  auto missing = client.Get("/none");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, R"({"error":"Not found: /none"})");
  auto wrong_method = client.Get("/echo");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 404);
  auto options = client.Options("/echo");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_HAS_SUBSTR(options->get_header_value("Access-Control-Allow-Headers"), "Authorization");
  auto thrown = client.Get("/throws");
  ASSERT_TRUE(thrown);
  EXPECT_EQ(thrown->status, 500);
  EXPECT_EQ(thrown->body, R"({"error":"Internal error: boom"})");
  auto silent = client.Get("/silent");
  ASSERT_TRUE(silent);
  EXPECT_EQ(silent->status, 500);
  EXPECT_HAS_SUBSTR(silent->body, "no reply");
}

// Server-sent events: each chunk reaches the client when it is written, not when the handler ends.
TEST(HttpFrontEnd, StreamedReplyArrivesChunkByChunk) {
  RunningFrontEnd server(short_deadlines(), [](HttpFrontEnd& f) {
    f.route("GET", "/events", [](HttpExchange& x) {
      ASSERT_TRUE(x.start_stream(200, "text/event-stream"));
      for (int i = 0; i < 4; ++i) {
        std::this_thread::sleep_for(150ms);
        ASSERT_TRUE(x.write_chunk("data: " + std::to_string(i) + "\n\n"));
      }
      x.end_stream();
    });
  });
  httplib::Client client("127.0.0.1", server.port());
  std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> chunks;
  auto res = client.Get("/events", [&](const char* data, std::size_t n) {
    chunks.emplace_back(std::string(data, n), std::chrono::steady_clock::now());
    return true;
  });
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  EXPECT_EQ(res->get_header_value("Transfer-Encoding"), "chunked");
  std::string all;
  for (const auto& c : chunks) all += c.first;
  EXPECT_EQ(all, "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n");
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_GT(chunks.back().second - chunks.front().second, 200ms) << "the chunks arrived together at the end";
  // The connection stays usable after a stream.
  auto again = client.Post("/echo", "x", "text/plain");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, "1:x");
}

TEST(HttpFrontEnd, StreamingHandlerLearnsTheClientLeft) {
  std::atomic<int> written{0};
  std::atomic<bool> stopped{false};
  RunningFrontEnd server(short_deadlines(), [&](HttpFrontEnd& f) {
    f.route("GET", "/forever", [&](HttpExchange& x) {
      if (!x.start_stream(200, "text/event-stream")) return;
      for (int i = 0; i < 500; ++i) {  // at most 10 s
        if (!x.write_chunk("data: " + std::string(1000, 'x') + "\n\n")) {
          stopped = true;
          break;
        }
        ++written;
        std::this_thread::sleep_for(20ms);
      }
      x.end_stream();
    });
  });
  {
    RawConnection client(server.port());
    client.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_HAS_SUBSTR(client.read(3, [](const std::string& t) { return t.find("data: ") != std::string::npos; }), "200 OK");
  }  // the client closes
  for (int i = 0; i < 300 && !stopped; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(stopped.load()) << "the handler kept writing to a closed connection";
  EXPECT_LT(written.load(), 200);
}

// stop(): the request in flight is answered, an idle keep-alive connection is closed, run() returns.
TEST(HttpFrontEnd, StopAnswersTheRequestInFlight) {
  std::atomic<bool> started{false};
  FrontEndOptions o = short_deadlines();
  o.keep_alive = 10s;  // closed by stop(), not by its idleness
  RunningFrontEnd server(o, [&](HttpFrontEnd& f) {
    f.route("GET", "/slow", [&](HttpExchange& x) {
      started = true;
      std::this_thread::sleep_for(300ms);
      x.reply({200, "text/plain", "done", {}});
    });
  });
  RawConnection idle(server.port());
  idle.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na");
  EXPECT_HAS_SUBSTR(idle.read_reply(3), "1:a");
  RawConnection busy(server.port());
  busy.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  for (int i = 0; i < 300 && !started; ++i) std::this_thread::sleep_for(10ms);
  std::thread stopper([&] { server.stop(); });
  const std::string reply = busy.read_reply(3);
  EXPECT_HAS_SUBSTR(reply, "200 OK");
  EXPECT_HAS_SUBSTR(reply, "Connection: close");
  EXPECT_HAS_SUBSTR(reply, "done");
  stopper.join();
  EXPECT_EQ(idle.read(1), "");
  EXPECT_TRUE(idle.closed());
}

}  // namespace
}  // namespace heptapod
