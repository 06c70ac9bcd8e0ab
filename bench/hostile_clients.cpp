// HostileClients: one thread, one epoll set of non-blocking sockets (edge-triggered, each registered once for
// input and output), and a 10 ms tick that opens the connections due (paced), sends the slow-loris header
// lines due, and gives up on connects pending past their timeout.
#include "hostile_clients.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "heptapod/core/file_limit.h"

namespace heptapod::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTick = std::chrono::milliseconds(10);
constexpr int kMaxEvents = 1024;

constexpr std::string_view kSlowLorisStart =
    "POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
constexpr std::string_view kHealthRequest = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

enum class Kind { slow_loris, idle };
enum class Phase { waiting, connecting, open, done };  // waiting: no socket yet; done: closed for good

struct Connection {
  Kind kind = Kind::slow_loris;
  int fd = -1;
  Phase phase = Phase::waiting;
  Clock::time_point due;      // waiting: when to open; connecting: the connect deadline; open: the next pad line
  Clock::time_point started;  // connect; an idle connection's 200 /health reply resets it
  bool under_way = false;     // slow-loris: a pad line sent; idle: a 200 /health reply read
  int pads = 0;
  int answer = 0;             // status of the last whole reply that counts as an answer (0: none)
  std::string out, in;        // bytes not yet sent; bytes read and not yet taken as a whole reply
};

// The status code of the reply at the start of `text`: 0 while too little has come to tell, -1 when it does
// not start "HTTP/1.x NNN".
int status_code(std::string_view text) {
  constexpr std::string_view prefix = "HTTP/1.";
  if (text.size() < 12) return prefix.starts_with(text.substr(0, prefix.size())) ? 0 : -1;
  if (!text.starts_with(prefix) || text[8] != ' ') return -1;
  int code = 0;
  for (char c : text.substr(9, 3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    code = code * 10 + (c - '0');
  }
  return code;
}

// The bytes of the whole reply at the start of `text` (header, then a Content-Length body; a reply without
// Content-Length ends with its header), 0 while it is incomplete.
std::size_t reply_length(std::string_view text) {
  const std::size_t header_end = text.find("\r\n\r\n");
  if (header_end == std::string_view::npos) return 0;
  std::string header(text.substr(0, header_end + 2));
  std::transform(header.begin(), header.end(), header.begin(), [](unsigned char c) { return std::tolower(c); });
  std::size_t body = 0;
  if (const std::size_t at = header.find("\r\ncontent-length:"); at != std::string::npos)
    body = std::strtoull(header.c_str() + at + 17, nullptr, 10);
  const std::size_t total = header_end + 4 + body;
  return text.size() < total ? 0 : total;
}

// The kind's record as the thread keeps it: the close times in full, for the median.
struct KindRecord {
  HostileKindStats stats;
  std::vector<double> close_seconds;

  HostileKindStats snapshot() const {
    HostileKindStats s = stats;
    if (!close_seconds.empty()) {
      std::vector<double> sorted = close_seconds;
      std::sort(sorted.begin(), sorted.end());
      s.close_seconds_max = sorted.back();
      s.close_seconds_median = sorted[(sorted.size() - 1) / 2];
    }
    return s;
  }
};

sockaddr_in ipv4(const std::string& address, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1)
    throw std::invalid_argument("HostileClients: not a dotted IPv4 address: " + address);
  return a;
}

long long sum(const std::map<std::string, long long>& counts) {
  long long n = 0;
  for (const auto& [answer, count] : counts) n += count;
  return n;
}

}  // namespace

long long HostileKindStats::refused_total() const { return sum(refused); }
long long HostileKindStats::closed_total() const { return sum(closed); }

struct HostileClients::Engine {
  HostileOptions options;
  sockaddr_in server{};
  std::vector<sockaddr_in> sources;
  std::size_t next_source = 0;
  std::vector<Connection> connections;  // slow-loris ones first
  int epoll_fd = -1;

  mutable std::mutex mutex;  // guards the records and first_connect_error
  KindRecord slow_loris, idle;
  std::string first_connect_error;

  std::atomic<bool> stopping{false};
  std::thread thread;

