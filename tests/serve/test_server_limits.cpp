// Every limit and malformed input of the HTTP server gets its status code and a JSON error naming the
// problem, and the server goes on serving: body size (413), characters and lines (400), malformed JSON,
// UTF-8 and fields (400), unknown languages (400), search options beyond the limits (400), API keys (403),
// a full queue (503 with Retry-After, the accepted requests still exact), deadlines (504), unknown paths (404).
#include <gtest/gtest.h>

#include <thread>

#include "heptapod/data/text_file.h"
#include "running_server.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using nlohmann::json;
using test::post;
using test::post_json;

using test::int8_server;
using test::numbers;

class ServerLimits : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    const std::string model = test::make_model(*dir_);
    ServerOptions o = int8_server();
    o.http.max_body_bytes = 4096;
    o.limits.max_characters = 300;
    o.limits.max_sentences = 5;
    o.limits.max_beam = 6;
    o.limits.max_nbest = 3;
    o.api_keys_file = dir_->write("keys.txt", "# keys\nkey-one-0001\n\nkey-two-0002\n");
    server_ = new test::RunningServer({parse_model_spec("es-en=" + model), parse_model_spec("en-es=" + model)}, o);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  // A request with a valid key; `extra` fields override.
  static json request(json extra) {
    json body = {{"q", "uno dos"}, {"source", "es"}, {"target", "en"}, {"api_key", "key-one-0001"}};
    for (auto& [k, v] : extra.items()) body[k] = v;
    return body;
  }
  // The reply's status, and that its error names `part`; then that the server still translates.
  static void expect_error(const test::Reply& r, int status, const std::string& part) {
    EXPECT_EQ(r.status, status) << r.text;
    ASSERT_TRUE(r.body.is_object() && r.body.contains("error")) << r.text;
    EXPECT_HAS_SUBSTR(r.body["error"].get<std::string>(), part);
    httplib::Client client = server_->client();
    EXPECT_EQ(post_json(client, "/translate", request({})).status, 200) << "the server stopped serving";
  }
  static inline test::TempDir* dir_ = nullptr;
  static inline test::RunningServer* server_ = nullptr;
};

TEST_F(ServerLimits, BodyCharactersAndLines) {
  httplib::Client c = server_->client();
  expect_error(post_json(c, "/translate", request({{"q", std::string(5000, 'a')}})), 413, "larger than 4096 bytes");
  expect_error(post_json(c, "/translate", request({{"q", std::string(301, 'a')}})), 400, "exceeds text limit (300)");
  expect_error(post_json(c, "/translate", request({{"q", "a\nb\nc\nd\ne\nf"}})), 400, "sentence limit (5)");
  expect_error(post_json(c, "/translate", request({{"q", {"a", "b", "c", "d", "e", "f"}}})), 400, "sentence limit (5)");
  // 300 characters of two-byte UTF-8 are within the limit.
  std::string accents;
  for (int i = 0; i < 300; ++i) accents += "\xc3\xa9";
  EXPECT_EQ(post_json(c, "/translate", request({{"q", accents}})).status, 200);
}

TEST_F(ServerLimits, MalformedBodiesAndFields) {
  httplib::Client c = server_->client();
  expect_error(post(c, "/translate", "{\"q\": \"uno\""), 400, "malformed JSON");
  expect_error(post(c, "/translate", "[1, 2]"), 400, "must be an object");
  expect_error(post(c, "/translate", "{\"q\": \"\xff\xfe\", \"api_key\": \"key-one-0001\"}"), 400, "malformed JSON");
  expect_error(post(c, "/translate", "q=%ff%fe&api_key=key-one-0001", "application/x-www-form-urlencoded"), 400,
               "field q: invalid UTF-8");
  expect_error(post(c, "/translate", "q=uno%zz&api_key=key-one-0001", "application/x-www-form-urlencoded"), 400,
               "%-escape");
  expect_error(post_json(c, "/translate", request({{"q", 7}})), 400, "field q: must be a string");
  expect_error(post_json(c, "/translate", request({{"q", {"uno", 2}}})), 400, "field q[1]: must be a string");
  expect_error(post_json(c, "/translate", request({{"q", nullptr}})), 400, "missing q parameter");
  expect_error(post_json(c, "/translate", request({{"alternatives", "many"}})), 400, "field alternatives: must be an integer");
  expect_error(post_json(c, "/translate", request({{"alternatives", 5}})), 400, "field alternatives");
  expect_error(post_json(c, "/translate", request({{"format", "html"}})), 400, "field format");
  expect_error(post_json(c, "/v1/translate", {{"text", "uno"}, {"model", "es-en"}, {"beam", 7}, {"api_key", "key-one-0001"}}),
               400, "field beam");
  expect_error(post_json(c, "/v1/translate", {{"text", "uno"}, {"model", "es-en"}, {"beam", 0}, {"api_key", "key-one-0001"}}),
               400, "field beam");
  expect_error(post_json(c, "/v1/translate", {{"text", "uno"}, {"model", "es-en"}, {"nbest", 4}, {"api_key", "key-one-0001"}}),
               400, "field nbest");
  expect_error(post_json(c, "/v1/translate", {{"text", "uno"}, {"model", "es-en"}, {"alpha", -1}, {"api_key", "key-one-0001"}}),
               400, "field alpha");
  expect_error(post_json(c, "/v1/translate", {{"text", "un\ndos"}, {"model", "es-en"}, {"api_key", "key-one-0001"}}), 400,
               "field text: one sentence per element");
  expect_error(post_json(c, "/v1/translate", {{"text", "uno"}, {"model", "es"}, {"api_key", "key-one-0001"}}), 400,
               "field model");
  expect_error(post_json(c, "/v1/translate", {{"text", "uno"}, {"model", "es-en"}, {"timeout_ms", 0}, {"api_key", "key-one-0001"}}),
               400, "field timeout_ms");
}

