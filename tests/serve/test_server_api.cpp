// The HTTP server's APIs against the library itself: concurrent clients get over HTTP exactly what one
// Translator gives each request alone (int8: batch-invariant, so texts and scores are equal to the bit);
// LibreTranslate's request and reply formats (JSON, form and multipart bodies; q as a string or an array;
// alternatives; detected language; /languages); the native API's options; /health and /metrics.
#include <gtest/gtest.h>

#include <atomic>
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

class ServerApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    model_ = new std::string(test::make_model(*dir_));
    server_ = new test::RunningServer({parse_model_spec("es-en=" + *model_)}, int8_server());
    alone_ = new Translator(*model_, {ComputeType::Int8});
  }
  static void TearDownTestSuite() {
    delete alone_;
    delete server_;
    delete model_;
    delete dir_;
  }
  // What the Translator gives `lines` alone, with the server's default options and `beam`/`nbest`.
  static std::vector<Translation> expected(const std::vector<std::string>& lines, int beam = 4, int nbest = 1) {
    TranslateOptions o = int8_server().defaults;
    o.search.nbest = nbest;
    o.search.beam = std::max(beam, nbest);
    return alone_->translate(lines, o);
  }
  static inline test::TempDir* dir_ = nullptr;
  static inline std::string* model_ = nullptr;
  static inline test::RunningServer* server_ = nullptr;
  static inline Translator* alone_ = nullptr;
};

TEST_F(ServerApi, ConcurrentClientsGetWhatEachRequestAloneGives) {
  const std::vector<std::string> lines = numbers();
  constexpr int kClients = 12, kRequests = 6;
  auto request = [&](int c, int k) {
    const std::size_t at = static_cast<std::size_t>(c * kRequests + k) % (lines.size() - 3);
    return std::vector<std::string>(lines.begin() + at, lines.begin() + at + 1 + (c + k) % 3);
  };
  std::vector<std::vector<json>> got(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([&, c] {
      httplib::Client client = server_->client();
      for (int k = 0; k < kRequests; ++k) {
        const int beam = c % 2 ? 4 : 1;
        got[c].push_back(post_json(client, "/v1/translate", {{"text", request(c, k)}, {"beam", beam}}).body);
      }
    });
  for (auto& t : clients) t.join();
  // Some search batch merged several clients' requests (else the test proves nothing about batching).
  httplib::Client client = server_->client();
  const std::string metrics = test::get(client, "/metrics").text;
  auto series = [&](const std::string& name) {
    const std::size_t at = metrics.find(name);
    return at == std::string::npos ? -1.0 : std::stod(metrics.substr(at + name.size()));
  };
  EXPECT_LT(series("heptapod_batch_requests_bucket{model=\"es-en\",kind=\"translation\",le=\"1\"} "),
            series("heptapod_batch_requests_count{model=\"es-en\",kind=\"translation\"} "))
      << metrics;
  for (int c = 0; c < kClients; ++c)
    for (int k = 0; k < kRequests; ++k) {
      const std::vector<Translation> want = expected(request(c, k), c % 2 ? 4 : 1);
      const json& reply = got[c][k];
      ASSERT_TRUE(reply.contains("translations")) << reply.dump();
      ASSERT_EQ(reply["translations"].size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        const json& h = reply["translations"][i]["hypotheses"][0];
        EXPECT_EQ(h["text"].get<std::string>(), want[i].hypotheses[0].text) << "client " << c << " request " << k;
        EXPECT_EQ(h["score"].get<float>(), want[i].hypotheses[0].score) << "client " << c << " request " << k;
        EXPECT_EQ(h["log_prob"].get<float>(), want[i].hypotheses[0].log_prob);
      }
    }
}

TEST_F(ServerApi, LibreTranslateStringArrayAndAlternatives) {
  httplib::Client client = server_->client();
  const std::vector<std::string> lines = numbers();
  const test::Reply one = post_json(client, "/translate", {{"q", lines[0]}, {"source", "es"}, {"target", "en"}});
  ASSERT_EQ(one.status, 200) << one.text;
  EXPECT_EQ(one.body["translatedText"], expected({lines[0]})[0].hypotheses[0].text);
  EXPECT_FALSE(one.body.contains("alternatives"));

  const test::Reply many = post_json(client, "/translate",
                                     {{"q", {lines[1], lines[2]}}, {"source", "es"}, {"target", "en"}, {"alternatives", 2}});
  ASSERT_EQ(many.status, 200) << many.text;
  const std::vector<Translation> want = expected({lines[1], lines[2]}, 4, 3);
  ASSERT_TRUE(many.body["translatedText"].is_array());
  ASSERT_EQ(many.body["alternatives"].size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(many.body["translatedText"][i], want[i].hypotheses[0].text);
    ASSERT_EQ(many.body["alternatives"][i].size(), 2u);
    EXPECT_EQ(many.body["alternatives"][i][0], want[i].hypotheses[1].text);
    EXPECT_EQ(many.body["alternatives"][i][1], want[i].hypotheses[2].text);
  }
}

TEST_F(ServerApi, LibreTranslateParagraphsAreTranslatedLineByLine) {
  httplib::Client client = server_->client();
  const std::vector<std::string> lines = numbers();
  const test::Reply r = post_json(client, "/translate", {{"q", lines[3] + "\n" + lines[4] + "\r\n\n" + lines[5]}});
  ASSERT_EQ(r.status, 200) << r.text;
  const std::vector<Translation> want = expected({lines[3], lines[4], "", lines[5]});
  EXPECT_EQ(r.body["translatedText"], want[0].hypotheses[0].text + "\n" + want[1].hypotheses[0].text + "\n\n" +
                                          want[3].hypotheses[0].text);
}

TEST_F(ServerApi, LibreTranslateFormBodiesAndDetectedLanguage) {
  httplib::Client client = server_->client();
  const std::vector<std::string> lines = numbers();
  const std::string form = "q=" + httplib::detail::encode_query_param(lines[6]) + "&q=" +
                           httplib::detail::encode_query_param(lines[7]) + "&source=auto&target=en";
  const test::Reply r = post(client, "/translate", form, "application/x-www-form-urlencoded");
  ASSERT_EQ(r.status, 200) << r.text;
  EXPECT_EQ(r.body["translatedText"][0], expected({lines[6]})[0].hypotheses[0].text);
  EXPECT_EQ(r.body["translatedText"][1], expected({lines[7]})[0].hypotheses[0].text);
  EXPECT_EQ(r.body["detectedLanguage"][0]["language"], "es");

  httplib::MultipartFormDataItems items = {{"q", lines[8], "", ""}, {"source", "es", "", ""}, {"target", "en", "", ""}};
  auto res = client.Post("/translate", items);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["translatedText"], expected({lines[8]})[0].hypotheses[0].text);
}

