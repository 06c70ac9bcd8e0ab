// Log-probabilities over HTTP: /v1/completions with `logprobs: K` gives each choice OpenAI's {tokens,
// token_logprobs, top_logprobs (the K most likely and the token taken), text_offset} equal to the Generator's
// records alone (int8: batch-invariant), streamed chunks' logprobs add up to the whole reply's (a stop string
// included), and K over 5 or with echo is a 400 naming logprobs; the chat shape (serve/log_probs_json.h) of
// records built by hand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "heptapod/decode/generator.h"
#include "heptapod/serve/log_probs_json.h"
#include "running_server.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using nlohmann::json;

class ServerLogprobs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    lm_ = new std::string(test::make_language_model(dir_->file("lm.htp")));
    server_ = new test::RunningServer({parse_model_spec("writer=" + *lm_)}, test::int8_server());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete lm_;
    delete dir_;
  }
  static inline test::TempDir* dir_ = nullptr;
  static inline std::string* lm_ = nullptr;
  static inline test::RunningServer* server_ = nullptr;
};

// The data of a streamed reply's server-sent events, [DONE] left out.
std::vector<json> events_of(const std::string& body) {
  std::vector<json> out;
  for (std::size_t at = 0; (at = body.find("data: ", at)) != std::string::npos;) {
    const std::size_t end = body.find("\n\n", at);
    const std::string data = body.substr(at + 6, end - at - 6);
    at = end;
    if (data != "[DONE]") out.push_back(json::parse(data));
  }
  return out;
}

TEST_F(ServerLogprobs, CompletionsLogprobsAreTheGeneratorsRecordsWholeAndStreamed) {
  Generator generator(*lm_, {ComputeType::Int8});
  const Vocabulary& vocab = generator.vocabulary();
  GenerateOptions o;
  o.beam = 0;
  o.max_tokens = 12;
  o.sampling = {0.9f, 0, 1.0f, 21};
  o.logprobs = 2;
  const GeneratedText free = generator.generate({"uno"}, o)[0].outputs[0];
  ASSERT_GE(free.new_text.size(), 4u);
  const std::string stop = free.new_text.substr(free.new_text.size() / 2, 2);
  for (const std::vector<std::string>& stops : {std::vector<std::string>{}, {stop}}) {
    GenerateOptions s = o;
    s.stop = stops;
    const GeneratedText want = generator.generate({"uno"}, s)[0].outputs[0];
    json body = {{"prompt", "uno"}, {"max_tokens", 12}, {"temperature", 0.9}, {"seed", 21}, {"logprobs", 2}};
    if (!stops.empty()) body["stop"] = stop;
    httplib::Client c = server_->client();
    const test::Reply r = test::post_json(c, "/v1/completions", body);
    ASSERT_EQ(r.status, 200) << r.text;
    const json& choice = r.body["choices"][0];
    EXPECT_EQ(choice["text"], want.new_text);
    const json& lp = choice["logprobs"];
    ASSERT_EQ(lp["tokens"].size(), want.token_log_probs.size()) << lp.dump();
    std::size_t offset = 0;  // the numbers vocabulary's tokens are ASCII: characters are bytes
    for (std::size_t i = 0; i < want.token_log_probs.size(); ++i) {
      const TokenLogProb& w = want.token_log_probs[i];
      const std::string token = vocab.token_bytes(w.id);
      EXPECT_EQ(lp["tokens"][i], token);
      EXPECT_EQ(lp["token_logprobs"][i].get<float>(), w.log_prob);
      EXPECT_EQ(lp["text_offset"][i], offset);
      offset += token.size();
      const json& top = lp["top_logprobs"][i];
      EXPECT_GE(top.size(), 2u);
      EXPECT_LE(top.size(), 3u);  // the 2 most likely and the token taken
      EXPECT_EQ(top[token].get<float>(), w.log_prob);
      for (const auto& [id, log_prob] : w.top) EXPECT_EQ(top[vocab.token_bytes(id)].get<float>(), log_prob);
    }

    body["stream"] = true;
    const test::Reply streamed = test::post_json(c, "/v1/completions", body);
    ASSERT_EQ(streamed.status, 200) << streamed.text;
    std::string text;
    json joined = {{"tokens", json::array()}, {"token_logprobs", json::array()}, {"top_logprobs", json::array()},
                   {"text_offset", json::array()}};
    for (const json& e : events_of(streamed.text)) {
      if (e["choices"].empty()) continue;
      const json& ch = e["choices"][0];
      text += ch["text"].get<std::string>();
      if (ch["logprobs"].is_null()) continue;
      for (const auto& [key, values] : ch["logprobs"].items())
        for (const json& v : values) joined[key].push_back(v);
    }
    EXPECT_EQ(text, choice["text"]);
    EXPECT_EQ(joined, lp);
  }
}

TEST_F(ServerLogprobs, MoreThanFiveOrWithEchoIsA400NamingLogprobs) {
  httplib::Client c = server_->client();
  for (const json& body : {json{{"prompt", "uno"}, {"logprobs", 6}}, json{{"prompt", "uno"}, {"logprobs", -1}},
                           json{{"prompt", "uno"}, {"logprobs", 1}, {"echo", true}}}) {
    const test::Reply r = test::post_json(c, "/v1/completions", body);
    EXPECT_EQ(r.status, 400) << body.dump() << " -> " << r.text;
    EXPECT_EQ(r.body["error"]["param"], "logprobs") << r.text;
  }
  const test::Reply none = test::post_json(c, "/v1/completions", {{"prompt", "uno"}, {"logprobs", nullptr}});
  ASSERT_EQ(none.status, 200) << none.text;
  EXPECT_TRUE(none.body["choices"][0]["logprobs"].is_null());
}

TEST(ChatLogprobs, AreOpenAIsContentShape) {
  const Vocabulary vocab = test::numbers_vocabulary();
  const int twenty = vocab.encode("twenty")[0], one = vocab.encode("one")[0];
  const std::vector<TokenLogProb> records = {{twenty, -0.5f, {{twenty, -0.5f}, {one, -1.25f}}},
                                             {one, -2.0f, {{twenty, -0.25f}, {one, -2.0f}}}};
  const json got = chat_logprobs(records, vocab);
  auto entry = [&](int id, float log_prob) {
    const std::string bytes = vocab.token_bytes(id);
    return json{{"token", bytes}, {"logprob", log_prob}, {"bytes", std::vector<int>(bytes.begin(), bytes.end())}};
  };
  json want_content = json::array();
  for (const TokenLogProb& r : records) {
    json one_entry = entry(r.id, r.log_prob);
    one_entry["top_logprobs"] = json::array({entry(r.top[0].first, r.top[0].second), entry(r.top[1].first, r.top[1].second)});
    want_content.push_back(one_entry);
  }
  EXPECT_EQ(got, (json{{"content", want_content}}));
  EXPECT_EQ(got["content"][0]["token"], " twenty");
  // A streamed reply's chunks, one record each, add up to the whole.
  json parts = json::array();
  for (const TokenLogProb& r : records) {
    const json chunk = chat_logprobs(std::span(&r, 1), vocab);
    for (const json& e : chunk["content"]) parts.push_back(e);
  }
  EXPECT_EQ(parts, got["content"]);
  EXPECT_EQ(chat_logprobs({}, vocab), (json{{"content", json::array()}}));
}

}  // namespace
}  // namespace heptapod
