// Test helpers for the HTTP server: a ModelServer on 127.0.0.1 (any free port) serving in a thread of
// the test process, and JSON requests to it through cpp-httplib's client.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "heptapod/data/text_file.h"
#include "heptapod/serve/model_server.h"
#include "test_process.h"

namespace heptapod::test {

// The Spanish side of the numbers dev set (200 lines): the servers' test sentences.
inline std::vector<std::string> numbers() { return read_lines(data_file("numbers.dev.es")); }

// A server computing in int8 (batch-invariant: replies comparable to the bit) with short outputs.
inline ServerOptions int8_server() {
  ServerOptions o;
  o.load.compute_type = ComputeType::Int8;
  o.defaults.search.max_extra_length = 8;
  return o;
}

class RunningServer {
 public:
  RunningServer(std::vector<ModelSpec> models, ServerOptions options) {
    options.http.host = "127.0.0.1";
    options.http.port = 0;
    server_ = std::make_unique<ModelServer>(std::move(models), options);
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
  std::unique_ptr<ModelServer> server_;
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

// The servers' reference: numbers() and what `heptapod translate` prints for them with int8_server()'s
// settings (with `adapter`, a LoRA adapter file over `model`: --adapter), one line each (a test failure, and no
// translations, when it fails).
struct CliReference {
  std::vector<std::string> sources, translations;
};
inline CliReference cli_reference(const TempDir& dir, const std::string& model, const std::string& adapter = "") {
  std::string log;
  const std::string input = data_file("numbers.dev.es"), out = dir.file("cli-translations.txt");
  const int rc = run_heptapod("translate -m " + quoted(model) + (adapter.empty() ? "" : " --adapter " + quoted(adapter)) +
                                  " --compute-type int8 --max-extra-length 8 -i " + quoted(input) + " -o " + quoted(out),
                              dir, log);
  EXPECT_EQ(rc, 0) << log;
  CliReference r{numbers(), rc == 0 ? read_lines(out) : std::vector<std::string>{}};
  EXPECT_EQ(r.translations.size(), r.sources.size());
  return r;
}

// `clients` threads, each on its own keep-alive connection from `connect`, translate `sources` through
// LibreTranslate's API (es to en), sentence i by client i % clients: each reply's translatedText, or "HTTP
// <status><body>" for a failure.
inline std::vector<std::string> translate_concurrently(const std::function<httplib::Client()>& connect,
                                                       const std::vector<std::string>& sources, int clients) {
  std::vector<std::string> got(sources.size());
  std::vector<std::thread> threads;
  for (int k = 0; k < clients; ++k)
    threads.emplace_back([&, k] {
      httplib::Client c = connect();
      for (std::size_t i = k; i < sources.size(); i += clients) {
        const Reply r = post_json(c, "/translate", {{"q", sources[i]}, {"source", "es"}, {"target", "en"}});
        got[i] = r.status == 200 ? r.body["translatedText"].get<std::string>() : "HTTP " + std::to_string(r.status) + r.text;
      }
    });
  for (auto& t : threads) t.join();
  return got;
}

}  // namespace heptapod::test