TEST_F(ServerApi, NativeNbestScoresAndAlignments) {
  httplib::Client client = server_->client();
  const std::vector<std::string> lines = numbers();
  const test::Reply r =
      post_json(client, "/v1/translate", {{"text", lines[9]}, {"nbest", 3}, {"alignments", true}, {"tokens", true}});
  ASSERT_EQ(r.status, 200) << r.text;
  EXPECT_EQ(r.body["model"], "es-en");
  const Translation want = expected({lines[9]}, 4, 3)[0];
  const json& hyps = r.body["translations"][0]["hypotheses"];
  ASSERT_EQ(hyps.size(), want.hypotheses.size());
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    EXPECT_EQ(hyps[i]["text"], want.hypotheses[i].text);
    EXPECT_EQ(hyps[i]["score"].get<float>(), want.hypotheses[i].score);
    EXPECT_EQ(hyps[i]["alignment"], want.hypotheses[i].alignment);
    EXPECT_EQ(hyps[i]["tokens"].get<std::vector<int>>(), want.hypotheses[i].tokens);
  }
}

TEST_F(ServerApi, LanguagesHealthAndMetrics) {
  httplib::Client client = server_->client();
  const test::Reply languages = test::get(client, "/languages");
  ASSERT_EQ(languages.status, 200);
  EXPECT_EQ(languages.body, json::parse(R"([{"code":"en","name":"English","targets":[]},{"code":"es","name":"Spanish","targets":["en"]}])"));
  const test::Reply health = test::get(client, "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body["status"], "ok");
  post_json(client, "/translate", {{"q", "uno"}});
  const test::Reply metrics = test::get(client, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  for (const char* series : {"heptapod_ready 1", "heptapod_requests_total{path=\"/translate\",code=\"200\"}",
                             "heptapod_request_duration_seconds_bucket{path=\"/translate\",le=\"+Inf\"}",
                             "heptapod_batch_sentences_bucket{model=\"es-en\",kind=\"translation\"", "heptapod_queue_sentences{model=\"es-en\",kind=\"translation\"} 0",
                             "heptapod_output_tokens_total{model=\"es-en\",kind=\"translation\"}", "# TYPE heptapod_batch_requests histogram"})
    EXPECT_HAS_SUBSTR(metrics.text, series);
}

TEST_F(ServerApi, WebPageIsServedFromTheBinary) {
  httplib::Client client = server_->client();
  auto res = client.Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_HAS_SUBSTR(res->get_header_value("Content-Type"), "text/html");
  EXPECT_HAS_SUBSTR(res->body, "<title>Heptapod translate</title>");
  EXPECT_EQ(res->body.find("http://"), std::string::npos) << "the page must load nothing from elsewhere";
  EXPECT_EQ(res->body.find("https://"), std::string::npos) << "the page must load nothing from elsewhere";
}

}  // namespace
}  // namespace heptapod
