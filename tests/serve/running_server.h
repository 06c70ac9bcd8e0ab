// Test helpers for the HTTP server: a TranslationServer on 127.0.0.1 (any free port) serving in a thread of
// the test process, and JSON requests to it through cpp-httplib's client.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "heptapod/data/text_file.h"
#include "heptapod/serve/translation_server.h"
#include "test_process.h"

namespace heptapod::test {

// The Spanish side of the numbers dev set (200 lines): the servers' test sentences.
inline std::vector<std::string> numbers() { return read_lines(data_file("numbers.dev.es")); }

// A server computing in int8 (batch-invariant: replies comparable to the bit) with short outputs.
inline ServerOptions int8_server() {
  ServerOptions o;
  o.translator.compute_type = ComputeType::Int8;
  o.defaults.search.max_extra_length = 8;
  return o;
}

class RunningServer {
 public:
  RunningServer(std::vector<ModelSpec> models, ServerOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<TranslationServer>(std::move(models), options);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->serve(); });
    for (int i = 0; i < 1000 && !server_->ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(server_->ready()) << "the server did not load its models within 10 s";
  }
  ~RunningServer() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }

 private:
  std::unique_ptr<TranslationServer> server_;
  int port_ = 0;
  std::thread thread_;
};

struct Reply {
  int status = 0;  // 0: no reply
  nlohmann::json body;
  std::string text, retry_after;
};

inline Reply post(httplib::Client& client, const std::string& path, const std::string& body,
                  const std::string& content_type = "application/json", const httplib::Headers& headers = {}) {
  Reply r;
  auto res = client.Post(path.c_str(), headers, body, content_type.c_str());
  if (!res) return r;
  r.status = res->status;
  r.text = res->body;
  r.retry_after = res->get_header_value("Retry-After");
  r.body = nlohmann::json::parse(res->body, nullptr, false);
  return r;
}

inline Reply post_json(httplib::Client& client, const std::string& path, const nlohmann::json& body,
                       const httplib::Headers& headers = {}) {
  return post(client, path, body.dump(), "application/json", headers);
}

inline Reply get(httplib::Client& client, const std::string& path) {
  Reply r;
  auto res = client.Get(path.c_str());
  if (!res) return r;
  r.status = res->status;
  r.text = res->body;
  r.body = nlohmann::json::parse(res->body, nullptr, false);
  return r;
}

}  // namespace heptapod::test
