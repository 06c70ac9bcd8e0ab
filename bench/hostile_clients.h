// Hostile connections against an HTTP server, kept open from one background thread (epoll, non-blocking
// sockets): slow-loris clients that never finish their request header, and idle keep-alive clients that ask
// GET /health once and then say nothing. bench/serve_load runs them beside its normal clients (with
// reconnect, to keep the pressure on); the server tests run them to check that the server closes them.
// Each socket is bound to a source address taken round-robin from a list (127.0.0.2 ... 127.0.0.9 by default),
// so that a server's per-address connection limit falls on them and not on normal clients from 127.0.0.1.
// IPv4 only. Constructing one raises the process's RLIMIT_NOFILE soft limit to its hard limit.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace heptapod::bench {

struct HostileOptions {
  std::string host = "127.0.0.1";  // the server: a dotted IPv4 address and a port
  int port = 0;
  int slow_loris = 0;  // connections that send one more header line every `interval`, never ending the header
  int idle = 0;        // connections that read one GET /health reply, then stay open and silent
  std::vector<std::string> source_addresses = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5",
                                               "127.0.0.6", "127.0.0.7", "127.0.0.8", "127.0.0.9"};
  std::chrono::milliseconds interval{1000};  // between a slow-loris connection's header lines
  // A connection the server closes or refuses: true, a new one replaces it after reconnect_pause (benchmark);
  // false, it is counted and left closed (tests).
  bool reconnect = false;
  std::chrono::milliseconds reconnect_pause{1000};
  int opens_per_tick = 200;                          // new connections per 10 ms at most
  std::chrono::milliseconds connect_timeout{10000};  // a connect() still pending then has failed
};

// One kind's record since the start. A connection is under way once the server has taken it: a slow-loris
// one when it has sent its first X-Pad line (one `interval` in: keep the interval below the server's header
// timeout), an idle one when it has read a 200 reply to its GET /health. Each connection the server ends is
// counted once, by what the server answered: the status code of the last reply read ("408", "429", "503", ...;
// an idle connection's 200 /health reply is no answer), "silent close" (EOF or reset with no answer),
// "malformed reply"; in `refused` if it was not under way yet (with "connect failed" for a connect() that
// failed or timed out), else in `closed`.
struct HostileKindStats {
  long long opened = 0;                  // connect() succeeded
  long long open_now = 0, open_max = 0;  // connected and not ended: now, most at once
  std::map<std::string, long long> refused, closed;
  // Seconds from a connection's start (slow-loris: its first byte sent; idle: the end of its 200 /health
  // reply) to the server's close, over the connections in `closed` (0 when none).
  double close_seconds_max = 0, close_seconds_median = 0;
  std::map<int, long long> health_status;  // idle only: the status codes of the GET /health replies

  long long refused_total() const;
  long long closed_total() const;
};

struct HostileStats {
  HostileKindStats slow_loris, idle;
  std::string first_connect_error;  // e.g. "connect: Connection refused"; empty when none failed
};

class HostileClients {
 public:
  // Starts the thread, which opens the connections at once (paced by opens_per_tick). Throws
  // std::invalid_argument on an address that is not a dotted IPv4 one, a negative count, opens_per_tick < 1 or
  // no source address.
  explicit HostileClients(HostileOptions options);
  ~HostileClients();  // stop()
  HostileClients(const HostileClients&) = delete;
  HostileClients& operator=(const HostileClients&) = delete;

  HostileStats stats() const;  // a snapshot; thread-safe, also after stop()
  // Polls stats() every 10 ms until `done` says true (true) or `timeout` passes (false).
  bool wait_for(const std::function<bool(const HostileStats&)>& done, std::chrono::milliseconds timeout) const;
  // Joins the thread (within about 10 ms) and closes every connection (open_now drops to 0; the rest of the
  // statistics stay readable); later calls do nothing.
  void stop();

 private:
  struct Engine;
  std::unique_ptr<Engine> engine_;
};

}  // namespace heptapod::bench
