// Test helpers for the HTTP front end at the byte level: a TCP connection from a chosen loopback address
// (127.0.0.2 ... so that per-address limits apply to it alone), raw sends, and reads with deadlines that say
// what arrived and whether and when the server closed the connection. Every wait is bounded.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace heptapod::test {

class RawConnection {
 public:
  using Clock = std::chrono::steady_clock;
  // Connects to 127.0.0.1:port from `from` (any loopback address); fd() < 0 when that failed.
  RawConnection(int port, const std::string& from = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, from.c_str(), &local.sin_addr);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    opened_ = Clock::now();
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  int fd() const { return fd_; }
  // false when the server has closed (or reset) the connection.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Reads what arrives within `seconds` (after what an earlier read_reply left): until the server closes, or
  // until `done(text read so far)`.
  // closed() and seconds_to_close() say whether and when (since the connection opened) the server closed it.
  std::string read(double seconds, const std::function<bool(const std::string&)>& done = {}) {
    std::string text = std::move(unread_);
    unread_.clear();
    const Clock::time_point end =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    while (!closed_ && Clock::now() < end && !(done && done(text))) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
      if (::poll(&p, 1, static_cast<int>(left > 0 ? left : 0)) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        closed_after_ = std::chrono::duration<double>(Clock::now() - opened_).count();
        break;
      }
      text.append(buf, static_cast<std::size_t>(n));
    }
    return text;
  }
  // One whole reply with a Content-Length body (or none), within `seconds`; bytes past it (the next reply)
  // are kept for the next read.
  std::string read_reply(double seconds) {
    auto reply_size = [](const std::string& text) -> std::size_t {
      const std::size_t head_end = text.find("\r\n\r\n");
      if (head_end == std::string::npos) return std::string::npos;
      const std::size_t at = text.find("Content-Length: ");
      const std::size_t size = head_end + 4 + (at < head_end ? std::stoul(text.substr(at + 16)) : 0);
      return text.size() >= size ? size : std::string::npos;
    };
    std::string text = read(seconds, [&](const std::string& t) { return reply_size(t) != std::string::npos; });
    if (const std::size_t size = reply_size(text); size != std::string::npos) {
      unread_ = text.substr(size);
      text.resize(size);
    }
    return text;
  }
  bool closed() const { return closed_; }
  double seconds_to_close() const { return closed_after_; }
  void restart_clock() { opened_ = Clock::now(); }

 private:
  int fd_ = -1;
  Clock::time_point opened_;
  bool closed_ = false;
  double closed_after_ = -1;
  std::string unread_;  // received past the last reply read_reply returned
};

}  // namespace heptapod::test