  explicit Engine(HostileOptions o) : options(std::move(o)) {
    if (options.slow_loris < 0 || options.idle < 0 || options.opens_per_tick < 1 || options.source_addresses.empty())
      throw std::invalid_argument("HostileClients: negative counts, opens_per_tick < 1 or no source address");
    server = ipv4(options.host, options.port);
    for (const std::string& s : options.source_addresses) sources.push_back(ipv4(s, 0));
    connections.resize(static_cast<std::size_t>(options.slow_loris + options.idle));
    for (std::size_t i = static_cast<std::size_t>(options.slow_loris); i < connections.size(); ++i)
      connections[i].kind = Kind::idle;
    raise_open_file_limit();
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) throw std::runtime_error(std::string("HostileClients: epoll_create1: ") + std::strerror(errno));
    thread = std::thread([this] { run(); });
  }

  ~Engine() {
    shutdown();
    close(epoll_fd);
  }

  // Joins the thread (its epoll_wait ends within a tick), then closes the connections left.
  void shutdown() {
    stopping = true;
    if (thread.joinable()) thread.join();
    std::lock_guard lock(mutex);
    for (Connection& c : connections) {
      if (c.fd >= 0) close(c.fd);
      if (c.phase == Phase::open) --record(c).stats.open_now;
      c.fd = -1;
      c.phase = Phase::done;
    }
  }

  KindRecord& record(const Connection& c) { return c.kind == Kind::slow_loris ? slow_loris : idle; }

  void run() {
    epoll_event events[kMaxEvents];
    Clock::time_point next_tick = Clock::now();
    while (!stopping) {
      const int n = epoll_wait(epoll_fd, events, kMaxEvents, static_cast<int>(kTick.count()));
      for (int i = 0; i < n; ++i) on_event(connections[events[i].data.u64], events[i].events);
      if (const Clock::time_point now = Clock::now(); now >= next_tick) {
        tick(now);
        next_tick = now + kTick;
      }
    }
  }

  void tick(Clock::time_point now) {
    int opens = 0;
    for (Connection& c : connections) {
      if (c.phase == Phase::waiting && c.due <= now && opens < options.opens_per_tick) {
        ++opens;
        open(c, now);
      } else if (c.phase == Phase::connecting && c.due <= now) {
        connect_failed(c, "connect: timed out", now);
      } else if (c.phase == Phase::open && c.kind == Kind::slow_loris && c.due <= now) {
        c.out += "X-Pad-" + std::to_string(c.pads++) + ": 1\r\n";
        c.under_way = true;
        c.due = now + options.interval;
        flush(c);
      }
    }
  }

  // A non-blocking socket bound to the next source address (its port chosen at connect, so that the
  // addresses' ports are not used up at bind), connecting to the server.
  void open(Connection& c, Clock::time_point now) {
    const sockaddr_in& source = sources[next_source++ % sources.size()];
    c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) return connect_failed(c, std::string("socket: ") + std::strerror(errno), now);
    const int on = 1;
    setsockopt(c.fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on, sizeof on);
    if (bind(c.fd, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0)
      return connect_failed(c, std::string("bind: ") + std::strerror(errno), now);
    if (connect(c.fd, reinterpret_cast<const sockaddr*>(&server), sizeof server) != 0 && errno != EINPROGRESS)
      return connect_failed(c, std::string("connect: ") + std::strerror(errno), now);
    epoll_event e{};
    e.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    e.data.u64 = static_cast<std::uint64_t>(&c - connections.data());
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c.fd, &e) != 0)
      return connect_failed(c, std::string("epoll_ctl: ") + std::strerror(errno), now);
    c.phase = Phase::connecting;
    c.due = now + options.connect_timeout;
  }

  void on_event(Connection& c, std::uint32_t events) {
    const Clock::time_point now = Clock::now();
    if (c.phase == Phase::connecting) {
      int error = 0;
      socklen_t size = sizeof error;
      getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &size);
      if (error != 0) return connect_failed(c, std::string("connect: ") + std::strerror(error), now);
      if (!(events & (EPOLLOUT | EPOLLIN))) return;
      connected(c, now);
    }
    if (c.phase != Phase::open) return;
    if (events & EPOLLOUT) flush(c);
    if (c.phase == Phase::open && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) read_all(c);
  }

  void connected(Connection& c, Clock::time_point now) {
    c.phase = Phase::open;
    c.started = now;
    c.out = c.kind == Kind::slow_loris ? kSlowLorisStart : kHealthRequest;
    c.due = now + options.interval;
    {
      std::lock_guard lock(mutex);
      HostileKindStats& s = record(c).stats;
      ++s.opened;
      s.open_max = std::max(s.open_max, ++s.open_now);
    }
    flush(c);
  }

  // Sends what it can of c.out; the rest waits for the next EPOLLOUT. A failed send means the server closed.
  void flush(Connection& c) {
    while (!c.out.empty()) {
      const ssize_t n = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EAGAIN) return;
      if (n < 0) {  // the server closed: read what it answered first
        read_all(c);
        if (c.phase == Phase::open) closed_by_server(c);
        return;
      }
      c.out.erase(0, static_cast<std::size_t>(n));
    }
  }

  // Reads until the socket has no more; takes each whole reply; the server's close ends the connection.
  void read_all(Connection& c) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = recv(c.fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        c.in.append(buffer, static_cast<std::size_t>(n));
        take_replies(c);
      } else if (n < 0 && errno == EAGAIN) {
        return;
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        return closed_by_server(c);  // EOF, or a reset
      }
    }
  }

  void take_replies(Connection& c) {
    while (const std::size_t length = reply_length(c.in)) {
      const int status = status_code(c.in);
      c.in.erase(0, length);
      if (c.kind == Kind::idle && !c.under_way && health_reply(c, status)) continue;
      c.answer = status;
    }
  }

  // Records an idle connection's first reply; true (and under way from now) if it is 200.
  bool health_reply(Connection& c, int status) {
    {
      std::lock_guard lock(mutex);
      ++idle.stats.health_status[status];
    }
    if (status != 200) return false;
    c.under_way = true;
    c.started = Clock::now();
    return true;
  }

  void closed_by_server(Connection& c) {
    const Clock::time_point now = Clock::now();
    int partial = c.in.empty() ? 0 : status_code(c.in);  // a reply cut short still says its status
    if (partial == 0 && !c.in.empty()) partial = -1;        // too short to say one
    if (partial > 0 && c.kind == Kind::idle && !c.under_way) health_reply(c, partial);
    const int answer = partial != 0 ? partial : c.answer;
    const std::string what = answer > 0 ? std::to_string(answer) : answer < 0 ? "malformed reply" : "silent close";
    {
      std::lock_guard lock(mutex);
      KindRecord& r = record(c);
      --r.stats.open_now;
      if (c.under_way) {
        ++r.stats.closed[what];
        r.close_seconds.push_back(std::chrono::duration<double>(now - c.started).count());
      } else {
        ++r.stats.refused[what];
      }
    }
    finish(c, now);
  }

  void connect_failed(Connection& c, const std::string& why, Clock::time_point now) {
    {
      std::lock_guard lock(mutex);
      ++record(c).stats.refused["connect failed"];
      if (first_connect_error.empty()) first_connect_error = why;
    }
    finish(c, now);
  }

  // Closes the socket; with reconnect, a new connection takes its place after the pause.
  void finish(Connection& c, Clock::time_point now) {
    if (c.fd >= 0) close(c.fd);
    const Kind kind = c.kind;
    c = Connection{};
    c.kind = kind;
    c.phase = options.reconnect ? Phase::waiting : Phase::done;
    c.due = now + options.reconnect_pause;
  }

  HostileStats stats() const {
    std::lock_guard lock(mutex);
    return {slow_loris.snapshot(), idle.snapshot(), first_connect_error};
  }
};

HostileClients::HostileClients(HostileOptions options) : engine_(std::make_unique<Engine>(std::move(options))) {}

HostileClients::~HostileClients() = default;

HostileStats HostileClients::stats() const { return engine_->stats(); }

bool HostileClients::wait_for(const std::function<bool(const HostileStats&)>& done,
                              std::chrono::milliseconds timeout) const {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    if (done(stats())) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kTick);
  }
}

void HostileClients::stop() { engine_->shutdown(); }

}  // namespace heptapod::bench