TEST_F(ServerLimits, LanguagesMustBeServed) {
  httplib::Client c = server_->client();
  expect_error(post_json(c, "/translate", request({{"source", "fr"}})), 400, "fr is not supported");
  expect_error(post_json(c, "/translate", request({{"target", "de"}})), 400, "de is not supported");
  expect_error(post_json(c, "/translate", request({{"target", nullptr}})), 400, "missing target parameter");
  EXPECT_EQ(post_json(c, "/translate", request({{"source", "en"}, {"target", "es"}})).status, 200);
  const test::Reply languages = test::get(c, "/languages");
  EXPECT_EQ(languages.body.size(), 2u);
}

TEST_F(ServerLimits, ApiKeys) {
  httplib::Client c = server_->client();
  expect_error(post_json(c, "/translate", request({{"api_key", nullptr}})), 403, "provide an API key");
  expect_error(post_json(c, "/translate", request({{"api_key", "key-three-03"}})), 403, "Invalid API key");
  json keyless = request({});
  keyless.erase("api_key");
  EXPECT_EQ(post_json(c, "/translate", keyless, {{"X-API-Key", "key-two-0002"}}).status, 200);
  EXPECT_EQ(post_json(c, "/translate", keyless, {{"Authorization", "Bearer key-two-0002"}}).status, 200);
  EXPECT_EQ(test::get(c, "/languages").status, 200) << "listing languages needs no key";
}

TEST_F(ServerLimits, UnknownPathsAndMethods) {
  httplib::Client c = server_->client();
  const test::Reply r = test::get(c, "/nowhere");
  EXPECT_EQ(r.status, 404);
  EXPECT_HAS_SUBSTR(r.body["error"].get<std::string>(), "/nowhere");
  expect_error(test::get(c, "/translate"), 404, "Not found");
}

// A queue of 4 sentences: of many concurrent 4-sentence requests some are refused with 503 and Retry-After;
// every accepted one is answered exactly.
TEST(ServerOverload, FullQueueRefusesWith503AndServesTheRest) {
  test::TempDir dir;
  const std::string model = test::make_model(dir);
  ServerOptions o = int8_server();
  o.queue.max_queued_sentences = 4;
  test::RunningServer server({parse_model_spec(model)}, o);
  const std::vector<std::string> lines = numbers();
  const std::vector<std::string> four(lines.begin(), lines.begin() + 4);
  Translator alone(model, {ComputeType::Int8});
  const std::vector<Translation> want = alone.translate(four, o.defaults);
  constexpr int kClients = 16, kRequests = 4;
  std::atomic<int> ok{0}, refused{0}, other{0};
  std::vector<std::thread> clients;
  for (int k = 0; k < kClients; ++k)
    clients.emplace_back([&] {
      httplib::Client c = server.client();
      for (int i = 0; i < kRequests; ++i) {
        const test::Reply r = post_json(c, "/v1/translate", {{"text", four}});
        if (r.status == 503 && r.retry_after == "1") {
          ++refused;
        } else if (r.status == 200) {
          bool same = r.body["translations"].size() == 4;
          for (int s = 0; same && s < 4; ++s)
            same = r.body["translations"][s]["hypotheses"][0]["text"] == want[s].hypotheses[0].text;
          ++(same ? ok : other);
        } else {
          ++other;
        }
      }
    });
  for (auto& t : clients) t.join();
  EXPECT_GT(refused.load(), 0) << "16 clients on a 4-sentence queue: some requests must be refused";
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(other.load(), 0) << "every reply is an exact 200 or a 503 with Retry-After";
  httplib::Client c = server.client();
  EXPECT_EQ(post_json(c, "/translate", {{"q", lines[0]}}).status, 200);
}

TEST(ServerOverload, DeadlinePassedIs504) {
  test::TempDir dir;
  const std::string model = test::make_model(dir);
  ServerOptions o;
  o.load.compute_type = ComputeType::Int8;
  test::RunningServer server({parse_model_spec(model)}, o);
  std::vector<std::string> lines = numbers();
  lines.resize(200);
  httplib::Client c = server.client();
  const test::Reply r = post_json(c, "/v1/translate", {{"text", lines}, {"beam", 8}, {"timeout_ms", 1}});
  EXPECT_EQ(r.status, 504) << r.text;
  EXPECT_HAS_SUBSTR(r.body["error"].get<std::string>(), "timed out");
  EXPECT_EQ(post_json(c, "/translate", {{"q", lines[0]}}).status, 200);
}

}  // namespace
}  // namespace heptapod
